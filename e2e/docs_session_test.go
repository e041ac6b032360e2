package e2e

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/hookrelay/hookrelay/internal/testkit"
	"github.com/hookrelay/hookrelay/internal/testkit/relayproc"
)

// Bounds on one command of a guide.
const (
	docCommandTimeout = 60 * time.Second
	docOutputTimeout  = 30 * time.Second
	docStopTimeout    = 40 * time.Second
)

// docSession runs a guide's runnable blocks as a reader would in a shell,
// in a directory that holds a copy of the repository's examples/, with the
// binary under test first on PATH. The relay moves to free loopback ports:
// every config the guide uses gets them as listen and admin_listen, the
// guide's 127.0.0.1:8080 and 127.0.0.1:8081 become them in commands and
// promised output, and HOOKRELAY_SERVER names the admin listener, as the
// CLI's default names 127.0.0.1:8081.
type docSession struct {
	t   *testing.T
	dir string
	// database, when set, replaces the database of every config.
	database      string
	public, admin string
	// exports are the variables the guide exported so far.
	exports []string
	// jobs are the commands started with "&", in the order they started:
	// `kill %1` stops the first.
	jobs []*docJob
	// beforeStop, when set, runs once before the first job is stopped.
	beforeStop func()
}

// docJob is a command of the guide running in the background.
type docJob struct {
	step   docStep
	proc   *relayproc.Proc
	stdout *relayproc.Buffer
	stderr *relayproc.Buffer
}

// newDocSession prepares the directory: examples/hookrelay.yaml with the
// session's listeners (and database), and examples/events.
func newDocSession(t *testing.T, database string) *docSession {
	t.Helper()
	addrs := freeAddrs(t, 2)
	s := &docSession{t: t, dir: t.TempDir(), database: database, public: addrs[0], admin: addrs[1]}
	example, err := os.ReadFile("../examples/hookrelay.yaml")
	if err != nil {
		t.Fatal(err)
	}
	s.writeConfig("examples/hookrelay.yaml", string(example))
	events, err := filepath.Glob("../examples/events/*.json")
	if err != nil || len(events) == 0 {
		t.Fatalf("no example events: %v", err)
	}
	for _, e := range events {
		b, err := os.ReadFile(e)
		if err != nil {
			t.Fatal(err)
		}
		s.writeFile(filepath.Join("examples/events", filepath.Base(e)), b)
	}
	t.Cleanup(func() {
		if t.Failed() {
			s.logFiles()
		}
	})
	return s
}

// run runs the blocks of guide in order.
func (s *docSession) run(guide string, blocks []docBlock) {
	s.t.Helper()
	for _, b := range blocks {
		switch b.lang {
		case "yaml":
			s.writeConfig(b.file, strings.Join(b.text, "\n"))
		case "sh":
			for _, step := range b.steps(guide) {
				s.do(step)
			}
		default:
			s.t.Fatalf("%s:%d: no way to run a %q block", guide, b.line, b.lang)
		}
	}
}

// killJob is `kill %N`.
var killJob = regexp.MustCompile(`^kill %([0-9]+)$`)

// do runs one command of the guide.
func (s *docSession) do(step docStep) {
	s.t.Helper()
	code := s.localize(step.code)
	if m := killJob.FindStringSubmatch(code); m != nil {
		n, _ := strconv.Atoi(m[1])
		if n < 1 || n > len(s.jobs) {
			s.t.Fatalf("%s: %s: there is no job %d", step.where, code, n)
		}
		s.stop(s.jobs[n-1], syscall.SIGTERM)
		return
	}
	switch {
	case step.background():
		s.jobs = append(s.jobs, s.start(step, strings.TrimSpace(strings.TrimSuffix(code, "&"))))
	case step.untilInterrupt():
		j := s.start(step, code)
		s.waitPromised(j)
		s.stop(j, syscall.SIGINT)
	default:
		name, set := assigned(code)
		script := code
		if set {
			script += ` && printf '%s' "$` + name + `"`
		}
		stdout, stderr := s.shell(step, script)
		if set {
			// The value as the shell expanded it, for the next commands.
			s.exports = append(s.exports, name+"="+stdout)
			return
		}
		s.checkPromised(step, stdout+"\n"+stderr)
	}
}

