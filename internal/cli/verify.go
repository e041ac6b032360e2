package cli

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/hookrelay/hookrelay/internal/adminwire"
)

// errInvalid reports a stored event that does not verify; the reason is
// printed before it.
var errInvalid = errors.New("the stored event does not verify against the secrets configured now")

func runVerify(ctx context.Context, env Env, args []string) error {
	fs := newFlagSet(env, "verify")
	api := addAPIFlags(fs)
	asJSON := fs.Bool("json", false, "print the API's JSON answer")
	fs.Usage = func() {
		fmt.Fprint(fs.Output(), "Usage: hookrelay verify ID [--json]\n\n"+
			"Re-checks an event's stored bytes and headers (and, for Twilio, the query it arrived with)\n"+
			"against its source's secrets as configured now, and prints which secret slot matched and\n"+
			"the timestamp skew at receipt. The tolerance is reported, not applied: an old event still\n"+
			"verifies. Exits 1 when it does not verify.\n\n")
		fs.PrintDefaults()
	}
	id, c, err := eventReader(env, fs, api, args)
	if err != nil {
		return err
	}
	v, data, err := ask(ctx, c, func(ctx context.Context) (adminwire.Verification, []byte, error) { return c.Verify(ctx, id) })
	if err != nil {
		return eventError(id, err)
	}
	if *asJSON {
		if err := printJSON(env.Stdout, data); err != nil {
			return err
		}
	} else {
		printVerification(env, v)
	}
	if !v.Valid {
		return errInvalid
	}
	return nil
}

func printVerification(env Env, v adminwire.Verification) {
	w := env.Stdout
	if v.Valid {
		fmt.Fprintf(w, "valid: the signature matches secret slot %d (scheme %s)\n", *v.Slot, v.Scheme)
	} else {
		fmt.Fprintf(w, "not valid: %s\n", v.Reason)
	}
	tolerance := time.Duration(v.ToleranceSeconds * float64(time.Second))
	switch {
	case v.SkewSeconds != nil && v.SignedAt != nil:
		skew := time.Duration(*v.SkewSeconds * float64(time.Second)).Round(time.Millisecond)
		within := "within"
		if !v.WithinTolerance {
			within = "beyond"
		}
		fmt.Fprintf(w, "skew: %s from the signed time %s to receipt, %s the tolerance of %s\n", skew, stamp(*v.SignedAt), within, tolerance)
	case v.Scheme != "":
		fmt.Fprintln(w, "skew: none to report: the scheme signs no timestamp")
	}
	if v.Valid && v.Reason != "" {
		fmt.Fprintf(w, "note: %s\n", v.Reason)
	}
}
