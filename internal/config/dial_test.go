package config

import "testing"

func TestDialAddr(t *testing.T) {
	t.Parallel()
	for in, want := range map[string]string{
		":8080":          "127.0.0.1:8080",
		"0.0.0.0:8081":   "127.0.0.1:8081",
		"[::]:8081":      "127.0.0.1:8081",
		"127.0.0.1:9000": "127.0.0.1:9000",
		"relay.lan:80":   "relay.lan:80",
		"nonsense":       "nonsense",
	} {
		if got := DialAddr(in); got != want {
			t.Errorf("DialAddr(%q) = %q, want %q", in, got, want)
		}
	}
}
