package main

import (
	"io"
	"os"
	"path/filepath"
	"strings"
)

// isTerminal reports whether w is a terminal, where the start-up banner may show the admin
// token: a person reads it there. Anything else (a file, a pipe to a log collector, a test's
// buffer) keeps what it is given, so the token is not written to it.
func isTerminal(w io.Writer) bool {
	f, ok := w.(*os.File)
	if !ok {
		return false
	}
	fi, err := f.Stat()
	return err == nil && fi.Mode()&os.ModeCharDevice != 0
}

// urlHint is the `plandash url` command that prints the address of the server started with
// data, with its token: `go run ./cmd/plandash url …` when this server was started that way, as
// the README's demo is, since a newcomer has no plandash on PATH yet.
func urlHint(getenv func(string) string, isDemo bool, data string) string {
	self := "plandash"
	if exe, err := os.Executable(); err == nil && goRunBuild(exe) {
		self = "go run ./cmd/plandash"
	}
	def := defaultDataDir(getenv)
	switch {
	case !isDemo && filepath.Clean(data) == filepath.Clean(def):
		return self + " url"
	case isDemo && filepath.Clean(data) == filepath.Join(def, "demo"):
		return self + " url --demo"
	}
	return self + " url --data " + shellQuote(data)
}

// goRunBuild reports whether exe is the binary `go run` builds: …/go-buildNNN/bNNN/exe/NAME.
func goRunBuild(exe string) bool {
	return filepath.Base(filepath.Dir(exe)) == "exe" && strings.Contains(filepath.ToSlash(exe), "/go-build")
}

// shellQuote quotes s for a POSIX shell when it needs it.
func shellQuote(s string) string {
	for _, c := range s {
		ok := c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || strings.ContainsRune("/._-+:@", c)
		if !ok {
			return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
		}
	}
	return s
}
