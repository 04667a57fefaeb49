package agentkit

import (
	"bytes"
	"fmt"

	"github.com/plandash/plandash/internal/agents/settingsfile"
)

// OwnFile is a file plandash writes whole into a directory an agent loads code from: a plugin,
// an extension. plandash owns it by its marker; it never overwrites or removes a file of that
// name without one.
type OwnFile struct {
	// Path is the file.
	Path string
	// Root confines Path to a directory, for a project install: neither ".." nor a symlink may
	// lead out of it. Empty for the user's own directories.
	Root string
	// Ours reports whether data, a file found at Path, is plandash's (carries its marker).
	Ours func(data []byte) bool
	// Noun is what the file is, in errors: "plugin", "extension".
	Noun string
}

// FileReport says what Install or Uninstall of an OwnFile did.
type FileReport struct {
	Path    string
	Action  string // "created", "updated", "unchanged", "removed", "absent"
	Changed bool
}

// Say is r in a sentence, for the command's output: what names the file ("Amp plugin"), noun
// is its kind ("plugin"), and load tells how the agent loads a new or changed one.
func (r FileReport) Say(what, noun, load string) string {
	switch r.Action {
	case "created":
		return r.Path + ": created plandash's " + what + "; " + load
	case "updated":
		return r.Path + ": updated plandash's " + what + "; " + load
	case "removed":
		return r.Path + ": removed plandash's " + what
	case "absent":
		return r.Path + ": no plandash " + noun + " there, nothing changed"
	}
	return r.Path + ": already up to date, nothing changed"
}

// Install writes want to the file (its directory made when missing). Writing the same bytes
// again changes nothing; a file there that is not ours is refused, as is one that is not a
// small, writable regular file (see settingsfile). The write is atomic, through a temp file
// whose name does not end as the file's does (the agent would load it).
func (f OwnFile) Install(want []byte) (FileReport, error) {
	rep := FileReport{Path: f.Path, Action: "created"}
	old, err := settingsfile.Read(f.Root, f.Path)
	switch {
	case err != nil:
		return rep, err
	case old.Exists && bytes.Equal(old.Data, want):
		rep.Action = "unchanged"
		return rep, nil
	case old.Exists && !f.Ours(old.Data):
		return rep, fmt.Errorf("%s exists and is not plandash's %s; move it away first", f.Path, f.Noun)
	case old.Exists:
		rep.Action = "updated"
	}
	if err := settingsfile.Write(f.Root, f.Path, want); err != nil {
		return rep, err
	}
	rep.Changed = true
	return rep, nil
}

// Uninstall removes the file when it is ours, and nothing else.
func (f OwnFile) Uninstall() (FileReport, error) {
	rep := FileReport{Path: f.Path, Action: "absent"}
	old, err := settingsfile.Read(f.Root, f.Path)
	if err != nil || !old.Exists {
		return rep, err
	}
	if !f.Ours(old.Data) {
		return rep, fmt.Errorf("%s is not plandash's %s; left untouched", f.Path, f.Noun)
	}
	if err := settingsfile.Remove(f.Root, f.Path); err != nil {
		return rep, err
	}
	rep.Action, rep.Changed = "removed", true
	return rep, nil
}

// Marked is an OwnFile.Ours for files that start with marker.
func Marked(marker string) func([]byte) bool {
	return func(data []byte) bool { return bytes.HasPrefix(data, []byte(marker)) }
}
