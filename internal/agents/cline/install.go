package cline

import (
	"bytes"
	"errors"
	"fmt"
	"io/fs"
	"path/filepath"
	"strings"

	"github.com/plandash/plandash/internal/agents/settingsfile"
	"github.com/plandash/plandash/internal/errs"
	"github.com/plandash/plandash/internal/files"
)

// hookFiles are the hook files plandash installs, one per event Cline runs hooks for
// (@cline/core HookConfigFileName; PreCompact is left out: Cline 3.x runs no hook for it).
var hookFiles = []string{
	"TaskStart", "TaskResume", "TaskCancel", "TaskComplete", "TaskError",
	"PreToolUse", "PostToolUse", "UserPromptSubmit", "SessionShutdown",
}

// HookEventNames lists the hook files plandash installs, by event name.
func hookEventNames() []string { return append([]string(nil), hookFiles...) }

// HookExt is the extension of plandash's hook files. Cline reads a hook file's event from its
// name without the extension and runs every file of an event, so "PreToolUse.sh" runs beside a
// user's own "PreToolUse".
const HookExt = ".sh"

// HookMarker is the second line of every hook file plandash writes; Uninstall removes only
// files that carry it.
const HookMarker = "# plandash-cline-hook"

// HooksDir is where Cline reads hook files: the project's .cline/hooks when project is set,
// else the user's ($CLINE_DIR/hooks, by default ~/.cline/hooks).
func HooksDir(project string, getenv func(string) string) string {
	if project != "" {
		return filepath.Join(project, ".cline", "hooks")
	}
	if d := getenv("CLINE_DIR"); d != "" {
		return filepath.Join(d, "hooks")
	}
	return filepath.Join(getenv("HOME"), ".cline", "hooks")
}

// InstallOptions tunes Install.
type InstallOptions struct {
	// Command is the plandash executable the hooks run; "plandash" (found on PATH) when empty.
	Command string
	// Server and Data are passed on as --server and --data when set.
	Server, Data string
	// Root confines the hook files to a directory, for a project install: neither ".." nor a
	// symlink may lead out of it. Empty for the user's own hooks directory.
	Root string
}

// Script is the hook file plandash writes: a POSIX shell script that hands the event on stdin
// to `plandash hook cline`.
func Script(opts InstallOptions) []byte {
	cmd := settingsfile.HookCommand(opts.Command, AgentName,
		settingsfile.Flag{Name: "--server", Value: opts.Server}, settingsfile.Flag{Name: "--data", Value: opts.Data})
	return []byte("#!/bin/sh\n" + HookMarker + ": written by `plandash install cline`; `plandash install cline --uninstall` removes it.\n" +
		"exec " + cmd + "\n")
}

// Report says what Install or Uninstall did.
type Report struct {
	Dir     string
	Changed []string // the files written or removed
	Kept    []string // files already as wanted (install) or not plandash's (uninstall)
}

// String says it in a sentence, for the command's output.
func (r Report) String() string {
	switch {
	case len(r.Changed) == 0:
		return r.Dir + ": already up to date, nothing changed"
	default:
		return fmt.Sprintf("%s: wrote or removed %s; Cline reads hooks at the start of each task", r.Dir, strings.Join(r.Changed, ", "))
	}
}

// Install writes plandash's hook files into dir (created when missing), executable. Running it
// again changes nothing; a file of that name that plandash did not write is refused before
// anything is written, as is one that is not a small, writable regular file. Each write is
// atomic (a temp file whose name Cline does not take for a hook, renamed over).
func Install(dir string, opts InstallOptions) (Report, error) {
	rep := Report{Dir: dir}
	want := Script(opts)
	var todo []string
	for _, name := range hookFiles {
		path := filepath.Join(dir, name+HookExt)
		old, err := settingsfile.Read(opts.Root, path)
		switch {
		case err != nil:
			return rep, err
		case old.Exists && bytes.Equal(old.Data, want) && old.Mode&0o100 != 0:
			rep.Kept = append(rep.Kept, name+HookExt)
			continue
		}
		if err := old.CheckWritable(path); err != nil {
			return rep, err
		}
		if old.Exists && !isOurs(old.Data) {
			return rep, errs.Errorf(errs.Conflict, "%s exists and is not plandash's hook; move it away first (nothing was changed)", path)
		}
		todo = append(todo, name+HookExt)
	}
	for _, name := range todo {
		if err := writeExec(opts.Root, filepath.Join(dir, name), want); err != nil {
			return rep, err
		}
		rep.Changed = append(rep.Changed, name)
	}
	return rep, nil
}

// Uninstall removes plandash's hook files from dir, and nothing else; confined to root when it
// is set (see InstallOptions.Root).
func Uninstall(dir, root string) (Report, error) {
	rep := Report{Dir: dir}
	for _, name := range hookFiles {
		path := filepath.Join(dir, name+HookExt)
		old, err := settingsfile.Read(root, path)
		switch {
		case err != nil:
			return rep, err
		case !old.Exists:
			continue
		case !isOurs(old.Data):
			rep.Kept = append(rep.Kept, name+HookExt)
			continue
		}
		if err := settingsfile.Remove(root, path); err != nil {
			return rep, err
		}
		rep.Changed = append(rep.Changed, name+HookExt)
	}
	return rep, nil
}

// isOurs reports whether a hook file is one plandash wrote: its second line is the marker.
func isOurs(b []byte) bool {
	_, rest, ok := bytes.Cut(b, []byte("\n"))
	return ok && bytes.HasPrefix(rest, []byte(HookMarker))
}

// writeExec writes an executable hook file atomically, in root when set.
func writeExec(root, path string, data []byte) error {
	loc := files.Location{Name: path}
	if root != "" {
		rel, err := filepath.Rel(root, path)
		if err != nil || !filepath.IsLocal(rel) {
			return errs.Errorf(errs.Forbidden, "%s is outside the project %s; plandash writes a project's hooks only inside it", path, root)
		}
		loc = files.Location{Root: root, Name: rel}
	}
	err := files.With(loc, path, false, func(ops files.Ops, name string) error {
		if err := ops.MkdirAll(filepath.Dir(name), 0o755); err != nil {
			return err
		}
		return files.WriteAtomicMode(ops, name, data, fs.FileMode(0o755))
	})
	if errors.Is(err, files.ErrDenied) {
		return errs.Errorf(errs.Forbidden, "%s leads out of the project %s through a symlink; plandash writes a project's hooks only inside it, and left everything untouched", path, root)
	}
	return err
}
