package e2e

import (
	"context"
	"net/http"
	"os"
	"os/exec"
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

	cmd := exec.Command(binary, "serve", "--config", config)
	cmd.Env = append(os.Environ(), stripeEnv...)
	cmd.Stderr = logFile
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	exited := make(chan error, 1)
	go func() { exited <- cmd.Wait() }()
	t.Cleanup(func() {
		_ = cmd.Process.Kill()
		<-exited
	})

	client := &http.Client{Timeout: 2 * time.Second}
	deadline := time.Now().Add(30 * time.Second)
	for {
		ok, err := relayproc.Ready(context.Background(), client, addrs[1])
		if err != nil {
			t.Fatal(err)
		}
		if ok {
			break
		}
		select {
		case err := <-exited:
			log, _ := os.ReadFile(logPath)
			t.Fatalf("relay exited before it was ready: %v\n%s", err, log)
		case <-time.After(2 * time.Millisecond):
		}
		if time.Now().After(deadline) {
			t.Fatal("relay not ready after 30s")
		}
	}
	log, err := os.ReadFile(logPath)
	if err != nil {
		t.Fatal(err)
	}
	if want := `"console":"http://` + addrs[1] + `/"`; !strings.Contains(string(log), want) {
		t.Errorf("when /readyz first answered 200, the log did not hold %s:\n%s", want, log)
	}
}
