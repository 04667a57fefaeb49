package sharedplans

import (
	"errors"
	"fmt"
	"io/fs"
	"path/filepath"

	"github.com/plandash/plandash/internal/files"
)

// readPlanFile loads a stored plan file without hanging or over-reading. A missing file is
// (nil, false, nil) so "not found" stays distinct from "corrupt" and from I/O errors.
func readPlanFile(path string) ([]byte, bool, error) {
	f, err := files.OpenNoHang(files.OSOps{}, path)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, false, nil
	}
	if err != nil {
		return nil, false, fmt.Errorf("reading plan: %w", err)
	}
	defer f.Close()
	info, err := f.Stat()
	if err != nil {
		return nil, false, fmt.Errorf("reading plan: %w", err)
	}
	base := filepath.Base(path)
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
