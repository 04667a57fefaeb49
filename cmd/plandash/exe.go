package main

import (
	"cmp"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
)

// hookCommand is the plandash binary the installed hooks run: --command when given, else this
// binary, unless this binary is temporary — `go run` builds one under the build cache or a temp
// directory and deletes it when it exits, so every hook would then point at nothing. A temporary
// binary gives way to a stable `plandash` on PATH, and without one install refuses, saying how to
// get one.
func hookCommand(explicit string, getenv func(string) string, stderr io.Writer) (string, error) {
	if explicit != "" {
		abs, err := filepath.Abs(explicit)
		if err != nil {
			return "", err
		}
		if fi, err := os.Stat(abs); err != nil || fi.IsDir() || fi.Mode()&0o111 == 0 {
			return "", fmt.Errorf("--command %s: not an executable file", explicit)
		}
		return abs, nil
	}
	exe, err := os.Executable()
	if err != nil {
		return "", fmt.Errorf("find this binary's path: %w", err)
	}
	if resolved, err := filepath.EvalSymlinks(exe); err == nil {
		exe = resolved
	}
	if !temporaryBinary(exe, getenv) {
		return exe, nil
	}
	if p := onPath(getenv, "plandash", func(p string) bool { return !temporaryBinary(p, getenv) }); p != "" {
		fmt.Fprintf(stderr, "plandash: this binary runs from a temporary place (%s); the hooks run %s, the plandash on your PATH\n", exe, p)
		return p, nil
	}
	return "", errors.New("this plandash runs from a temporary place (" + exe + "): a `go run` build, which Go deletes when it exits, " +
		"or a temp directory, cleared sooner or later; hooks pointing at it would then run nothing.\n" +
		"Install plandash first, from the clone:  go install ./cmd/plandash   (then run `plandash install …` again)\n" +
		"or name the binary the hooks should run:  --command /path/to/plandash")
}

// temporaryBinary reports whether path lies where Go or the system keeps throwaway files: the
// build cache, a `go run` work directory (go-build…), or the temp directory.
func temporaryBinary(path string, getenv func(string) string) bool {
	dirs := []string{cmp.Or(getenv("TMPDIR"), "/tmp")}
	if c := getenv("GOCACHE"); c != "" {
		dirs = append(dirs, c)
	}
	if c, err := os.UserCacheDir(); err == nil {
		dirs = append(dirs, filepath.Join(c, "go-build"))
	}
	for _, d := range dirs {
		if d == "" {
			continue
		}
		if r, err := filepath.EvalSymlinks(d); err == nil {
			d = r
		}
		if rel, err := filepath.Rel(d, path); err == nil && rel != ".." && !strings.HasPrefix(rel, ".."+string(filepath.Separator)) {
			return true
		}
	}
	for _, part := range strings.Split(filepath.ToSlash(path), "/") {
		if strings.HasPrefix(part, "go-build") {
			return true
		}
	}
	return false
}

// onPath is the first executable file named name in the directories of getenv's PATH (not the
// process's: tests and install name their own) that keep accepts; "" when there is none.
func onPath(getenv func(string) string, name string, keep func(string) bool) string {
	for _, dir := range filepath.SplitList(getenv("PATH")) {
		p := filepath.Join(dir, name)
		if !filepath.IsAbs(p) || (keep != nil && !keep(p)) {
			continue
		}
		if fi, err := os.Stat(p); err == nil && !fi.IsDir() && fi.Mode()&0o111 != 0 {
			return p
		}
	}
	return ""
}
