package e2e

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/hookrelay/hookrelay/internal/testkit/relayproc"
	"github.com/hookrelay/hookrelay/internal/testkit/testdb"
)

// TestServeLogsConsoleBeforeReady checks what getting-started relies on:
// once /readyz first answers 200, the relay's log already names the
// console, though serve writes its log lines in batches. The log goes to
// a file, as the guide sends it, so that what the relay has written is
// there to read at once; /readyz is asked every 2 ms, well within the
// log's 100 ms batches.
func TestServeLogsConsoleBeforeReady(t *testing.T) {
	t.Parallel()
	addrs := freeAddrs(t, 2)
	config := writeConfig(t, testdb.SQLiteURL(t), addrs[0], addrs[1], stripeSource)
	logPath := filepath.Join(t.TempDir(), "hookrelay.log")
	logFile, err := os.Create(logPath)
	if err != nil {
		t.Fatal(err)
	}
	defer logFile.Close()

	p, err := relayproc.Start(relayproc.Options{
		Binary: binary, Args: []string{"serve", "--config", config}, Env: stripeEnv,
		Stderr: logFile, Admin: addrs[1], ReadyPoll: 2 * time.Millisecond,
	})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(p.Kill)
	if err := p.WaitReady(context.Background(), 30*time.Second); err != nil {
		log, _ := os.ReadFile(logPath)
		t.Fatalf("%v\n%s", err, log)
	}
	log, err := os.ReadFile(logPath)
	if err != nil {
		t.Fatal(err)
	}
	if want := `"console":"http://` + addrs[1] + `/"`; !strings.Contains(string(log), want) {
		t.Errorf("when /readyz first answered 200, the log did not hold %s:\n%s", want, log)
	}
}
