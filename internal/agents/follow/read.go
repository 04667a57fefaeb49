package follow

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
)

// Bounds on one batch handed to apply.
const (
	maxBatchLines = 256
	maxBatchBytes = 4 << 20
)

// tailFile is one file being followed.
type tailFile struct {
	path     string
	mark     fileMark
	p        Parser
	failedAt int64 // offset of a batch apply refused, to log once per failure
}

func (t *Follower) newFile(path string, m fileMark) *tailFile {
	return &tailFile{path: path, mark: m, p: t.src.New(path, m.Saved)}
}

// errApply marks an apply failure: the file is tried again later from the same offset.
var errApply = errors.New("apply failed")

// errNotRegular is a followed path that is not a regular file (a FIFO, a symlink, a device):
// it is never read.
var errNotRegular = errors.New("not a regular file")

// isSymlinkErr reports whether path is a symlink, which O_NOFOLLOW refused to open.
func isSymlinkErr(path string) bool {
	fi, err := os.Lstat(path)
	return err == nil && fi.Mode()&os.ModeSymlink != 0
}

// read applies what was appended to f since its mark: complete lines only (a partial last line
// waits for its newline), in batches bounded in lines and bytes. The mark advances only past
// batches that were applied.
func (t *Follower) read(ctx context.Context, f *tailFile) error {
	fh, err := os.OpenFile(f.path, openFlags, 0)
	if err != nil {
		if isSymlinkErr(f.path) {
			return fmt.Errorf("%s: %w", f.path, errNotRegular)
		}
		return err
	}
	defer fh.Close()
	fi, err := fh.Stat()
	if err != nil {
		return err
	}
	if !fi.Mode().IsRegular() {
		return fmt.Errorf("%s: %w", f.path, errNotRegular)
	}
	if fi.Size() < f.mark.Offset {
		// Truncated or replaced: start over (agents only append, so this is someone else's file).
		*f = *t.newFile(f.path, fileMark{})
	}
	f.mark.ModNano = fi.ModTime().UnixNano()
	if fi.Size() == f.mark.Offset {
		return nil
	}
	if _, err := fh.Seek(f.mark.Offset, io.SeekStart); err != nil {
		return err
	}
	r := bufio.NewReaderSize(io.LimitReader(fh, fi.Size()-f.mark.Offset), 64<<10)
	next := f.mark // the mark once the pending lines are applied
	var pending, size int
	flush := func() error {
		if pending == 0 {
			f.mark = next // only skipped or blank lines
			return nil
		}
		if err := t.flush(ctx, f, next.Line); err != nil {
			return err
		}
		next.Saved = f.p.Saved()
		f.mark, pending, size = next, 0, 0
		t.dirty = true
		return nil
	}
	var buf []byte
	for {
		chunk, err := r.ReadSlice('\n')
		complete := err == nil
		if err != nil && !errors.Is(err, bufio.ErrBufferFull) && !errors.Is(err, io.EOF) {
			return err
		}
		if !complete && errors.Is(err, io.EOF) {
			if next.Skipping {
				next.Offset += int64(len(chunk)) // the over-long line goes on; keep skipping it
			}
			return flush() // a partial line waits for its newline
		}
		if next.Skipping {
			next.Offset += int64(len(chunk))
			if complete {
				next.Skipping = false
			}
			continue
		}
		if len(buf)+len(chunk) > t.src.MaxLineBytes+1 {
			// Too long to keep: skip to its end, however far that is, reading nothing more of it.
			next.Line++
			t.skips.skipped(f.path, fmt.Errorf("%s:%d: the line is over the %d MiB limit", f.path, next.Line, t.src.MaxLineBytes>>20))
			next.Offset += int64(len(buf) + len(chunk))
			buf, next.Skipping = buf[:0], !complete
			continue
		}
		buf = append(buf, chunk...)
		if !complete {
			continue
		}
		next.Line++
		next.Offset += int64(len(buf))
		if len(bytes.TrimSpace(buf)) > 0 {
			if err := f.p.Line(bytes.TrimRight(buf, "\r\n"), next.Line); err != nil {
				t.skips.skipped(f.path, err)
			} else {
				pending++
				size += len(buf)
			}
		}
		buf = buf[:0]
		if pending >= maxBatchLines || size >= maxBatchBytes {
			if err := flush(); err != nil {
				return err
			}
		}
	}
}

// flush applies the lines taken since the last flush; line is the number of the last one.
func (t *Follower) flush(ctx context.Context, f *tailFile, line int) error {
	actx, cancel := context.WithTimeout(ctx, t.opts.ApplyTimeout)
	defer cancel()
	if err := f.p.Flush(actx); err != nil {
		off := f.mark.Offset
		if f.failedAt != off {
			t.opts.Log.Warn(t.name+": apply failed; will retry", "file", f.path, "line", line, "err", err)
			f.failedAt = off
		}
		return fmt.Errorf("%w: %v", errApply, err)
	}
	f.failedAt = -1
	return nil
}
