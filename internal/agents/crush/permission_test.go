package crush

import (
	"bytes"
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestPermissionAnswers(t *testing.T) {
	for _, ok := range []string{``, `{"decision":"allow"}`, string(PermissionAnswer(false, "")), string(PermissionAnswer(false, "no")), string(PermissionAnswer(true, ""))} {
		if err := CheckPermissionAnswer([]byte(ok)); err != nil {
			t.Errorf("%s: %v", ok, err)
		}
	}
	for _, bad := range []string{`{"decision":"deny"}`, `{"decision":"ask"}`, `x`, `{"halt":true}`} {
		if CheckPermissionAnswer([]byte(bad)) == nil {
			t.Errorf("%s passed", bad)
		}
	}
}

func TestRunHookPermission(t *testing.T) {
	bash := []byte(`{"event":"PreToolUse","session_id":"s","cwd":"/p","tool_name":"bash","tool_input":{"command":"rm -rf build"}}`)
	for _, tt := range []struct {
		name        string
		p           poster
		out, stderr string
	}{
		{name: "allowed", p: poster{answer: []byte(`{"decision":"allow"}`)}, out: `{"decision":"allow"}`},
		{name: "undecided: the prompt asks", p: poster{}},
		{name: "server down: the prompt asks", p: poster{err: errors.New("refused")}, stderr: "Crush's prompt asks you"},
		{name: "foreign answer", p: poster{answer: []byte(`{"decision":"ask"}`)}, stderr: "neither an allow"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			var out, stderr bytes.Buffer
			p := tt.p
			if err := RunHook(context.Background(), bytes.NewReader(bash), &out, &p, HookOptions{Stderr: &stderr}); err != nil {
				t.Fatal(err)
			}
			if out.String() != tt.out || !strings.Contains(stderr.String(), tt.stderr) || (tt.stderr == "" && stderr.Len() > 0) {
				t.Errorf("out %q, stderr %q", out.String(), stderr.String())
			}
		})
	}
}

func TestInstallGate(t *testing.T) {
	path := filepath.Join(t.TempDir(), "crush.json")
	if _, err := Install(path, InstallOptions{Gate: true}); err != nil {
		t.Fatal(err)
	}
	b, _ := os.ReadFile(path)
	if !strings.Contains(string(b), `"matcher": "`+PermissionMatcher+`"`) || strings.Count(string(b), "hook crush") != 2 {
		t.Errorf("gate install:\n%s", b)
	}
	if rep, err := Install(path, InstallOptions{}); err != nil || !rep.Changed {
		t.Fatalf("install without the gate: %+v %v", rep, err)
	}
	if b, _ := os.ReadFile(path); strings.Count(string(b), "hook crush") != 1 {
		t.Errorf("the gate entry stayed:\n%s", b)
	}
}

// TestProjectInstall writes the project's own crush.json, confined to the project, and prefers
// a .crush.json already there.
func TestProjectInstall(t *testing.T) {
	project := t.TempDir()
	path := ProjectConfigPath(project)
	if filepath.Base(path) != "crush.json" {
		t.Fatalf("path %s", path)
	}
	if rep, err := Install(path, InstallOptions{Root: project}); err != nil || !rep.Created {
		t.Fatalf("%+v %v", rep, err)
	}
	_ = os.WriteFile(filepath.Join(project, ".crush.json"), []byte("{}"), 0o644)
	if got := ProjectConfigPath(project); filepath.Base(got) != ".crush.json" {
		t.Errorf("path %s", got)
	}
	if _, err := Install(filepath.Join(t.TempDir(), "crush.json"), InstallOptions{Root: project}); err == nil {
		t.Error("a file outside the project was written")
	}
}
