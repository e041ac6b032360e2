package receiver

import (
	"errors"
	"strings"
	"testing"

	"github.com/hookrelay/hookrelay/internal/signature"
	"github.com/hookrelay/hookrelay/internal/store"
)

func TestCheckIdentity(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name     string
		id, typ  string
		wantErr  bool
		wantType string
	}{
		{"ordinary", "evt_1", "invoice.paid", false, "invoice.paid"},
		{"NUL in id", "evt\x001", "invoice.paid", true, ""},
		{"invalid UTF-8 in id", "evt\xff", "invoice.paid", true, ""},
		{"id too long", strings.Repeat("a", store.MaxIdentityLen+1), "x", true, ""},
		{"NUL in type is removed", "evt_1", "invoice\x00.paid", false, "invoice.paid"},
		{"invalid UTF-8 in type is replaced", "evt_1", "a\xffb", false, "a\uFFFDb"},
		{"long type is cut", "evt_1", strings.Repeat("t", store.MaxIdentityLen+10), false, strings.Repeat("t", store.MaxIdentityLen)},
	}
	for _, tt := range tests {
		id := signature.Identity{ID: tt.id, Type: tt.typ}
		err := checkIdentity(&id)
		if tt.wantErr {
			if !errors.Is(err, signature.ErrMissingIdentity) {
				t.Errorf("%s: err = %v, want ErrMissingIdentity", tt.name, err)
			}
			continue
		}
		if err != nil || id.Type != tt.wantType {
			t.Errorf("%s: type %q err %v, want %q", tt.name, id.Type, err, tt.wantType)
		}
	}
}
