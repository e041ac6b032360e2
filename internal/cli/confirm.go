package cli

import (
	"bufio"
	"fmt"
	"io"
	"os"
	"strings"

	"github.com/mattn/go-isatty"
)

// terminal returns the terminal to ask for confirmation on, or ok false when
// standard input is not one. Tests replace it.
var terminal = func() (in io.Reader, ok bool) {
	fd := os.Stdin.Fd()
	if isatty.IsTerminal(fd) || isatty.IsCygwinTerminal(fd) {
		return os.Stdin, true
	}
	return nil, false
}

// confirm asks before an operation changes what count deliveries do: on a
// terminal it asks question and wants "y" or "yes"; without one it refuses
// with a usage error that says to add --yes. yes skips the question.
func confirm(env Env, yes bool, question, flagHint string) error {
	if yes {
		return nil
	}
	in, ok := terminal()
	if !ok {
		return fmt.Errorf("%w: not a terminal, so nothing was changed: add --yes to %s", errUsage, flagHint)
	}
	fmt.Fprintf(env.Stderr, "%s [y/N] ", question)
	line, _ := bufio.NewReader(in).ReadString('\n')
	switch strings.ToLower(strings.TrimSpace(line)) {
	case "y", "yes":
		return nil
	}
	return errCancelled
}
