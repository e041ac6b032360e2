package cli

import (
	"crypto"
	"crypto/ecdsa"
	"crypto/ed25519"
	"crypto/x509"
	"encoding/base64"
	"encoding/hex"
	"encoding/pem"
	"errors"
	"fmt"
	"os"
	"slices"
	"strings"

	"github.com/hookrelay/hookrelay/internal/config"
	"github.com/hookrelay/hookrelay/internal/signature"
)

// readPrivateKey reads the private key send signs with for a public-key
// scheme: for discord and standard (v1a) an Ed25519 key as the hex or
// base64 of its 32-byte seed or 64-byte key (a whsk_ prefix is allowed);
// for sendgrid an ECDSA P-256 key in PEM (EC or PKCS #8) or the base64 of
// its PKCS #8 DER. It checks that the key's public half is one of the
// source's public_keys.
func readPrivateKey(path string, src *config.Source) (crypto.Signer, error) {
	raw, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("read private key: %w", err)
	}
	text := strings.TrimSpace(string(raw))
	var key crypto.Signer
	switch src.Verify {
	case "discord", "standard":
		key, err = ed25519Key(strings.TrimPrefix(text, "whsk_"))
	case "sendgrid":
		key, err = ecdsaKey(text)
	default:
		return nil, fmt.Errorf("%w: --private-key applies to verify: discord, sendgrid or standard, not %s", errUsage, src.Verify)
	}
	if err != nil {
		return nil, fmt.Errorf("read private key %s: %w", path, err)
	}
	if !slices.ContainsFunc(src.PublicKeys, func(k string) bool { return publicMatches(src.Verify, k, key.Public()) }) {
		return nil, fmt.Errorf("the private key in %s does not match any of source %q's public_keys", path, src.Name)
	}
	return key, nil
}

func ed25519Key(text string) (crypto.Signer, error) {
	b, err := hex.DecodeString(text)
	if err != nil {
		if b, err = base64.StdEncoding.DecodeString(text); err != nil {
			return nil, errors.New("want the hex or base64 of an Ed25519 seed or key")
		}
	}
	switch len(b) {
	case ed25519.SeedSize:
		return ed25519.NewKeyFromSeed(b), nil
	case ed25519.PrivateKeySize:
		return ed25519.PrivateKey(b), nil
	}
	return nil, fmt.Errorf("an Ed25519 key is %d or %d bytes, not %d", ed25519.SeedSize, ed25519.PrivateKeySize, len(b))
}

func ecdsaKey(text string) (crypto.Signer, error) {
	var der []byte
	if block, _ := pem.Decode([]byte(text)); block != nil {
		if block.Type == "EC PRIVATE KEY" {
			return x509.ParseECPrivateKey(block.Bytes)
		}
		der = block.Bytes
	} else {
		var err error
		if der, err = base64.StdEncoding.DecodeString(text); err != nil {
			return nil, errors.New("want a PEM key or the base64 of a PKCS #8 key")
		}
	}
	k, err := x509.ParsePKCS8PrivateKey(der)
	if err != nil {
		return nil, err
	}
	ec, ok := k.(*ecdsa.PrivateKey)
	if !ok {
		return nil, errors.New("not an ECDSA key")
	}
	return ec, nil
}

// publicMatches reports whether the configured public key is pub.
func publicMatches(scheme, configured string, pub crypto.PublicKey) bool {
	if configured == "" {
		return false
	}
	k, err := signature.ParsePublicKey(scheme, configured)
	if err != nil {
		return false
	}
	eq, ok := k.(interface{ Equal(crypto.PublicKey) bool })
	return ok && eq.Equal(pub)
}
