package sqlstore

import (
	"reflect"
	"testing"
)

func TestRows(t *testing.T) {
	types := []string{"bigint", "bytea"}
	rows := [][]any{{int64(1), []byte("a")}, {int64(2), []byte("b")}}

	from, args := ValuesRows(types, rows)
	if want := "(VALUES (?, ?), (?, ?)) AS u"; from != want {
		t.Errorf("ValuesRows = %q, want %q", from, want)
	}
	if want := []any{int64(1), []byte("a"), int64(2), []byte("b")}; !reflect.DeepEqual(args, want) {
		t.Errorf("ValuesRows args = %v, want %v", args, want)
	}

	from, args = UnnestRows(types, rows)
	if want := "unnest(?::bigint[], ?::bytea[]) AS u(column1, column2)"; from != want {
		t.Errorf("UnnestRows = %q, want %q", from, want)
	}
	if want := []any{[]any{int64(1), int64(2)}, []any{[]byte("a"), []byte("b")}}; !reflect.DeepEqual(args, want) {
		t.Errorf("UnnestRows args = %v, want %v", args, want)
	}
	if again, _ := UnnestRows(types, rows[:1]); again != from {
		t.Errorf("UnnestRows of one row = %q, want the same statement %q", again, from)
	}
}
