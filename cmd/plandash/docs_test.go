package main

import (
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"unicode"

	"github.com/plandash/plandash/internal/agents/registry"
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
				if strings.Contains(target, "://") || strings.HasPrefix(target, "mailto:") {
					continue
				}
				target, anchor, _ := strings.Cut(target, "#")
				if target == "" {
					target = filepath.Base(f)
				}
				p := filepath.Clean(filepath.Join(filepath.Dir(f), target))
				rel, err := filepath.Rel(root, p)
				where := filepath.Base(f) + ":" + strconv.Itoa(i+1)
				if err != nil || rel == ".." || strings.HasPrefix(rel, ".."+string(filepath.Separator)) {
					t.Errorf("%s links %q, outside the repository", where, m[1])
					continue
				}
				if _, err := os.Stat(p); err != nil {
					t.Errorf("%s links %q, which does not exist", where, m[1])
				} else if anchor != "" && strings.HasSuffix(p, ".md") && !headingAnchors(t, p)[anchor] {
					t.Errorf("%s links %q: %s has no heading with that anchor", where, m[1], filepath.Base(p))
				}
				checked++
			}
		}
	}
	if checked == 0 {
		t.Error("no links found: the check reads nothing")
	}
}

// The README is the first screen a newcomer reads: what plandash is, the demo, how to connect an
// agent, and links. The reference lives in docs/.
func TestReadmeFitsOnAScreen(t *testing.T) {
	b, err := os.ReadFile(filepath.Join("..", "..", "README.md"))
	if err != nil {
		t.Fatal(err)
	}
	if n := strings.Count(string(b), "\n"); n > 200 {
		t.Errorf("README.md has %d lines; keep it under 200 and move the reference into docs/", n)
	}
	for _, want := range []string{"go run ./cmd/plandash demo", "scripts/test.sh", "go install ./cmd/plandash", "plandash install claude"} {
		if !strings.Contains(string(b), want) {
			t.Errorf("README.md does not say %q", want)
		}
	}
}

// foreignFlags are the flags the docs name that belong to other programs: oauth2-proxy, curl,
// docker compose, the agents' own CLIs, docker-agent, and CSS custom properties (--bg, …) of the
// embed protocol. Anything else written --name in README.md or docs/ must be a flag of plandash.
var foreignFlags = map[string]bool{
	// oauth2-proxy (docs/team.md)
	"client-id": true, "client-secret": true, "cookie-secret": true, "email-domain": true,
	"http-address": true, "oidc-issuer-url": true, "pass-host-header": true, "pass-user-headers": true,
	"provider": true, "redirect-url": true, "reverse-proxy": true, "skip-auth-route": true,
	"skip-auth-strip-headers": true, "upstream": true,
	// curl, docker compose, claude mcp add, opencode, docker-agent
	"data-binary": true, "header": true, "build": true, "transport": true, "port": true, "data-dir": true,
	// the agents' own CLIs: droid, copilot, cline, crush, qwen
	"output-format": true, "use-spec": true, "plan": true, "acp": true, "yolo": true,
	// CSS custom properties of the embed protocol
	"bg": true, "panel": true, "text": true, "muted": true, "border": true, "accent": true,
}

// docFlag finds --flag names in prose and code alike.
var docFlag = regexp.MustCompile("(?:^|[\\s`\"(\\[|])--([a-z][a-z0-9-]*[a-z0-9])")

// helpFlag finds flag names in plandash's own help: "  -addr string" (package flag) and
// "  --data DIR" or "[--title T]" (hand-written usage).
var helpFlag = regexp.MustCompile(`(?:^|[\s\[])--?([a-z][a-z0-9-]*[a-z0-9])`)

// Every flag README.md and docs/ name exists: a renamed or removed flag fails here instead of
// leaving a newcomer with "flag provided but not defined".
func TestDocumentedFlagsExist(t *testing.T) {
	known := map[string]bool{}
	commands := [][]string{{"serve"}, {"demo"}, {"ingest"}, {"url"}, {"acp"}, {"mcp"}, {"approval", "request"},
		{"dag", "check"}, {"plans", "write"}, {"tokens", "create"}, {"doctor"}}
	for _, agent := range registry.Names(false) {
		commands = append(commands, []string{"install", agent}, []string{"hook", agent})
	}
	for _, c := range commands {
		var out strings.Builder
		_ = run(t.Context(), append(c, "-h"), func(string) string { return "" }, strings.NewReader(""), &out, &out)
		for _, m := range helpFlag.FindAllStringSubmatch(out.String(), -1) {
			known[m[1]] = true
		}
	}
	if !known["addr"] || !known["gate"] {
		t.Fatalf("the help read no flags (addr: %v, gate: %v): the check reads nothing", known["addr"], known["gate"])
	}
	docs, err := filepath.Glob(filepath.Join("..", "..", "docs", "*.md"))
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range append([]string{filepath.Join("..", "..", "README.md")}, docs...) {
		b, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		for i, line := range strings.Split(string(b), "\n") {
			for _, m := range docFlag.FindAllStringSubmatch(line, -1) {
				name := m[1]
				if known[name] || foreignFlags[name] || name == "vscode" || strings.HasPrefix(name, "vscode-") {
					continue
				}
				t.Errorf("%s:%d names --%s, which no plandash command has", filepath.Base(f), i+1, name)
			}
		}
	}
}

// headingAnchors is the set of anchors GitHub gives the headings of a markdown file: lower case,
// punctuation dropped, spaces as hyphens.
func headingAnchors(t *testing.T, path string) map[string]bool {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	anchors := map[string]bool{}
	inCode := false
	for _, line := range strings.Split(string(b), "\n") {
		if strings.HasPrefix(strings.TrimSpace(line), "```") {
			inCode = !inCode
		}
		if inCode || !strings.HasPrefix(line, "#") {
			continue
		}
		var slug strings.Builder
		for _, r := range strings.ToLower(strings.TrimSpace(strings.TrimLeft(line, "#"))) {
			switch {
			case r == ' ':
				slug.WriteByte('-')
			case r == '-' || r == '_' || unicode.IsLetter(r) || unicode.IsDigit(r):
				slug.WriteRune(r)
			}
		}
		anchors[slug.String()] = true
	}
	return anchors
}
