package sharedplans

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strconv"
)

// fileOps is the handful of file operations the store and the file tools need. It exists so the
// same code runs on plain OS paths and inside an *os.Root, which confines every step (including
// symlinks met on the way) to an allowed directory without check-then-use races.
type fileOps interface {
	openFile(name string, flag int, perm fs.FileMode) (*os.File, error)
	stat(name string) (fs.FileInfo, error)
	mkdirAll(name string, perm fs.FileMode) error
	rename(oldname, newname string) error
	remove(name string) error
}

type osOps struct{}

func (osOps) openFile(n string, f int, p fs.FileMode) (*os.File, error) { return os.OpenFile(n, f, p) }
func (osOps) stat(n string) (fs.FileInfo, error)                        { return os.Stat(n) }
func (osOps) mkdirAll(n string, p fs.FileMode) error                    { return os.MkdirAll(n, p) }
func (osOps) rename(o, n string) error                                  { return os.Rename(o, n) }
func (osOps) remove(n string) error                                     { return os.Remove(n) }

type rootOps struct{ r *os.Root }

func (o rootOps) openFile(n string, f int, p fs.FileMode) (*os.File, error) {
	return o.r.OpenFile(n, f, p)
}
func (o rootOps) stat(n string) (fs.FileInfo, error)     { return o.r.Stat(n) }
func (o rootOps) mkdirAll(n string, p fs.FileMode) error { return o.r.MkdirAll(n, p) }
func (o rootOps) rename(old, n string) error             { return o.r.Rename(old, n) }
func (o rootOps) remove(n string) error                  { return o.r.Remove(n) }

// openNoHang opens name for reading so that a FIFO without a writer cannot block the open
// (O_NONBLOCK on Unix). Callers must check the descriptor's type before reading.
func openNoHang(ops fileOps, name string) (*os.File, error) {
	return ops.openFile(name, openReadFlags, 0)
}

// readBounded reads f to EOF, failing with errTooLarge once more than limit bytes arrive. The
// stat size only sizes the buffer: the file may change under us, so the limit is enforced on
// what is actually read.
func readBounded(f *os.File, sizeHint, limit int64) ([]byte, error) {
	if sizeHint < 0 || sizeHint > limit {
		sizeHint = limit
	}
	// +1 so a file of exactly sizeHint bytes reaches EOF without growing the buffer.
	buf := make([]byte, 0, sizeHint+1)
	r := io.LimitReader(f, limit+1)
	for {
		if len(buf) == cap(buf) {
			buf = append(buf, 0)[:len(buf)]
		}
		n, err := r.Read(buf[len(buf):cap(buf)])
		buf = buf[:len(buf)+n]
		if err == io.EOF {
			break
		}
		if err != nil {
			return nil, err
		}
	}
	if int64(len(buf)) > limit {
		return nil, errTooLarge
	}
	return buf, nil
}

// readPlanFile loads a stored plan file without hanging or over-reading. A missing file is
// (nil, false, nil) so "not found" stays distinct from "corrupt" and from I/O errors.
func readPlanFile(path string) ([]byte, bool, error) {
	f, err := openNoHang(osOps{}, path)
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
	data, err := readBounded(f, info.Size(), MaxEncodedSize)
	if errors.Is(err, errTooLarge) {
		return nil, false, &CorruptPlanError{File: base, Err: errTooLarge}
	}
	if err != nil {
		return nil, false, fmt.Errorf("reading plan: %w", err)
	}
	return data, true, nil
}

// writeAtomic replaces path with data: a temp file in the same directory, fsync, rename over
// the target, then a directory fsync. Readers see the old or the new file, never a torn one; a
// symlink at path is replaced, not followed. The temp name is <base><digits>, as docker-agent's
// writer makes it, so it never ends in ".json" and no listing or watcher mistakes it for a plan.
// The messages mirror the ones docker-agent's atomic writer produces.
func writeAtomic(ops fileOps, path string, data []byte) error {
	dir, base := filepath.Dir(path), filepath.Base(path)
	var (
		f   *os.File
		tmp string
		err error
	)
	for range 10000 {
		tmp = filepath.Join(dir, base+strconv.FormatUint(uint64(rand.Uint32()), 10))
		f, err = ops.openFile(tmp, os.O_RDWR|os.O_CREATE|os.O_EXCL, 0o600)
		if !errors.Is(err, fs.ErrExist) {
			break
		}
	}
	if err != nil {
		return fmt.Errorf("cannot create temp file: %w", err)
	}
	// On failure nothing may be left behind: the target is untouched and the temp file goes.
	fail := func(err error) error {
		_ = f.Close() // may already be closed; the second close's error is meaningless
		_ = ops.remove(tmp)
		return err
	}
	if _, err := f.Write(data); err != nil {
		return fail(fmt.Errorf("cannot write data to tempfile %q: %w", tmp, err))
	}
	if err := f.Sync(); err != nil {
		return fail(fmt.Errorf("can't flush tempfile %q: %w", tmp, err))
	}
	// The umask may have narrowed 0600 at creation; the result must be exactly 0600.
	if err := f.Chmod(0o600); err != nil {
		return fail(fmt.Errorf("can't set filemode on tempfile %q: %w", tmp, err))
	}
	if err := f.Close(); err != nil {
		return fail(fmt.Errorf("can't close tempfile %q: %w", tmp, err))
	}
	if err := ops.rename(tmp, path); err != nil {
		return fail(fmt.Errorf("cannot replace %q with tempfile %q: %w", path, tmp, err))
	}
	syncDir(ops, dir)
	return nil
}

// syncDir makes the rename durable. It is best effort on purpose: the new file is already in
// place and visible, so reporting a failure here would tell the caller a write failed that
// every reader can see succeeded.
func syncDir(ops fileOps, dir string) {
	d, err := openNoHang(ops, dir)
	if err != nil {
		return
	}
	_ = d.Sync()
	_ = d.Close()
}
