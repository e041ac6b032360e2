package cli

import (
	"crypto/ecdsa"
	"crypto/ed25519"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/x509"
	"encoding/base64"
	"encoding/hex"
	"encoding/pem"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/hookrelay/hookrelay/internal/config"
)

// TestReadPrivateKey reads each key form send accepts and refuses a key
// whose public half is not the source's.
func TestReadPrivateKey(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	write := func(name, text string) string {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, []byte(text+"\n"), 0o600); err != nil {
			t.Fatal(err)
		}
		return p
	}
	seed := []byte(strings.Repeat("k", ed25519.SeedSize))
	ed := ed25519.NewKeyFromSeed(seed)
	edPub := ed.Public().(ed25519.PublicKey)
	ec, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	sec1, _ := x509.MarshalECPrivateKey(ec)
	pkcs8, _ := x509.MarshalPKCS8PrivateKey(ec)
	spki, _ := x509.MarshalPKIXPublicKey(&ec.PublicKey)
	discord := &config.Source{Name: "d", Verify: "discord", PublicKeys: []string{"", hex.EncodeToString(edPub)}}
	standard := &config.Source{Name: "s", Verify: "standard", PublicKeys: []string{"whpk_" + base64.StdEncoding.EncodeToString(edPub)}}
	sendgrid := &config.Source{Name: "g", Verify: "sendgrid", PublicKeys: []string{base64.StdEncoding.EncodeToString(spki)}}
	for _, tt := range []struct {
		name string
		src  *config.Source
		file string
		ok   bool
	}{
		{"hex seed", discord, write("a", hex.EncodeToString(seed)), true},
		{"base64 seed", standard, write("b", base64.StdEncoding.EncodeToString(seed)), true},
		{"whsk_ 64-byte key", standard, write("c", "whsk_"+base64.StdEncoding.EncodeToString(ed)), true},
		{"SEC 1 PEM", sendgrid, write("d", string(pem.EncodeToMemory(&pem.Block{Type: "EC PRIVATE KEY", Bytes: sec1}))), true},
		{"PKCS 8 PEM", sendgrid, write("e", string(pem.EncodeToMemory(&pem.Block{Type: "PRIVATE KEY", Bytes: pkcs8}))), true},
		{"PKCS 8 base64", sendgrid, write("f", base64.StdEncoding.EncodeToString(pkcs8)), true},
		{"another key", discord, write("g", hex.EncodeToString(seed[1:])+"00"), false},
		{"short seed", discord, write("h", "abcd"), false},
		{"ed25519 for sendgrid", sendgrid, write("i", hex.EncodeToString(seed)), false},
		{"no public-key scheme", &config.Source{Verify: "stripe"}, write("j", hex.EncodeToString(seed)), false},
	} {
		if _, err := readPrivateKey(tt.file, tt.src); (err == nil) != tt.ok {
			t.Errorf("%s: %v; want ok %v", tt.name, err, tt.ok)
		}
	}
}
