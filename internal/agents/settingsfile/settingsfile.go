// Package settingsfile reads and writes the agents' settings files that `plandash install`
// merges its hooks into. A settings file is a small regular file that the user may write: a FIFO
// is refused without waiting for a writer, a file over MaxBytes is refused without being read
// whole, a read-only file is left as it is, and in a project install neither "..", nor a
// symlink met on the way (a project's config directory linked to the user's own), leads out of
// the project. Every refusal says which file and why, and nothing is written.
//
// It also holds the one merge of plandash's hooks into those files, by one set of rules for
// every agent (ParseFile, MergeHooks): an empty file is {}, comments and anything but one JSON
// object are refused saying where, duplicate keys are settled as Object says, and the user's
// bytes are kept, layout included, so a merge that changes nothing returns the input and an
// uninstall gives the user's file back byte for byte.
package settingsfile

import (
	"errors"
	"io/fs"
	"path/filepath"

	"github.com/plandash/plandash/internal/errs"
	"github.com/plandash/plandash/internal/files"
)

// MaxBytes bounds a settings file. The agents' settings are a few KiB; 4 MiB leaves room for
// any real one and keeps a 200 MB file from being read into memory.
const MaxBytes = 4 << 20

// File is a settings file as read.
type File struct {
	Data   []byte
	Mode   fs.FileMode // its permission bits; 0o644 for a file not there yet
	Exists bool
}

// Read reads the settings file at path. With root set, path must lie under root and is read
// inside it (see the package doc); with root empty (the user's own settings) symlinks are
// followed as the agent itself follows them. A missing file is no error: Exists is false.
func Read(root, path string) (File, error) {
	out := File{Mode: 0o644}
	err := with(root, path, true, func(ops files.Ops, name string) error {
		f, err := files.OpenNoHang(ops, name)
		if err != nil {
			return err
		}
		defer f.Close()
		st, err := f.Stat()
		if err != nil {
			return err
		}
		if !st.Mode().IsRegular() {
			return errs.Errorf(errs.Invalid, "%s is not a regular file (%s); plandash reads and writes only regular settings files, and left it untouched",
				path, kind(st.Mode()))
		}
		if st.Size() > MaxBytes {
			return tooLarge(path)
		}
		b, err := files.ReadBounded(f, st.Size(), MaxBytes)
		if errors.Is(err, files.ErrTooLarge) {
			return tooLarge(path)
		}
		out = File{Data: b, Mode: st.Mode().Perm(), Exists: true}
		return err
	})
	if errors.Is(err, fs.ErrNotExist) {
		return File{Mode: 0o644}, nil
	}
	return out, err
}

// CheckWritable reports, for the file f read from path, the error Write or Remove would give
// because it is read-only; nil for a writable or missing file. It lets an installer that
// changes two files check the second before it writes the first.
func (f File) CheckWritable(path string) error {
	if !f.Exists || f.Mode&0o200 != 0 {
		return nil
	}
	return readOnly(path, f.Mode)
}

// Write replaces the file at path with data, atomically (a temp file in the same directory,
// renamed over it), keeping the file's mode; missing directories are made. A file the user
// may not write (no owner write bit, such as 0444) is refused: making a file read-only is how
// people say "leave this alone".
func Write(root, path string, data []byte) error {
	return with(root, path, false, func(ops files.Ops, name string) error {
		mode := fs.FileMode(0o644)
		if st, err := ops.Stat(name); err == nil {
			if err := writable(path, st); err != nil {
				return err
			}
			mode = st.Mode().Perm()
		}
		dir := filepath.Dir(name)
		if err := ops.MkdirAll(dir, 0o755); err != nil {
			return err
		}
		return files.WriteAtomicMode(ops, name, data, mode)
	})
}

// Remove deletes the file at path, which must be writable as for Write.
func Remove(root, path string) error {
	return with(root, path, false, func(ops files.Ops, name string) error {
		if st, err := ops.Stat(name); err == nil {
			if err := writable(path, st); err != nil {
				return err
			}
		}
		return ops.Remove(name)
	})
}

// with runs fn on path, inside root when root is set.
func with(root, path string, followFinal bool, fn func(ops files.Ops, name string) error) error {
	loc := files.Location{Name: path}
	if root != "" {
		rel, err := filepath.Rel(root, path)
		if err != nil || !filepath.IsLocal(rel) {
			return errs.Errorf(errs.Forbidden, "%s is outside the project %s; plandash writes a project's settings only inside it", path, root)
		}
		loc = files.Location{Root: root, Name: rel}
	}
	err := files.With(loc, path, followFinal, fn)
	if errors.Is(err, files.ErrDenied) {
		return errs.Errorf(errs.Forbidden, "%s leads out of the project %s through a symlink; plandash writes a project's settings only inside it, and left everything untouched", path, root)
	}
	return err
}

func writable(path string, st fs.FileInfo) error {
	if st.Mode().Perm()&0o200 == 0 {
		return readOnly(path, st.Mode().Perm())
	}
	return nil
}

func readOnly(path string, mode fs.FileMode) error {
	return errs.Errorf(errs.Forbidden, "%s is read-only (mode %04o); plandash leaves it as it is: make it writable (chmod u+w) to let plandash change it",
		path, mode)
}

func tooLarge(path string) error {
	return errs.Errorf(errs.Invalid, "%s is over %d MiB, too large for a settings file; plandash left it untouched", path, MaxBytes>>20)
}

// kind names a non-regular file's type for a message.
func kind(m fs.FileMode) string {
	switch {
	case m.IsDir():
		return "a directory"
	case m&fs.ModeNamedPipe != 0:
		return "a FIFO"
	case m&fs.ModeSocket != 0:
		return "a socket"
	case m&fs.ModeDevice != 0:
		return "a device"
	}
	return "not a plain file"
}
