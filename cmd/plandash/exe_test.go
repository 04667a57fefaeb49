package main

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// fakeBinary is an executable file for --command: the binary install writes into the hooks in
// tests, which run from `go test`'s own temporary binary.
func fakeBinary(t *testing.T) string {
	t.Helper()
	p := filepath.Join(t.TempDir(), "plandash")
	if err := os.WriteFile(p, []byte("#!/bin/sh\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	return p
}

func TestTemporaryBinary(t *testing.T) {
	env := func(k string) string {
		if k == "GOCACHE" {
			return "/home/u/.cache/go-build"
		}
		return ""
	}
	for path, want := range map[string]bool{
		"/tmp/go-build2739/b001/exe/plandash":      true,
		"/tmp/anything/plandash":                   true,
		"/home/u/.cache/go-build/ab/cdef/plandash": true,
		"/work/go-build1/plandash":                 true,
		"/usr/local/bin/plandash":                  false,
		"/home/u/go/bin/plandash":                  false,
	} {
		if got := temporaryBinary(path, env); got != want {
			t.Errorf("temporaryBinary(%q) = %v, want %v", path, got, want)
		}
	}
}

// `go run ./cmd/plandash install claude` runs a binary Go deletes a moment later: install must not
// write its path into the hooks. This test runs from `go test`'s own binary, which is just as
// temporary, with no plandash on PATH: install refuses, says how to get a stable binary, and
// writes nothing.
func TestInstallRefusesATemporaryBinary(t *testing.T) {
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	if !temporaryBinary(exe, os.Getenv) {
		t.Skipf("the test binary %s is not in a temporary directory here", exe)
	}
	dir := t.TempDir()
	env := func(k string) string {
		if k == "PATH" {
			return t.TempDir() // no plandash there
		}
		return ""
	}
	var out, errOut bytes.Buffer
	err = run(context.Background(), []string{"install", "claude", "--project", dir}, env, nil, &out, &errOut)
	if err == nil || !strings.Contains(err.Error(), "go install ./cmd/plandash") || !strings.Contains(err.Error(), "--command") {
		t.Fatalf("install from a temporary binary: %v", err)
	}
	if _, err := os.Stat(filepath.Join(dir, ".claude")); !os.IsNotExist(err) {
		t.Fatalf("install wrote into the project anyway: %v", err)
	}

	// A stable plandash on PATH is what the hooks run instead, and install says so.
	stable := t.TempDir() // stable here: the environment below names another temp directory
	bin := filepath.Join(stable, "plandash")
	if err := os.WriteFile(bin, []byte("#!/bin/sh\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	env = func(k string) string {
		switch k {
		case "PATH":
			return stable
		case "TMPDIR":
			return "/nonexistent-tmp"
		}
		return ""
	}
	out.Reset()
	errOut.Reset()
	if err := run(context.Background(), []string{"install", "claude", "--project", dir}, env, nil, &out, &errOut); err != nil {
		t.Fatalf("install with a stable plandash on PATH: %v %s", err, errOut.String())
	}
	b, err := os.ReadFile(filepath.Join(dir, ".claude", "settings.local.json"))
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(b), bin+" hook claude") || !strings.Contains(errOut.String(), "the plandash on your PATH") {
		t.Fatalf("hooks should run %s; settings %s; stderr %s", bin, b, errOut.String())
	}
}

// In a project, the hooks name this machine's binary by its absolute path: they go into the
// settings file Claude Code keeps out of git (settings.local.json), and the team-shared
// settings.json only with --shared. Install says which file it changed, and warns when the other
// file already has plandash's hooks (they would run twice).
func TestInstallClaudeProjectWritesTheLocalFile(t *testing.T) {
	dir := t.TempDir()
	bin := fakeBinary(t)
	env := func(string) string { return "" }
	install := func(args ...string) (string, string) {
		t.Helper()
		var out, errOut bytes.Buffer
		if err := run(context.Background(), append([]string{"install", "claude", "--project", dir, "--command", bin}, args...), env, nil, &out, &errOut); err != nil {
			t.Fatalf("install %v: %v %s", args, err, errOut.String())
		}
		return out.String(), errOut.String()
	}
	local, shared := filepath.Join(dir, ".claude", "settings.local.json"), filepath.Join(dir, ".claude", "settings.json")
	out, _ := install("--gate")
	if !strings.Contains(out, local) {
		t.Errorf("install does not say it changed %s: %q", local, out)
	}
	if b, err := os.ReadFile(local); err != nil || !strings.Contains(string(b), bin+" hook claude") {
		t.Fatalf("the local settings: %s %v", b, err)
	}
	if _, err := os.Stat(shared); !os.IsNotExist(err) {
		t.Fatalf("the shared settings.json was written: %v", err)
	}
	out, warn := install("--gate", "--shared")
	if !strings.Contains(out, shared) || !strings.Contains(warn, local+" also has plandash's hooks") {
		t.Errorf("install --shared: %q, warned %q", out, warn)
	}
}
