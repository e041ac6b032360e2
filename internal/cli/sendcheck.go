package cli

import (
	"errors"
	"fmt"
	"slices"
	"strings"

	"github.com/hookrelay/hookrelay/internal/config"
	"github.com/hookrelay/hookrelay/internal/signature"
	"github.com/hookrelay/hookrelay/internal/store"
)

// sendSource returns the source send signs for, or a usage error that
// lists the configured sources with the closest name.
func sendSource(cfg *config.Config, name string) (*config.Source, error) {
	src, ok := cfg.Source(name)
	if !ok {
		return nil, fmt.Errorf("%w: --source: %s", errUsage, config.UnknownName("source", name, cfg.SourceNames()))
	}
	return src, nil
}

// signingSlot returns the secret slot send signs with: slot when it names a
// non-empty secret, else (slot < 0) the first non-empty one. Its errors say
// how many slots there are, or which variable would fill the empty secret.
func signingSlot(cfg *config.Config, src *config.Source, slot int) (int, error) {
	n := len(src.Secrets)
	if slot >= n {
		return 0, fmt.Errorf("%w: --slot %d: source %q has %s", errUsage, slot, src.Name, slotCount(n))
	}
	if slot >= 0 {
		if src.Secrets[slot] == "" {
			return 0, fmt.Errorf("source %q: its secret in slot %d is empty%s", src.Name, slot, fillHint(cfg, src, slot))
		}
		return slot, nil
	}
	for i, s := range src.Secrets {
		if s != "" {
			return i, nil
		}
	}
	if n == 0 && len(src.PublicKeys) > 0 || slices.ContainsFunc(src.PublicKeys, func(k string) bool { return k != "" }) {
		return 0, fmt.Errorf("%w: source %q verifies with public_keys: sign with --private-key FILE", errUsage, src.Name)
	}
	if n == 0 {
		return 0, fmt.Errorf("source %q has no secret to sign with: add one to its secrets in %s", src.Name, cfg.Path)
	}
	return 0, fmt.Errorf("source %q has no secret to sign with%s", src.Name, fillHint(cfg, src, 0))
}

// slotCount says how many secret slots a source has: "2 secret slots (0
// and 1)".
func slotCount(n int) string {
	switch n {
	case 0:
		return "no secret slots"
	case 1:
		return "1 secret slot (0)"
	case 2:
		return "2 secret slots (0 and 1)"
	}
	return fmt.Sprintf("%d secret slots (0 to %d)", n, n-1)
}

// fillHint tells how to fill the source's empty secret in slot: the
// variables it is expanded from, or the file it is read from.
func fillHint(cfg *config.Config, src *config.Source, slot int) string {
	i := slices.IndexFunc(cfg.Sources, func(s config.Source) bool { return s.Name == src.Name })
	key := fmt.Sprintf("sources[%d].secrets[%d]", i, slot)
	vars, file := cfg.Origin(key)
	switch {
	case file != "":
		return fmt.Sprintf(": %s reads %s, which is empty", key, file)
	case len(vars) == 1:
		return fmt.Sprintf(": set %s (%s is ${%s})", vars[0], key, vars[0])
	case len(vars) > 1:
		return fmt.Sprintf(": set one of %s (%s)", strings.Join(vars, ", "), key)
	}
	return fmt.Sprintf(": %s is empty in %s", key, cfg.Path)
}

// signError explains a message the scheme cannot sign: a github send
// without --type names the flag.
func signError(src *config.Source, msg signature.Message, err error) error {
	if errors.Is(err, signature.ErrMissingIdentity) && msg.Type == "" {
		return fmt.Errorf("%w: --type is required: source %q (verify: %s) sends the event type in a header and the payload has no \"type\" field; name it, e.g. --type push",
			errUsage, src.Name, src.Verify)
	}
	return err
}

// checkID refuses an --id that the relay would not read: the source's
// scheme takes the event id from the body (or hashes the body), so the
// flag would change nothing that is stored.
func checkID(src *config.Source, signed signature.SignedRequest, msg signature.Message, id string) error {
	if id == "" {
		return nil
	}
	scheme, err := signature.New(src.SchemeOptions())
	if err != nil {
		return err
	}
	got, err := scheme.Identify(signature.Request{Header: signed.Header, Body: signed.Body, RawQuery: signed.RawQuery, Now: msg.Now})
	if err != nil || got.ID == id {
		return nil
	}
	why := fmt.Sprintf("it reads the id as %q: drop --id", got.ID)
	switch got.Origin {
	case store.IDFromBody:
		why = fmt.Sprintf("it reads the id from the payload (%q here): change it in the file and drop --id", got.ID)
	case store.IDFromHash:
		why = "the provider sends no id and the relay uses the body's SHA-256: drop --id"
	}
	return fmt.Errorf("%w: --id %q: source %q (verify: %s) takes no event id from a header: %s",
		errUsage, id, src.Name, src.Verify, why)
}
