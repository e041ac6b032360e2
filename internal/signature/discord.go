package signature

import (
	"crypto/ed25519"
	"encoding/hex"
	"errors"
	"fmt"
	"net/http"
)

// Discord's headers.
var (
	discordSignature = http.CanonicalHeaderKey("X-Signature-Ed25519")
	discordTimestamp = http.CanonicalHeaderKey("X-Signature-Timestamp")
)

// discordInteractionTypes names Discord's interaction types, the event
// types of the stored interactions.
var discordInteractionTypes = map[string]string{
	"1": "ping",
	"2": "application_command",
	"3": "message_component",
	"4": "application_command_autocomplete",
	"5": "modal_submit",
}

// discord verifies an interaction: X-Signature-Ed25519 is the hex Ed25519
// signature of X-Signature-Timestamp followed by the body, made with the
// application's key; public_keys holds its hex public key. A PING is
// answered {"type":1}.
//
// A request without either header is ErrMismatch (401), not
// ErrMissingSignature: Discord checks an interactions endpoint by sending
// requests it did not sign and wants 401 for each, as its own library,
// discord-interactions, answers a request whose headers are absent.
type discord struct {
	common
	keys slotted[ed25519.PublicKey]
}

func newDiscord(o Options, c common) (Scheme, error) {
	keys, err := publicKeys[ed25519.PublicKey]("discord", o.PublicKeys, len(o.Secrets))
	if err != nil {
		return nil, err
	}
	return &discord{common: c, keys: keys}, nil
}

func (*discord) Name() string { return "discord" }

func (d *discord) Verify(req Request) (Result, error) {
	if !d.keys.active() {
		return failed(ErrNoSecret)
	}
	sigHex := req.Header.Get(discordSignature)
	if sigHex == "" || req.Header.Get(discordTimestamp) == "" {
		return failed(fmt.Errorf("read %s and %s: absent: %w", discordSignature, discordTimestamp, ErrMismatch))
	}
	raw, ts, err := signedTime(req.Header, discordTimestamp)
	if err != nil {
		return failed(err)
	}
	var sig [ed25519.SignatureSize]byte
	if n, err := hex.Decode(sig[:], []byte(sigHex)); err != nil || n != len(sig) || len(sigHex) != 2*len(sig) {
		// A signature of the wrong length or encoding matches no key.
		return verdict(0, false, ts, true, req.now(), d.tolerance)
	}
	slot, ok := d.keys.match(func(pub ed25519.PublicKey) bool {
		return joined(func(msg []byte) bool { return ed25519.Verify(pub, msg, sig[:]) }, []byte(raw), req.Body)
	})
	return verdict(slot, ok, ts, true, req.now(), d.tolerance)
}

// Identify reads the interaction's id and names its type (ping,
// application_command, ...); the id is required.
func (d *discord) Identify(req Request) (Identity, error) {
	var id Identity
	id.ID, id.Origin = bodyID(req.Body, "id")
	id.Type = discordInteractionTypes[bodyString(req.Body, "type")]
	return d.fields.complete(req, id, need{id: "body field id"})
}

// Handshake answers a PING (interaction type 1) with a PONG.
func (d *discord) Handshake(req Request) (Handshake, bool) {
	if bodyString(req.Body, "type") != "1" {
		return Handshake{}, false
	}
	return Handshake{Body: []byte(`{"type":1}`), ContentType: "application/json"}, true
}

func (d *discord) sign(_ int, msg Message) (http.Header, error) {
	key, ok := msg.Key.(ed25519.PrivateKey)
	if !ok {
		return nil, errors.New("discord signs with the application's Ed25519 private key")
	}
	ts := formatUnix(msg.now())
	sig := ed25519.Sign(key, append([]byte(ts), msg.Body...))
	h := http.Header{}
	h.Set(discordTimestamp, ts)
	h.Set(discordSignature, hex.EncodeToString(sig))
	return h, nil
}
