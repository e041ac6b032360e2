package deploy_test

import (
	"bytes"
	"context"
	"fmt"
	"maps"
	"net/http"
	"os"
	"os/exec"
	"path"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/hookrelay/hookrelay/internal/testkit/relayproc"
)

// dynamicUID is a user id from systemd's DynamicUser range that owns no
// file on the machine.
const dynamicUID = 61184

// TestUnitStartsAsSystemdWould installs the relay in a fresh root
// directory with the deployment guide's steps, sets up what systemd sets up for the
// unit (its StateDirectory owned by the service's user, its credentials
// copied from the root-only files into a directory only that user reads,
// CREDENTIALS_DIRECTORY), and runs the unit's ExecStart chrooted there as a
// user that owns nothing else: the relay starts, stores its database in the
// StateDirectory and takes the admin token from its credential. This
// machine's PID 1 is not systemd, so the unit itself cannot be started
// here; this is what the unit's start does, step by step. It needs root
// (chroot, chown) and is skipped without it.
func TestUnitStartsAsSystemdWould(t *testing.T) {
	if os.Geteuid() != 0 {
		t.Skip("needs root: chroot and chown as systemd does")
	}
	u := readUnit(t)
	root := t.TempDir()
	if err := os.Chmod(root, 0o755); err != nil {
		t.Fatal(err)
	}
	at := func(p string) string { return filepath.Join(root, p) }

	// The deployment guide's install steps, into root.
	bin := strings.Fields(u.one(t, "ExecStart"))[0]
	mkdirs(t, root, path.Dir(bin))
	build := exec.Command("go", "build", "-trimpath", "-o", at(bin), "../cmd/hookrelay")
	build.Env = append(os.Environ(), "CGO_ENABLED=0") // static, as the release binary: nothing to load in the chroot
	if out, err := build.CombinedOutput(); err != nil {
		t.Fatalf("build: %v\n%s", err, out)
	}
	steps := guideInstall(t)
	for _, dest := range slices.Sorted(maps.Keys(steps)) { // a directory before its files
		s := steps[dest]
		mkdirs(t, root, path.Dir(dest))
		var err error
		switch s.src {
		case "":
			err = os.MkdirAll(at(dest), s.mode)
		case "hookrelay": // built above
		case "/dev/stdin":
			err = os.WriteFile(at(dest), []byte(secretFor(path.Base(dest))+"\n"), s.mode)
		default:
			var b []byte
			if b, err = os.ReadFile(filepath.Join("..", s.src)); err == nil {
				err = os.WriteFile(at(dest), b, s.mode)
			}
		}
		if err == nil {
			err = os.Chmod(at(dest), s.mode)
		}
		if err != nil {
			t.Fatalf("install %s: %v", dest, err)
		}
	}

	// What systemd does when the unit starts.
	state := u.stateDir(t)
	mode, _ := strconv.ParseUint(u.one(t, "StateDirectoryMode"), 8, 32)
	mkdirs(t, root, path.Dir(state))
	mustOwn(t, at(state), os.FileMode(mode), true)
	mkdirs(t, root, "/tmp")
	if err := os.Chmod(at("/tmp"), 0o777|os.ModeSticky); err != nil { // PrivateTmp
		t.Fatal(err)
	}
	credDir := "/run/credentials/hookrelay.service"
	mkdirs(t, root, credDir)
	for id, p := range u.credentials(t) {
		b, err := os.ReadFile(at(p)) // as root: the files are root's alone
		if err != nil {
			t.Fatalf("LoadCredential=%s:%s: %v", id, p, err)
		}
		if err := os.WriteFile(at(path.Join(credDir, id)), b, 0o400); err != nil {
			t.Fatal(err)
		}
		mustOwn(t, at(path.Join(credDir, id)), 0o400, false)
	}
	mustOwn(t, at(credDir), 0o500, false)

	addrs, err := relayproc.FreeAddrs(2)
	if err != nil {
		t.Fatal(err)
	}
	start := func(t *testing.T) *service {
		args := strings.Fields(u.one(t, "ExecStart"))
		// The unit's listeners, on free loopback ports for the test.
		args = append(args, "--listen", addrs[0], "--admin-listen", addrs[1])
		cmd := exec.Command(args[0], args[1:]...)
		cmd.Env = []string{"CREDENTIALS_DIRECTORY=" + credDir}
		cmd.Dir = u.one(t, "WorkingDirectory")
		cmd.SysProcAttr = &syscall.SysProcAttr{
			Chroot:     root,
			Credential: &syscall.Credential{Uid: dynamicUID, Gid: dynamicUID},
			Pdeathsig:  syscall.SIGKILL,
		}
		var stderr bytes.Buffer
		cmd.Stdout, cmd.Stderr = &stderr, &stderr
		if err := cmd.Start(); err != nil {
			t.Fatalf("start %v: %v", args, err)
		}
		svc := &service{cmd: cmd, stderr: &stderr, done: make(chan struct{})}
		go func() {
			svc.err = cmd.Wait()
			close(svc.done)
		}()
		return svc
	}

	t.Run("as installed", func(t *testing.T) {
		svc := start(t)
		defer svc.stop()
		if err := svc.waitReady("http://" + addrs[1] + "/readyz"); err != nil {
			t.Fatalf("%v\n%s", err, svc.stderr)
		}
		health := exec.Command(at(bin), "health", "--url", "http://"+addrs[1]+"/readyz")
		if out, err := health.CombinedOutput(); err != nil {
			t.Errorf("hookrelay health: %v\n%s", err, out)
		}
		req, _ := http.NewRequest(http.MethodGet, "http://"+addrs[1]+"/api/v1/stats", nil)
		req.Header.Set("Authorization", "Bearer "+secretFor("admin-token"))
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		if resp.StatusCode != http.StatusOK {
			t.Errorf("GET /api/v1/stats with the admin token from its credential: %s, want 200 OK", resp.Status)
		}
		st, err := os.Stat(at(path.Join(state, "hookrelay.db")))
		if err != nil {
			t.Fatalf("the database is not in the StateDirectory: %v\n%s", err, svc.stderr)
		}
		if uid := st.Sys().(*syscall.Stat_t).Uid; uid != dynamicUID {
			t.Errorf("the database is owned by uid %d, want the service's %d", uid, dynamicUID)
		}
	})

	// The first start as the issue met it: a config readable by root only
	// is not readable by the service's user.
	t.Run("config readable by root only", func(t *testing.T) {
		cfg := at(u.configPath(t))
		if err := os.Chmod(cfg, 0o640); err != nil {
			t.Fatal(err)
		}
		svc := start(t)
		select {
		case <-svc.done:
		case <-time.After(time.Minute):
			svc.stop()
			t.Fatal("serve with a config mode 0640 still runs after a minute")
		}
		if svc.err == nil || !strings.Contains(svc.stderr.String(), "permission denied") {
			t.Errorf("serve with a config mode 0640: %v, want a failure naming permission denied\n%s", svc.err, svc.stderr)
		}
	})
}

