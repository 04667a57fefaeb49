// Package files is plandash's one way to touch files an outsider names: file plans shown on
// pages, and the shared-plan tools that read and write files for MCP clients. Paths resolve under
// allowed roots and every step runs inside an *os.Root, so neither "..", nor a symlink met on the
// way, nor one swapped in between a check and a use, can leave the root. Opens never hang on a
// FIFO, and reads are bounded.
package files

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

// Ops is the handful of file operations the store and the file tools need. It exists so the
// same code runs on plain OS paths and inside an *os.Root, which confines every step (including
// symlinks met on the way) to an allowed directory without check-then-use races.
type Ops interface {
	OpenFile(name string, flag int, perm fs.FileMode) (*os.File, error)
	Stat(name string) (fs.FileInfo, error)
	MkdirAll(name string, perm fs.FileMode) error
	Rename(oldname, newname string) error
	Remove(name string) error
}

// OSOps runs operations on plain OS paths.
type OSOps struct{}

func (OSOps) OpenFile(n string, f int, p fs.FileMode) (*os.File, error) { return os.OpenFile(n, f, p) }
func (OSOps) Stat(n string) (fs.FileInfo, error)                        { return os.Stat(n) }
func (OSOps) MkdirAll(n string, p fs.FileMode) error                    { return os.MkdirAll(n, p) }
func (OSOps) Rename(o, n string) error                                  { return os.Rename(o, n) }
func (OSOps) Remove(n string) error                                     { return os.Remove(n) }

// RootOps runs every operation inside r.
type RootOps struct{ r *os.Root }

// InRoot returns the operations confined to r.
func InRoot(r *os.Root) RootOps { return RootOps{r} }

func (o RootOps) OpenFile(n string, f int, p fs.FileMode) (*os.File, error) {
	return o.r.OpenFile(n, f, p)
}
func (o RootOps) Stat(n string) (fs.FileInfo, error)     { return o.r.Stat(n) }
func (o RootOps) MkdirAll(n string, p fs.FileMode) error { return o.r.MkdirAll(n, p) }
func (o RootOps) Rename(old, n string) error             { return o.r.Rename(old, n) }
func (o RootOps) Remove(n string) error                  { return o.r.Remove(n) }

// OpenNoHang opens name for reading so that a FIFO without a writer cannot block the open
// (O_NONBLOCK on Unix). Callers must check the descriptor's type before reading.
func OpenNoHang(ops Ops, name string) (*os.File, error) {
	return ops.OpenFile(name, openReadFlags, 0)
}

// ReadBounded reads f to EOF, failing with ErrTooLarge once more than limit bytes arrive. The
// stat size only sizes the buffer: the file may change under us, so the limit is enforced on
// what is actually read.
func ReadBounded(f *os.File, sizeHint, limit int64) ([]byte, error) {
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
		return nil, ErrTooLarge
	}
	return buf, nil
}

// WriteAtomic replaces path with data: a temp file in the same directory, fsync, rename over
// the target, then a directory fsync. Readers see the old or the new file, never a torn one; a
// symlink at path is replaced, not followed. The temp name is <base><digits>, as docker-agent's
// writer makes it, so it never ends in ".json" and no listing or watcher mistakes it for a plan.
// The messages mirror the ones docker-agent's atomic writer produces. The file's mode is 0600.
func WriteAtomic(ops Ops, path string, data []byte) error {
	return WriteAtomicMode(ops, path, data, 0o600)
}

// WriteAtomicMode is WriteAtomic with the file's mode (exactly mode: the umask does not narrow it).
func WriteAtomicMode(ops Ops, path string, data []byte, mode fs.FileMode) error {
	dir, base := filepath.Dir(path), filepath.Base(path)
	var (
		f   *os.File
		tmp string
		err error
	)
	for range 10000 {
		tmp = filepath.Join(dir, base+strconv.FormatUint(uint64(rand.Uint32()), 10))
		f, err = ops.OpenFile(tmp, os.O_RDWR|os.O_CREATE|os.O_EXCL, 0o600)
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
		_ = ops.Remove(tmp)
		return err
	}
	if _, err := f.Write(data); err != nil {
		return fail(fmt.Errorf("cannot write data to tempfile %q: %w", tmp, err))
	}
	if err := f.Sync(); err != nil {
		return fail(fmt.Errorf("can't flush tempfile %q: %w", tmp, err))
	}
	// The umask may have narrowed the mode at creation; the result must be exactly mode.
	if err := f.Chmod(mode); err != nil {
		return fail(fmt.Errorf("can't set filemode on tempfile %q: %w", tmp, err))
	}
	if err := f.Close(); err != nil {
		return fail(fmt.Errorf("can't close tempfile %q: %w", tmp, err))
	}
	if err := ops.Rename(tmp, path); err != nil {
		return fail(fmt.Errorf("cannot replace %q with tempfile %q: %w", path, tmp, err))
	}
	syncDir(ops, dir)
	return nil
}

// syncDir makes the rename durable. It is best effort on purpose: the new file is already in
// place and visible, so reporting a failure here would tell the caller a write failed that
// every reader can see succeeded.
func syncDir(ops Ops, dir string) {
	d, err := OpenNoHang(ops, dir)
	if err != nil {
		return
	}
	_ = d.Sync()
	_ = d.Close()
}

// ErrTooLarge is a read that went past its limit.
var ErrTooLarge = errors.New("file is over the size limit")
