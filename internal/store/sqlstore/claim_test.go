package sqlstore

import (
	"regexp"
	"slices"
	"testing"
	"time"

	"github.com/hookrelay/hookrelay/internal/store"
)

func TestNewLeaseTokens(t *testing.T) {
	t.Parallel()
	tokens, err := NewLeaseTokens(3)
	if err != nil || len(tokens) != 3 {
		t.Fatalf("NewLeaseTokens(3) = %v, %v; want 3 tokens", tokens, err)
	}
	hex128 := regexp.MustCompile(`^[0-9a-f]{32}$`)
	for _, tok := range tokens {
		if !hex128.MatchString(tok) {
			t.Errorf("token %q is not 128 bits in hex", tok)
		}
	}
	if tokens[0] == tokens[1] || tokens[1] == tokens[2] || tokens[0] == tokens[2] {
		t.Errorf("tokens repeat: %v", tokens)
	}
}

func TestSortClaims(t *testing.T) {
	t.Parallel()
	at := time.Date(2026, time.March, 3, 9, 0, 0, 0, time.UTC)
	claim := func(id int64, due time.Time) store.Claim {
		return store.Claim{Delivery: store.Delivery{ID: id, NextAttemptAt: due}}
	}
	claims := []store.Claim{claim(4, at), claim(1, at.Add(time.Second)), claim(3, at), claim(2, at.Add(-time.Second))}
	SortClaims(claims)
	var ids []int64
	for _, c := range claims {
		ids = append(ids, c.Delivery.ID)
	}
	if want := []int64{2, 3, 4, 1}; !slices.Equal(ids, want) {
		t.Errorf("SortClaims order = %v, want %v", ids, want)
	}
}

func TestSplitReleases(t *testing.T) {
	t.Parallel()
	ids, tokens := SplitReleases([]store.Release{{DeliveryID: 7, LeaseToken: "a"}, {DeliveryID: 3, LeaseToken: "b"}})
	if !slices.Equal(ids, []int64{7, 3}) || !slices.Equal(tokens, []string{"a", "b"}) {
		t.Errorf("SplitReleases = %v, %v; want [7 3], [a b]", ids, tokens)
	}
}
