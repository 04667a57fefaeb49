package agentkit_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/plandash/plandash/internal/agents/agentkit"
)

func TestOwnFile(t *testing.T) {
	dir := t.TempDir()
	f := agentkit.OwnFile{Path: filepath.Join(dir, "plugins", "plandash.ts"), Root: dir, Ours: agentkit.Marked("// ours"), Noun: "plugin"}
	step := func(what string, do func() (agentkit.FileReport, error), action string, changed bool) {
		t.Helper()
		rep, err := do()
		if err != nil || rep.Action != action || rep.Changed != changed || rep.Path != f.Path {
			t.Fatalf("%s = %+v, %v; want %s (changed %v)", what, rep, err, action, changed)
		}
	}
	install := func(s string) func() (agentkit.FileReport, error) {
		return func() (agentkit.FileReport, error) { return f.Install([]byte(s)) }
	}
	step("uninstall with nothing there", f.Uninstall, "absent", false)
	step("install", install("// ours v1"), "created", true)
	step("install again", install("// ours v1"), "unchanged", false)
	step("install another version", install("// ours v2"), "updated", true)
	if b, _ := os.ReadFile(f.Path); string(b) != "// ours v2" {
		t.Fatalf("the file holds %q", b)
	}
	step("uninstall", f.Uninstall, "removed", true)
	if _, err := os.Stat(f.Path); !os.IsNotExist(err) {
		t.Fatalf("the file is still there (%v)", err)
	}

	if err := os.WriteFile(f.Path, []byte("someone else's"), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := f.Install([]byte("// ours v1")); err == nil || !strings.Contains(err.Error(), "is not plandash's plugin; move it away first") {
		t.Fatalf("install over a foreign file: %v", err)
	}
	if _, err := f.Uninstall(); err == nil || !strings.Contains(err.Error(), "is not plandash's plugin; left untouched") {
		t.Fatalf("uninstall of a foreign file: %v", err)
	}
	if b, _ := os.ReadFile(f.Path); string(b) != "someone else's" {
		t.Fatalf("the foreign file changed: %q", b)
	}

	out := agentkit.OwnFile{Path: filepath.Join(dir, "..", "elsewhere.ts"), Root: dir, Ours: f.Ours, Noun: "plugin"}
	if _, err := out.Install([]byte("// ours")); err == nil {
		t.Fatal("a file outside the root was written")
	}
}

func TestFileReportSay(t *testing.T) {
	for action, want := range map[string]string{
		"created":   "p: created plandash's Amp plugin; reload it",
		"updated":   "p: updated plandash's Amp plugin; reload it",
		"removed":   "p: removed plandash's Amp plugin",
		"absent":    "p: no plandash plugin there, nothing changed",
		"unchanged": "p: already up to date, nothing changed",
	} {
		if got := (agentkit.FileReport{Path: "p", Action: action}).Say("Amp plugin", "plugin", "reload it"); got != want {
			t.Errorf("Say(%s) = %q, want %q", action, got, want)
		}
	}
}
