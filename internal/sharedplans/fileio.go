package sharedplans

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"

	"github.com/plandash/plandash/internal/files"
)

// readPlanFile loads a stored plan file without hanging or over-reading. A missing file (or
// directory) is (nil, false, nil) so "not found" stays distinct from "corrupt" and from I/O
// errors.
func readPlanFile(path string) ([]byte, bool, error) {
	root, err := os.OpenRoot(filepath.Dir(path))
	if errors.Is(err, fs.ErrNotExist) {
		return nil, false, nil
	}
	if err != nil {
		return nil, false, fmt.Errorf("reading plan: %w", err)
	}
	defer root.Close()
	return readPlanIn(root, filepath.Base(path))
}

// readPlanIn loads the plan file base inside root, the plans directory. The open happens inside
// the root, so a symlink in the directory may name another file in it but never one outside:
// anyone who can write the directory could otherwise have plandash read /etc/shadow and show its
// first byte in a decoder's error.
func readPlanIn(root *os.Root, base string) ([]byte, bool, error) {
	f, err := files.OpenNoHang(files.InRoot(root), base)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, false, nil
	}
	if err != nil {
		if fi, lerr := root.Lstat(base); lerr == nil && fi.Mode()&fs.ModeSymlink != 0 {
			return nil, false, &CorruptPlanError{File: base, Err: errSymlinkOut}
		}
		return nil, false, fmt.Errorf("reading plan: %w", err)
	}
	defer f.Close()
	info, err := f.Stat()
	if err != nil {
		return nil, false, fmt.Errorf("reading plan: %w", err)
	}
	switch {
	case info.IsDir():
		return nil, false, &CorruptPlanError{File: base, Err: errIsDirectory}
	case !info.Mode().IsRegular():
		return nil, false, &CorruptPlanError{File: base, Err: errNotRegular}
	case info.Size() > MaxEncodedSize:
		// The verdict cannot change by reading 70 MiB first, so don't.
		return nil, false, &CorruptPlanError{File: base, Err: errTooLarge}
	}
	data, err := files.ReadBounded(f, info.Size(), MaxEncodedSize)
	if errors.Is(err, files.ErrTooLarge) {
		return nil, false, &CorruptPlanError{File: base, Err: errTooLarge}
	}
	if err != nil {
		return nil, false, fmt.Errorf("reading plan: %w", err)
	}
	return data, true, nil
}
