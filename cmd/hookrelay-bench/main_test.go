package main

import (
	"bytes"
	"context"
	"os"
	"strings"
	"testing"
)

// asMainEnv makes the test binary act as hookrelay-bench itself, so that
// startNoop can re-execute it in tests.
const asMainEnv = "HOOKRELAY_BENCH_TEST_AS_MAIN"

func TestMain(m *testing.M) {
	if os.Getenv(asMainEnv) == "1" {
		main()
	}
	os.Exit(m.Run())
}

func TestRunExitCodes(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name    string
		args    []string
		want    int
		wantErr string
	}{
		{name: "no command", args: nil, want: 2, wantErr: "Usage"},
		{name: "help", args: []string{"help"}, want: 0, wantErr: "Commands"},
		{name: "unknown command", args: []string{"nope"}, want: 2, wantErr: `unknown command "nope"`},
		{name: "bad driver", args: []string{"ingest", "--driver", "mysql"}, want: 2, wantErr: "--driver"},
		{name: "bad log level", args: []string{"ingest", "--log-levels", "loud"}, want: 2, wantErr: "log level"},
		{name: "zero senders", args: []string{"ingest", "--senders", "0"}, want: 2, wantErr: "positive"},
		{name: "stray argument", args: []string{"ingest", "extra"}, want: 2, wantErr: "unexpected argument"},
		{name: "bad memory body", args: []string{"memory", "--body", "lots"}, want: 2, wantErr: `flag -body: invalid size "lots"`},
		{name: "zero memory body", args: []string{"memory", "--body", "0"}, want: 2, wantErr: "--body and --max-body must be positive"},
		{name: "flag help", args: []string{"memory", "-h"}, want: 0, wantErr: "-concurrency"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			var stdout, stderr bytes.Buffer
			if got := run(context.Background(), &stdout, &stderr, tt.args); got != tt.want {
				t.Fatalf("exit %d, want %d; stderr:\n%s", got, tt.want, stderr.String())
			}
			if !strings.Contains(stderr.String(), tt.wantErr) {
				t.Fatalf("stderr %q does not mention %q", stderr.String(), tt.wantErr)
			}
		})
	}
}

// TestIngestNoopOnly runs the whole ingest command with the no-op target
// alone: a child process, a short bounded load, and the table.
func TestIngestNoopOnly(t *testing.T) {
	t.Setenv(asMainEnv, "1")
	var stdout, stderr bytes.Buffer
	args := []string{"ingest", "--driver", "none", "--senders", "4", "--warmup", "0s", "--duration", "300ms", "--prebuild", "50", "--body", "512"}
	if code := run(context.Background(), &stdout, &stderr, args); code != 0 {
		t.Fatalf("exit %d; stderr:\n%s", code, stderr.String())
	}
	out := stdout.String()
	for _, want := range []string{"req/s", "p99", "noop", "load average"} {
		if !strings.Contains(out, want) {
			t.Fatalf("output lacks %q:\n%s", want, out)
		}
	}
}

// flagsParsed checks a flag-parsing case's error against wantErr, which an
// error must mention ("" wants none), and reports whether the flags parsed
// and so are left to check.
func flagsParsed(t *testing.T, err error, wantErr string) bool {
	t.Helper()
	if wantErr != "" {
		if err == nil || !strings.Contains(err.Error(), wantErr) {
			t.Fatalf("err = %v, want one mentioning %q", err, wantErr)
		}
		return false
	}
	if err != nil {
		t.Fatal(err)
	}
	return true
}
