//go:build unix

package main

import (
	"io"
	"os"
	"path/filepath"
	"testing"
)

// A pipe from the IDE is read through the poller, and reads the same bytes; a regular file is
// left as it is.
func TestPollableStdinPipe(t *testing.T) {
	r, w, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	defer w.Close()
	// A child gets the blocking end, as an IDE hands it to plandash.
	blocking := os.NewFile(r.Fd(), "stdin")
	in := pollableStdin(blocking)
	if in == io.Reader(blocking) {
		t.Fatal("a pipe was not made pollable")
	}
	if _, err := w.Write([]byte("{\"id\":1}\n")); err != nil {
		t.Fatal(err)
	}
	w.Close()
	got, err := io.ReadAll(in)
	if err != nil || string(got) != "{\"id\":1}\n" {
		t.Fatalf("read %q, %v", got, err)
	}

	f, err := os.Create(filepath.Join(t.TempDir(), "in"))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	if pollableStdin(f) != io.Reader(f) {
		t.Error("a regular file was replaced")
	}
}
