package cli

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"net/http"
	"os"
	"time"

	"github.com/hookrelay/hookrelay/internal/bodyfield"
	"github.com/hookrelay/hookrelay/internal/config"
	"github.com/hookrelay/hookrelay/internal/signature"
)

// sendTimeout bounds one send.
const sendTimeout = 30 * time.Second

func runSend(ctx context.Context, env Env, args []string) error {
	fs := newFlagSet(env, "send")
	path := addConfigFlag(fs)
	source := fs.String("source", "", "source to send to, as named in the config (required)")
	file := fs.String("file", "", "payload file to send, byte for byte (required; - reads standard input)")
	target := fs.String("url", "", "ingest base URL (default: the config's listen address)")
	id := fs.String("id", "", "provider event id for schemes that carry it in a header (default: the body's id field, else generated);\nan error for a scheme that reads its id from the body (stripe, paddle, ...)")
	eventType := fs.String("type", "", "event type for schemes that carry it in a header; required for github (default: the body's type field)")
	slot := fs.Int("slot", -1, "secret slot to sign with, from 0 (default: the first non-empty secret)")
	keyFile := fs.String("private-key", "", "file holding the private key for verify: discord, sendgrid, or standard with public_keys (v1a)")
	fs.Usage = func() {
		fmt.Fprint(fs.Output(), "Usage: hookrelay send --source NAME --file PAYLOAD [flags]\n\n"+
			"Signs PAYLOAD exactly as the source's provider would, with the source's secret from the\n"+
			"config (or --private-key for a public-key scheme), and posts it to the relay's ingest\n"+
			"listener. A provider that signs inside the body (mailgun, msgraph, linear) or the URL\n"+
			"(twilio) gets the payload with its signature or send time written in.\n\n"+
			"What would not reach the relay as asked is refused before anything is sent (exit 2):\n"+
			"an --id the source's scheme does not read (its id is in the body: edit the payload),\n"+
			"a github send without --type, an unknown --source, a --slot the source does not have.\n\n")
		fs.PrintDefaults()
	}
	if err := parseFlags(fs, args); err != nil {
		return err
	}
	if *source == "" || *file == "" {
		return fmt.Errorf("%w: --source and --file are required", errUsage)
	}
	cfg, err := loadConfig(env, *path, "sources", "listen")
	if err != nil {
		return err
	}
	src, err := sendSource(cfg, *source)
	if err != nil {
		return err
	}
	body, err := readPayload(*file)
	if err != nil {
		return err
	}
	msg := signature.Message{ID: *id, Type: *eventType, Body: body, Now: time.Now()}
	if *keyFile != "" {
		if msg.Key, err = readPrivateKey(*keyFile, src); err != nil {
			return err
		}
		*slot = 0 // unused: the key signs
	} else if *slot, err = signingSlot(cfg, src, *slot); err != nil {
		return err
	}
	if msg.ID == "" {
		if v, ok := bodyfield.Lookup(body, "id"); ok {
			msg.ID = v
		} else {
			msg.ID = fmt.Sprintf("send_%d", time.Now().UnixNano())
		}
	}
	if msg.Type == "" {
		msg.Type, _ = bodyfield.Lookup(body, "type")
	}
	signed, err := signature.SignRequest(src.SchemeOptions(), *slot, msg)
	if err != nil {
		return signError(src, msg, err)
	}
	if err := checkID(src, signed, msg, *id); err != nil {
		return err
	}

	base := *target
	if base == "" {
		base = "http://" + config.DialAddr(cfg.Listen)
	}
	ctx, cancel := context.WithTimeout(ctx, sendTimeout)
	defer cancel()
	endpoint := base + "/webhooks/" + *source
	if signed.RawQuery != "" {
		endpoint += "?" + signed.RawQuery
	}
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, endpoint, bytes.NewReader(signed.Body))
	if err != nil {
		return fmt.Errorf("build request: %w", err)
	}
	for k, v := range signed.Header {
		req.Header[k] = v
	}
	req.Header.Set("User-Agent", "hookrelay/"+Version)
	if req.Header.Get("Content-Type") == "" {
		req.Header.Set("Content-Type", "application/json")
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		return fmt.Errorf("post to %s: %w (is `hookrelay serve` running?)", req.URL, err)
	}
	defer resp.Body.Close()
	answer, _ := io.ReadAll(io.LimitReader(resp.Body, 4096))
	fmt.Fprintf(env.Stdout, "%d %s\n", resp.StatusCode, bytes.TrimSpace(answer))
	if resp.StatusCode/100 != 2 {
		return fmt.Errorf("the relay answered %s", resp.Status)
	}
	return nil
}

func readPayload(name string) ([]byte, error) {
	var (
		b   []byte
		err error
	)
	if name == "-" {
		b, err = io.ReadAll(os.Stdin)
	} else {
		b, err = os.ReadFile(name)
	}
	if err != nil {
		return nil, fmt.Errorf("read payload: %w", err)
	}
	return b, nil
}
