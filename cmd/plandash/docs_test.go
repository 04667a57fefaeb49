package main

import (
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
)

// mdLink finds markdown links and images outside code: [text](target) and ![alt](target).
var mdLink = regexp.MustCompile(`!?\[[^\]]*\]\(([^)\s]+)\)`)

// Every relative link in README.md and docs/ names a file that exists inside the repository: a
// reader of a clone (or of the repository's page) finds what the link promises.
func TestDocsLinksStayInTheRepository(t *testing.T) {
	root, err := filepath.Abs(filepath.Join("..", ".."))
	if err != nil {
		t.Fatal(err)
	}
	docs, err := filepath.Glob(filepath.Join(root, "docs", "*.md"))
	if err != nil {
		t.Fatal(err)
	}
	checked := 0
	for _, f := range append([]string{filepath.Join(root, "README.md")}, docs...) {
		b, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		inCode := false
		for i, line := range strings.Split(string(b), "\n") {
			if strings.HasPrefix(strings.TrimSpace(line), "```") {
				inCode = !inCode
			}
			if inCode {
				continue
			}
			for _, m := range mdLink.FindAllStringSubmatch(line, -1) {
				target := m[1]
				if strings.HasPrefix(target, "#") || strings.Contains(target, "://") || strings.HasPrefix(target, "mailto:") {
					continue
				}
				target, _, _ = strings.Cut(target, "#")
				p := filepath.Clean(filepath.Join(filepath.Dir(f), target))
				rel, err := filepath.Rel(root, p)
				where := filepath.Base(f) + ":" + strconv.Itoa(i+1)
				if err != nil || rel == ".." || strings.HasPrefix(rel, ".."+string(filepath.Separator)) {
					t.Errorf("%s links %q, outside the repository", where, m[1])
					continue
				}
				if _, err := os.Stat(p); err != nil {
					t.Errorf("%s links %q, which does not exist", where, m[1])
				}
				checked++
			}
		}
	}
	if checked == 0 {
		t.Error("no links found: the check reads nothing")
	}
}
