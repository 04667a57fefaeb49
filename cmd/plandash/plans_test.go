package main

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/plandash/plandash/internal/sharedplans"
)

// runPlans runs `plandash plans ARGS` in process and returns stdout, stderr and the exit code
// main would use.
func runPlans(t *testing.T, dir, stdin string, args ...string) (string, string, int) {
	t.Helper()
	var out, errOut bytes.Buffer
	getenv := func(k string) string {
		if k == "PLANDASH_PLANS_DIR" {
			return dir
		}
		return ""
	}
	err := run(context.Background(), append([]string{"plans"}, args...), getenv, strings.NewReader(stdin), &out, &errOut)
	code := 0
	var ec exitCode
	switch {
	case errors.As(err, &ec):
		code = int(ec)
	case errors.Is(err, errUsage):
		code = 2
	case err != nil:
		code = 1
	}
	return out.String(), errOut.String(), code
}

func TestPlansCLI(t *testing.T) {
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "broken.json"), []byte("{"), 0o600); err != nil {
		t.Fatal(err)
	}
	for _, tt := range []struct {
		name     string
		stdin    string
		args     []string
		code     int
		stdout   string // substring
		stderr   string // substring
		jsonCode string // with --json: the error code on stderr
	}{
		{name: "list, warning about a corrupt file", args: []string{"list"}, stdout: "No plans found.", stderr: `warning: skipped "broken"`},
		{name: "write from stdin", stdin: "# Release\n", args: []string{"write", "release", "--title", "Release", "--author", "me", "--status", "draft"}, stdout: "wrote release revision 1"},
		{name: "write, flags first", stdin: "v2\n", args: []string{"--expected-revision", "1", "write", "release"}, stdout: "wrote release revision 2"},
		{name: "write with a stale guard", stdin: "v3\n", args: []string{"write", "release", "--expected-revision", "1"}, code: 3,
			stderr: `version conflict on plan "release": last_known_revision 1 does not match current revision 2; re-read the plan and retry`},
		{name: "stale guard as JSON", stdin: "v3\n", args: []string{"write", "release", "--expected-revision", "1", "--json"}, code: 3, jsonCode: "conflict"},
		{name: "create an existing plan", stdin: "x\n", args: []string{"write", "release", "--create"}, code: 3, stderr: `plan "release" already exists (current version 2)`},
		{name: "empty content", stdin: "", args: []string{"write", "release"}, code: 1, stderr: "content must not be empty"},
		{name: "invalid name", stdin: "x", args: []string{"write", "Release", "--json"}, code: 1, jsonCode: "invalid_argument"},
		{name: "show", args: []string{"show", "release"}, stdout: "v2\n", stderr: `release: "Release" · status draft · by me · revision 2`},
		{name: "show as JSON", args: []string{"show", "release", "--json"}, stdout: `"content": "v2\n"`},
		{name: "show missing", args: []string{"show", "nope", "--json"}, code: 1, jsonCode: "not_found"},
		{name: "show corrupt", args: []string{"show", "broken"}, code: 1, stderr: "plan file broken.json is corrupt"},
		{name: "list", args: []string{"list"}, stdout: "release  draft   2"},
		{name: "list as JSON", args: []string{"list", "--json"}, stdout: `"warnings": [`},
		{name: "get status", args: []string{"status", "release"}, stdout: "draft (revision 2)"},
		{name: "set status", args: []string{"status", "release", "in-progress", "--expected-revision", "2"}, stdout: "release: status in-progress (revision 3)"},
		{name: "set status, stale", args: []string{"status", "release", "done", "--expected-revision", "2"}, code: 3},
		{name: "set status of a missing plan", args: []string{"status", "nope", "done", "--json"}, code: 1, jsonCode: "not_found"},
		{name: "delete, stale", args: []string{"delete", "release", "--expected-revision", "1", "--json"}, code: 3, jsonCode: "conflict"},
		{name: "delete", args: []string{"delete", "release", "--expected-revision", "3", "--json"}, stdout: `"deleted": "release"`},
		{name: "delete a corrupt plan (recovery)", args: []string{"delete", "broken"}, stdout: "deleted broken"},
		{name: "delete missing", args: []string{"delete", "release"}, code: 1, stderr: `plan "release" not found`},
		{name: "unknown command", args: []string{"frob"}, code: 2},
		{name: "missing name", args: []string{"show"}, code: 2},
		{name: "bad revision", args: []string{"delete", "x", "--expected-revision", "-1"}, code: 2},
	} {
		t.Run(tt.name, func(t *testing.T) {
			stdout, stderr, code := runPlans(t, dir, tt.stdin, tt.args...)
			if code != tt.code || !strings.Contains(stdout, tt.stdout) || !strings.Contains(stderr, tt.stderr) {
				t.Fatalf("exit %d (want %d)\nstdout: %s\nstderr: %s", code, tt.code, stdout, stderr)
			}
			if tt.jsonCode != "" {
				var e struct {
					Error cliError `json:"error"`
				}
				if err := json.Unmarshal([]byte(stderr), &e); err != nil || e.Error.Code != tt.jsonCode || e.Error.Message == "" {
					t.Fatalf("stderr is not a %s error document: %s", tt.jsonCode, stderr)
				}
				if tt.jsonCode == "conflict" && (e.Error.ExpectedRevision == nil || e.Error.CurrentRevision == nil) {
					t.Fatalf("a conflict names both revisions: %s", stderr)
				}
			}
		})
	}
}