// mkdirs makes the directory p and its parents under root where missing,
// root's and mode 0755 as on any system, whatever the umask.
func mkdirs(t *testing.T, root, p string) {
	t.Helper()
	dir := root
	for _, elem := range strings.Split(strings.Trim(p, "/"), "/") {
		dir = filepath.Join(dir, elem)
		err := os.Mkdir(dir, 0o755)
		if os.IsExist(err) {
			continue
		}
		if err == nil {
			err = os.Chmod(dir, 0o755)
		}
		if err != nil {
			t.Fatal(err)
		}
	}
}

// mustOwn makes the service's user own the file or directory at p (made
// when dir and missing) with mode.
func mustOwn(t *testing.T, p string, mode os.FileMode, dir bool) {
	t.Helper()
	if dir {
		if err := os.MkdirAll(p, mode); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.Chown(p, dynamicUID, dynamicUID); err != nil {
		t.Fatal(err)
	}
	if err := os.Chmod(p, mode); err != nil {
		t.Fatal(err)
	}
}

// service is the relay started as the unit would start it.
type service struct {
	cmd    *exec.Cmd
	stderr *bytes.Buffer // written until done
	done   chan struct{} // closed when the process has exited
	err    error         // the exit, once done
}

// stop ends the relay as systemd does (SIGTERM) and waits for it.
func (s *service) stop() {
	_ = s.cmd.Process.Signal(syscall.SIGTERM)
	<-s.done
}

// waitReady polls url until it answers 200, the process exits, or a minute
// passes.
func (s *service) waitReady(url string) error {
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	for {
		req, _ := http.NewRequestWithContext(ctx, http.MethodGet, url, nil)
		if resp, err := http.DefaultClient.Do(req); err == nil {
			resp.Body.Close()
			if resp.StatusCode == http.StatusOK {
				return nil
			}
		}
		select {
		case <-s.done:
			return fmt.Errorf("the relay exited (%v) before %s answered 200", s.err, url)
		case <-ctx.Done():
			return fmt.Errorf("%s did not answer 200 within a minute", url)
		case <-time.After(100 * time.Millisecond):
		}
	}
}
