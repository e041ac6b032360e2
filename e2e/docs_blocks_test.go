package e2e

import (
	"fmt"
	"os"
	"regexp"
	"strings"
	"testing"
)

// A guide marks the fenced blocks a reader runs as written with a second
// word in the info string:
//
//	```sh run           shell commands, run in order by TestDocsQuickstart
//	```yaml run FILE    a config the reader saves as FILE before the commands
//
// In a `sh run` block, each command (a line, or lines joined by a trailing
// backslash) must exit 0, and the lines right below it that start with
// "# " are the output the guide promises: each must match a line the
// command printed, where "…" stands for anything and a run of spaces for
// any run of spaces. A blank line ends a command's output. A command
// ending in "&" runs in the background until `kill %N` (N counting those
// commands from 1) or the end of the guide, and must then exit 0 on
// SIGTERM. A command whose trailing comment says "Ctrl-C" runs until its
// promised output has appeared, is then interrupted, and must exit 0.

// docBlock is one runnable fenced block of a guide.
type docBlock struct {
	// lang is "sh" or "yaml"; file is where a yaml block is saved.
	lang, file string
	// line is the guide's line number of the block's first line of text.
	line int
	text []string
}

// docStep is one command of a `sh run` block.
type docStep struct {
	// where is "guide.md:LINE", for failures.
	where string
	// code is the command without its trailing comment; comment is that
	// comment, without the "#".
	code, comment string
	// want are the output lines the guide promises.
	want []string
}

// background reports whether the step runs in the background ("cmd &").
func (s docStep) background() bool {
	return strings.HasSuffix(s.code, "&") && !strings.HasSuffix(s.code, "&&")
}

// untilInterrupt reports whether the step runs until Ctrl-C.
func (s docStep) untilInterrupt() bool { return strings.Contains(s.comment, "Ctrl-C") }

// readDocBlocks returns the runnable blocks of the guide at path.
func readDocBlocks(t *testing.T, path string) []docBlock {
	t.Helper()
	raw, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var blocks []docBlock
	var cur *docBlock
	for i, line := range strings.Split(string(raw), "\n") {
		if !strings.HasPrefix(line, "```") {
			if cur != nil {
				cur.text = append(cur.text, line)
			}
			continue
		}
		if cur != nil {
			blocks = append(blocks, *cur)
			cur = nil
			continue
		}
		info := strings.Fields(strings.TrimPrefix(line, "```"))
		if len(info) < 2 || info[1] != "run" {
			cur = &docBlock{lang: "skip"}
			continue
		}
		cur = &docBlock{lang: info[0], line: i + 2}
		switch {
		case info[0] == "sh" && len(info) == 2:
		case info[0] == "yaml" && len(info) == 3:
			cur.file = info[2]
		default:
			t.Fatalf("%s:%d: a runnable block is ```sh run or ```yaml run FILE, not %q", path, i+1, line)
		}
	}
	out := blocks[:0]
	for _, b := range blocks {
		if b.lang != "skip" {
			out = append(out, b)
		}
	}
	return out
}