// shell runs a script to completion with bash; it must exit 0.
func (s *docSession) shell(step docStep, script string) (stdout, stderr string) {
	s.t.Helper()
	code := step.code
	ctx, cancel := context.WithTimeout(context.Background(), docCommandTimeout)
	defer cancel()
	cmd := exec.CommandContext(ctx, "bash", "-c", script)
	cmd.Dir, cmd.Env = s.dir, append(os.Environ(), s.environ()...)
	var out, errOut bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errOut
	if err := cmd.Run(); err != nil {
		s.t.Fatalf("%s: %s: %v\nstdout:\n%s\nstderr:\n%s", step.where, code, err, out.String(), errOut.String())
	}
	return out.String(), errOut.String()
}

// start runs code in the background with bash, which execs the command so
// that signals reach it.
func (s *docSession) start(step docStep, code string) *docJob {
	s.t.Helper()
	j := &docJob{step: step, stdout: &relayproc.Buffer{}, stderr: &relayproc.Buffer{}}
	j.proc = relayproc.StartTest(s.t, step.where, relayproc.Options{
		Binary: "bash", Args: []string{"-c", "cd " + shellQuote(s.dir) + " && " + withExec(code)},
		Env: s.environ(), Output: j.stdout, Stderr: j.stderr,
	})
	return j
}

// stop signals a background command and waits until it exits; it must
// exit 0, as the guide says the relay and listen do.
func (s *docSession) stop(j *docJob, sig syscall.Signal) {
	s.t.Helper()
	if s.beforeStop != nil {
		f := s.beforeStop
		s.beforeStop = nil
		f()
	}
	if j.proc.Exited() {
		s.t.Fatalf("%s: %s exited before it was stopped: %v\nstdout:\n%s\nstderr:\n%s", j.step.where, j.step.code, j.proc.Err(), j.stdout, j.stderr)
	}
	if err := j.proc.Signal(sig, docStopTimeout); err != nil {
		s.t.Fatalf("%s: %s: %v", j.step.where, j.step.code, err)
	}
	if code, err := j.proc.ExitCode(); code != 0 || err != nil {
		s.t.Fatalf("%s: %s: exit %d (%v) after %v, want 0\nstdout:\n%s\nstderr:\n%s", j.step.where, j.step.code, code, err, sig, j.stdout, j.stderr)
	}
}

// finish stops the background commands still running.
func (s *docSession) finish() {
	s.t.Helper()
	for _, j := range s.jobs {
		if !j.proc.Exited() {
			s.stop(j, syscall.SIGTERM)
		}
	}
}

// waitPromised waits until a background command has printed what the
// guide promises.
func (s *docSession) waitPromised(j *docJob) {
	s.t.Helper()
	if len(j.step.want) == 0 {
		s.t.Fatalf("%s: %s runs until Ctrl-C but the guide shows none of its output to wait for", j.step.where, j.step.code)
	}
	testkit.Eventually(s.t, docOutputTimeout, j.step.where+": the output the guide promises", func() error {
		out := j.stdout.String() + "\n" + j.stderr.String()
		if j.proc.Exited() {
			s.checkPromised(j.step, out)
		}
		if m := s.missing(j.step, out); m != "" {
			return fmt.Errorf("missing %q", m)
		}
		return nil
	})
}

// checkPromised fails the test unless output holds every line the guide
// promises for step.
func (s *docSession) checkPromised(step docStep, output string) {
	s.t.Helper()
	if want := s.missing(step, output); want != "" {
		s.t.Fatalf("%s: %s: the guide promises\n\t%s\nbut it printed:\n%s", step.where, step.code, want, output)
	}
}

// missing returns the first promised line of step that no line of output
// matches, or "".
func (s *docSession) missing(step docStep, output string) string {
	lines := strings.Split(output, "\n")
	for _, want := range step.want {
		re := outputPattern(s.localize(want))
		found := false
		for _, l := range lines {
			if re.MatchString(l) {
				found = true
				break
			}
		}
		if !found {
			return want
		}
	}
	return ""
}
