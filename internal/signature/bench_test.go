package signature

import (
	"bytes"
	"fmt"
	"testing"
)

// benchBody is a 2 KiB Stripe-like event.
var benchBody = func() []byte {
	b := []byte(`{"id":"evt_1NG8Du2eZvKYlo2CUI79vXWy","object":"event","type":"invoice.paid","created":1700000000,"data":{"object":{"id":"in_1","pad":"`)
	b = append(b, bytes.Repeat([]byte("x"), 2048-len(b)-4)...)
	return append(b, `"}}}`...)
}()

func benchScheme(b *testing.B, o Options, slot int) (Scheme, Request) {
	b.Helper()
	s, err := New(o)
	if err != nil {
		b.Fatal(err)
	}
	h, err := Sign(o, slot, Message{ID: "msg_1", Type: "invoice.paid", Body: benchBody, Now: testNow})
	if err != nil {
		b.Fatal(err)
	}
	req := Request{Header: h, Body: benchBody, Now: testNow}
	if _, err := s.Verify(req); err != nil {
		b.Fatal(err)
	}
	return s, req
}

// BenchmarkStripeVerify verifies a 2 KiB body, matching the first secret
// and, with a rotation in progress, the second.
func BenchmarkStripeVerify(b *testing.B) {
	for _, slot := range []int{0, 1} {
		b.Run(fmt.Sprintf("slot%d", slot), func(b *testing.B) {
			s, req := benchScheme(b, Options{Scheme: "stripe", Secrets: []string{"whsec_new", "whsec_old"}}, slot)
			b.SetBytes(int64(len(benchBody)))
			b.ReportAllocs()
			for b.Loop() {
				if _, err := s.Verify(req); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

func BenchmarkStripeIdentify(b *testing.B) {
	s, req := benchScheme(b, Options{Scheme: "stripe", Secrets: []string{"whsec_new"}}, 0)
	b.ReportAllocs()
	for b.Loop() {
		if _, err := s.Identify(req); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkStandardVerify(b *testing.B) {
	s, req := benchScheme(b, Options{Scheme: "standard", Secrets: []string{whsecSecret("a")}}, 0)
	b.SetBytes(int64(len(benchBody)))
	b.ReportAllocs()
	for b.Loop() {
		if _, err := s.Verify(req); err != nil {
			b.Fatal(err)
		}
	}
}
