package config

import (
	"strings"
	"testing"
)

func TestEmptyVariableNamed(t *testing.T) {
	t.Parallel()
	yaml := "database: ${DATABASE_URL}\nlisten: \"${HOST}:${PORT}\"\nadmin_listen: ${ADMIN_LISTEN}\n"
	_, err := Parse([]byte(yaml), t.TempDir(), func(string) string { return "" })
	if err == nil {
		t.Fatal("Parse accepted empty variables")
	}
	for _, want := range []string{
		"database: ${DATABASE_URL} is empty: set DATABASE_URL (want sqlite:PATH or postgres://…)",
		"admin_listen: ${ADMIN_LISTEN} is empty: set ADMIN_LISTEN",
	} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("error does not say %q:\n%v", want, err)
		}
	}
}
