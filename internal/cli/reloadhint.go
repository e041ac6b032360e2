package cli

import (
	"errors"
	"fmt"
	"slices"
	"strings"

	"github.com/hookrelay/hookrelay/internal/config"
)

// explainUnsetOnReload adds to a reload refused for unset variables what
// setting them means for a running relay: it reads the environment it
// started with, which nothing outside it can change, so the fix is a
// restart, or a file: secret, which every reload reads again.
func explainUnsetOnReload(err error) error {
	var ve *config.ValidationError
	if !errors.As(err, &ve) {
		return err
	}
	var vars []string
	for _, p := range ve.Problems {
		for _, v := range p.Unset {
			if !slices.Contains(vars, v) {
				vars = append(vars, v)
			}
		}
	}
	if len(vars) == 0 {
		return err
	}
	return fmt.Errorf("%w\n%s: a reload reads the environment hookrelay started with, which a running process cannot change: restart it with the variable set, or put the secret in a file and write file:PATH in the config, which every reload reads again",
		err, strings.Join(vars, ", "))
}
