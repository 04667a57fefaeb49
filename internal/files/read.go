package files

import (
	"errors"
	"fmt"
	"io/fs"
)

// ErrNotRegular is a path that names something other than a regular file: a directory, a FIFO,
// a device or a socket. Nothing is read from it.
var ErrNotRegular = errors.New("not a regular file")

// Read returns the content of the file at path, which must resolve under one of the roots, in
// at most limit bytes. The open cannot hang (a FIFO is refused without waiting for a writer), the
// type is checked on the open descriptor, and the whole walk happens inside an os.Root, so a
// directory swapped for a symlink between resolving and opening cannot lead outside. Errors
// match ErrDenied, fs.ErrNotExist, ErrNotRegular or ErrTooLarge.
func (a *Roots) Read(path string, limit int64) ([]byte, error) {
	loc, err := a.Resolve(path)
	if err != nil {
		return nil, err
	}
	var data []byte
	err = With(loc, path, true, func(ops Ops, name string) error {
		f, err := OpenNoHang(ops, name)
		if err != nil {
			return err
		}
		defer f.Close()
		st, err := f.Stat()
		if err != nil {
			return err
		}
		if !st.Mode().IsRegular() {
			return fmt.Errorf("%s: %w", path, ErrNotRegular)
		}
		if st.Size() > limit {
			return fmt.Errorf("%s: %w", path, ErrTooLarge)
		}
		data, err = ReadBounded(f, st.Size(), limit)
		return err
	})
	if errors.Is(err, fs.ErrNotExist) {
		return nil, fmt.Errorf("%s: %w", path, fs.ErrNotExist)
	}
	return data, err
}
