package hookrelay_test

import (
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"unicode"
)

// markdownLink is an inline link or image: [text](target). A target with
// a title ("… "title"") is not written in these docs.
var markdownLink = regexp.MustCompile(`\]\(([^)\s]+)\)`)

// TestDocsLinks follows every relative link of the README and the guides:
// the file it names exists, and so does the heading its #fragment names.
// An address on the web is not fetched.
func TestDocsLinks(t *testing.T) {
	t.Parallel()
	pages, err := filepath.Glob("docs/*.md")
	if err != nil {
		t.Fatal(err)
	}
	pages = append(pages, "README.md", "RELIABILITY.md")
	linked := map[string]bool{}
	for _, page := range pages {
		text := readDoc(t, page)
		for _, m := range markdownLink.FindAllStringSubmatch(withoutCode(text), -1) {
			target := m[1]
			if strings.Contains(target, "://") || strings.HasPrefix(target, "mailto:") {
				continue
			}
			file, fragment, _ := strings.Cut(target, "#")
			path := page
			if file != "" {
				path = filepath.Join(filepath.Dir(page), file)
			}
			linked[filepath.Clean(path)] = true
			if _, err := os.Stat(path); err != nil {
				t.Errorf("%s: link %s: %v", page, target, err)
				continue
			}
			if fragment != "" && strings.HasSuffix(path, ".md") && !headingSlugs(readDoc(t, path))[fragment] {
				t.Errorf("%s: link %s: %s has no heading #%s", page, target, path, fragment)
			}
		}
	}
	// Every guide is reachable from some page.
	for _, page := range pages {
		if strings.HasPrefix(page, "docs/") && !linked[page] {
			t.Errorf("%s is linked from no page", page)
		}
	}
}

func readDoc(t *testing.T, path string) string {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// withoutCode drops fenced code blocks and inline code, where brackets
// are not links.
func withoutCode(text string) string {
	var b strings.Builder
	fenced := false
	for line := range strings.SplitSeq(text, "\n") {
		if strings.HasPrefix(line, "```") {
			fenced = !fenced
			continue
		}
		if !fenced {
			b.WriteString(regexp.MustCompile("`[^`]*`").ReplaceAllString(line, ""))
			b.WriteByte('\n')
		}
	}
	return b.String()
}

// headingSlugs returns the anchors GitHub gives the page's headings:
// lower case, punctuation dropped, spaces turned into hyphens.
func headingSlugs(text string) map[string]bool {
	out := map[string]bool{}
	fenced := false
	for line := range strings.SplitSeq(text, "\n") {
		if strings.HasPrefix(line, "```") {
			fenced = !fenced
		}
		if fenced || !strings.HasPrefix(line, "#") {
			continue
		}
		title := strings.TrimSpace(strings.TrimLeft(line, "#"))
		var slug strings.Builder
		for _, r := range strings.ToLower(title) {
			switch {
			case r == ' ':
				slug.WriteRune('-')
			case r == '-' || r == '_' || unicode.IsLetter(r) || unicode.IsDigit(r):
				slug.WriteRune(r)
			}
		}
		out[slug.String()] = true
	}
	return out
}

// notGuides are the pages of docs/ that are reference, not guides: the
// generated configuration reference and the performance figures.
var notGuides = map[string]bool{"docs/configuration.md": true, "docs/performance.md": true}

// TestDocsWhatCanGoWrong checks that every guide ends with a section
// headed "## What can go wrong": its last second-level heading.
func TestDocsWhatCanGoWrong(t *testing.T) {
	t.Parallel()
	pages, err := filepath.Glob("docs/*.md")
	if err != nil {
		t.Fatal(err)
	}
	for _, page := range pages {
		if notGuides[page] {
			continue
		}
		last := ""
		for line := range strings.SplitSeq(withoutCode(readDoc(t, page)), "\n") {
			if strings.HasPrefix(line, "## ") {
				last = line
			}
		}
		if last != "## What can go wrong" {
			t.Errorf("%s: its last section is %q, want \"## What can go wrong\" (symptom, cause, fix)", page, last)
		}
	}
}
