package config

import "testing"

func TestFingerprint(t *testing.T) {
	a := Default()
	a.Database = "sqlite:./a.db"
	a.Sources = []Source{DefaultSource("stripe")}
	a.Sources[0].Name, a.Sources[0].Secrets = "stripe", []string{"whsec_one"}
	b := *a
	b.Sources = []Source{a.Sources[0]}
	b.Listen, b.AdminListen, b.Path = "127.0.0.1:9999", "127.0.0.1:9998", "/elsewhere/hookrelay.yaml"
	if a.Fingerprint() != b.Fingerprint() {
		t.Error("nodes that differ only in their own listen addresses and file have different fingerprints")
	}
	b.Sources[0].Secrets = []string{"whsec_two"}
	if a.Fingerprint() == b.Fingerprint() {
		t.Error("a rotated secret does not change the fingerprint")
	}
	if fp := a.Fingerprint(); len(fp) != 16 || fp == "unknown" {
		t.Errorf("fingerprint %q", fp)
	}
}