// TestPlansCLIFileIsDockerAgents: what the CLI writes is docker-agent's format, and --json
// prints the tools' output shapes.
func TestPlansCLIFileIsDockerAgents(t *testing.T) {
	dir := t.TempDir()
	src := filepath.Join(t.TempDir(), "plan.md")
	if err := os.WriteFile(src, []byte("a <b> & c"), 0o600); err != nil {
		t.Fatal(err)
	}
	stdout, _, code := runPlans(t, dir, "", "write", "p", "--file", src, "--json")
	var p sharedplans.Plan
	if code != 0 || json.Unmarshal([]byte(stdout), &p) != nil || p.Content != "a <b> & c" || p.Revision != 1 {
		t.Fatalf("exit %d: %s", code, stdout)
	}
	raw, _ := os.ReadFile(filepath.Join(dir, "p.json"))
	if enc, _ := sharedplans.EncodePlan(p); string(raw) != string(enc) || !strings.Contains(string(raw), `\u003cb\u003e`) {
		t.Fatalf("file:\n%s", raw)
	}
	if fi, err := os.Stat(filepath.Join(dir, "p.json")); err != nil || fi.Mode().Perm() != 0o600 {
		t.Fatalf("mode %v %v", fi.Mode(), err)
	}
	// Metadata flags: given (even empty) replaces, omitted keeps.
	runPlans(t, dir, "x", "write", "p", "--title", "T", "--status", "s")
	runPlans(t, dir, "y", "write", "p", "--status", "")
	stdout, _, _ = runPlans(t, dir, "", "show", "p", "--json")
	if err := json.Unmarshal([]byte(stdout), &p); err != nil {
		t.Fatal(err)
	}
	if p.Title != "T" || p.Status != "" || p.Content != "y" {
		t.Fatalf("after metadata edits: %+v", p)
	}
}

// TestPlansCLIExitStatus runs the built binary: a version conflict really exits with 3.
func TestPlansCLIExitStatus(t *testing.T) {
	bin := filepath.Join(t.TempDir(), "plandash")
	if out, err := exec.Command("go", "build", "-buildvcs=false", "-o", bin, ".").CombinedOutput(); err != nil {
		t.Fatalf("go build: %v\n%s", err, out)
	}
	dir := t.TempDir()
	plans := func(stdin string, args ...string) int {
		cmd := exec.Command(bin, append([]string{"plans", "--plans-dir", dir}, args...)...)
		cmd.Stdin = strings.NewReader(stdin)
		err := cmd.Run()
		var ee *exec.ExitError
		if errors.As(err, &ee) {
			return ee.ExitCode()
		}
		if err != nil {
			t.Fatal(err)
		}
		return 0
	}
	if c := plans("x", "write", "p"); c != 0 {
		t.Fatalf("write exited %d", c)
	}
	if c := plans("x", "write", "p", "--expected-revision", "0"); c != 3 {
		t.Fatalf("conflicting write exited %d, want 3", c)
	}
	if c := plans("", "show", "nope"); c != 1 {
		t.Fatalf("show of a missing plan exited %d, want 1", c)
	}
}
