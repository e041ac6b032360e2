package signature

import (
	"crypto"
	"crypto/ecdsa"
	"crypto/ed25519"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/sha256"
	"crypto/x509"
	"encoding/base64"
	"encoding/hex"
	"sync"
	"testing"
)

// edKey is the Ed25519 key of a name, the same on every call.
func edKey(name string) ed25519.PrivateKey {
	seed := sha256.Sum256([]byte(name))
	return ed25519.NewKeyFromSeed(seed[:])
}

// discordKey gives a name's key as discord's public_keys writes it.
func discordKey(_ *testing.T, name string) (string, crypto.Signer) {
	k := edKey(name)
	return hex.EncodeToString(k.Public().(ed25519.PublicKey)), k
}

// whpkKey gives a name's key as standard's public_keys writes it.
func whpkKey(_ *testing.T, name string) (string, crypto.Signer) {
	k := edKey(name)
	return "whpk_" + base64.StdEncoding.EncodeToString(k.Public().(ed25519.PublicKey)), k
}

// ecdsaKeys holds one P-256 key per name, made on first use.
var ecdsaKeys sync.Map

// sendgridKey gives a name's key as sendgrid's public_keys writes it.
func sendgridKey(t *testing.T, name string) (string, crypto.Signer) {
	k, ok := ecdsaKeys.Load(name)
	if !ok {
		gen, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
		if err != nil {
			panic(err)
		}
		k, _ = ecdsaKeys.LoadOrStore(name, gen)
	}
	priv := k.(*ecdsa.PrivateKey)
	der, err := x509.MarshalPKIXPublicKey(&priv.PublicKey)
	if err != nil {
		panic(err)
	}
	return base64.StdEncoding.EncodeToString(der), priv
}

func TestParsePublicKey(t *testing.T) {
	t.Parallel()
	dk, _ := discordKey(t, "a")
	wk, _ := whpkKey(t, "a")
	sk, _ := sendgridKey(t, "a")
	rsaLike := "MFwwDQYJKoZIhvcNAQEBBQADSwAwSAJBAKj34GkxFhD90vcNLYLInFEX6Ppy1tPf9Cnzj4p4WGeKLs1Pt8QuKUpRKfFLfRYC9AIKjbJTWit+CqvjWYzvQwECAwEAAQ=="
	for _, tt := range []struct {
		scheme, key string
		ok          bool
	}{
		{"discord", dk, true},
		{"discord", dk[:62], false},
		{"discord", "zz" + dk[2:], false},
		{"standard", wk, true},
		{"standard", wk[5:], false},
		{"standard", "whpk_" + base64.StdEncoding.EncodeToString([]byte("short")), false},
		{"sendgrid", sk, true},
		{"sendgrid", sk[:20], false},
		{"sendgrid", rsaLike, false},
		{"stripe", dk, false},
	} {
		if _, err := ParsePublicKey(tt.scheme, tt.key); (err == nil) != tt.ok {
			t.Errorf("ParsePublicKey(%s, %.16q) error %v; want ok %v", tt.scheme, tt.key, err, tt.ok)
		}
	}
}