// steps splits a `sh run` block into its commands and promised output.
func (b docBlock) steps(guide string) []docStep {
	var steps []docStep
	inOutput := false // the lines below a command are still its output
	for i := 0; i < len(b.text); i++ {
		line := strings.TrimRight(b.text[i], " ")
		start := i
		switch {
		case strings.TrimSpace(line) == "":
			inOutput = false
			continue
		case strings.HasPrefix(line, "#"):
			if inOutput {
				s := &steps[len(steps)-1]
				s.want = append(s.want, strings.TrimPrefix(strings.TrimPrefix(line, "#"), " "))
			}
			continue
		}
		for strings.HasSuffix(line, `\`) && i+1 < len(b.text) {
			i++
			line = strings.TrimSuffix(line, `\`) + " " + strings.TrimSpace(b.text[i])
		}
		code, comment := splitComment(line)
		steps = append(steps, docStep{where: fmt.Sprintf("%s:%d", guide, b.line+start), code: code, comment: comment})
		inOutput = true
	}
	return steps
}

// splitComment cuts a shell line at its comment: a "#" outside quotes at
// the start of a word.
func splitComment(line string) (code, comment string) {
	var quote rune
	for i, r := range line {
		switch {
		case quote != 0:
			if r == quote {
				quote = 0
			}
		case r == '\'' || r == '"':
			quote = r
		case r == '#' && (i == 0 || line[i-1] == ' ' || line[i-1] == '\t'):
			return strings.TrimSpace(line[:i]), strings.TrimSpace(line[i+1:])
		}
	}
	return strings.TrimSpace(line), ""
}

// outputPattern turns a promised output line into a pattern: "…" matches
// anything, a run of spaces any run of spaces.
func outputPattern(want string) *regexp.Regexp {
	parts := strings.Split(want, "…")
	for i, p := range parts {
		words := strings.Fields(p)
		for j, w := range words {
			words[j] = regexp.QuoteMeta(w)
		}
		q := strings.Join(words, `\s+`)
		if strings.TrimLeft(p, " ") != p && q != "" {
			q = `\s*` + q
		}
		if strings.TrimRight(p, " ") != p && q != "" {
			q += `\s*`
		}
		parts[i] = q
	}
	return regexp.MustCompile(strings.Join(parts, ".*"))
}

// assignedName is the start of a variable assignment.
var assignedName = regexp.MustCompile(`^(?:export )?([A-Za-z_][A-Za-z0-9_]*)=`)

// assigned returns the variable code sets when code is only that, with or
// without export: `export NAME=VALUE` or `NAME=VALUE`, not `NAME=VALUE cmd`.
func assigned(code string) (string, bool) {
	m := assignedName.FindStringSubmatch(code)
	if m == nil {
		return "", false
	}
	var quote rune
	depth := 0 // of $( … )
	value := code[len(m[0]):]
	for i, r := range value {
		switch {
		case quote != 0:
			if r == quote {
				quote = 0
			}
		case r == '\'' || r == '"':
			quote = r
		case r == '(' && i > 0 && value[i-1] == '$':
			depth++
		case r == ')' && depth > 0:
			depth--
		case (r == ' ' || r == '\t') && depth == 0:
			return "", false // a command follows, or a second word
		}
	}
	return m[1], true
}

// assignments are the variable assignments that prefix a command.
var assignments = regexp.MustCompile(`^\s*([A-Za-z_][A-Za-z0-9_]*=\S*\s+)*`)

// withExec puts exec after a command's leading assignments, so that bash
// becomes the command rather than waiting for it.
func withExec(code string) string {
	n := len(assignments.FindString(code))
	return code[:n] + "exec " + code[n:]
}

// shellQuote quotes s for bash.
func shellQuote(s string) string {
	return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
}

// TestDocsOutputPattern checks the matching of promised output.
func TestDocsOutputPattern(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		want, got string
		match     bool
	}{
		{`200 {"status":"stored"}`, `200 {"status":"stored"}`, true},
		{`200 {"status":"stored"}`, `200 {"status":"duplicate"}`, false},
		{`…  stripe  invoice.paid  evt_1  dev:done`, `2026-12-05T22:59:54Z  01M9  stripe   invoice.paid  evt_1  dev:done`, true},
		{`…  stripe  invoice.paid  evt_1  dev:done`, `2026-12-05T22:59:54Z  01M9  stripe   invoice.paid  evt_1  dev:pending`, false},
		{`{"event_id":"…","source":"stripe",…}`, `{"event_id":"01M9","source":"stripe","type":"x"}`, true},
	} {
		if got := outputPattern(c.want).MatchString(c.got); got != c.match {
			t.Errorf("outputPattern(%q) on %q: %v, want %v", c.want, c.got, got, c.match)
		}
	}
	steps := docBlock{line: 10, text: []string{
		`export A=$(cat f)   # the token`,
		`hookrelay send \`,
		`  --source stripe`,
		`# 200 {"status":"stored"}`,
		``,
		`# a remark, not output`,
		`hookrelay listen --print-json   # prints; Ctrl-C to stop`,
		`hookrelay serve 2> log &`,
	}}.steps("g.md")
	if len(steps) != 4 || steps[1].code != "hookrelay send  --source stripe" || len(steps[1].want) != 1 ||
		steps[1].where != "g.md:11" || !steps[2].untilInterrupt() || !steps[3].background() || len(steps[2].want) != 0 {
		t.Errorf("steps: %+v", steps)
	}
}

// TestDocsAssigned checks which commands only set a variable.
func TestDocsAssigned(t *testing.T) {
	t.Parallel()
	for code, want := range map[string]string{
		`export HOOKRELAY_TOKEN=$(cat examples/hookrelay.admin-token)`:                       "HOOKRELAY_TOKEN",
		`body='{"id":"evt_curl_1", "type":"invoice.paid"}'`:                                  "body",
		`sig=$(printf '%s' "$t.$body" | openssl dgst -sha256 -hmac whsec_x | sed 's/.* //')`: "sig",
		`STRIPE_WEBHOOK_SECRET=whsec_x hookrelay send --source stripe`:                       "",
		`hookrelay events list`: "",
	} {
		if got, _ := assigned(code); got != want {
			t.Errorf("assigned(%q) = %q, want %q", code, got, want)
		}
	}
}
