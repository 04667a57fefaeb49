package follow

import (
	"fmt"
	"io"
	"os"
)

// ReadSmall reads a small file that sits next to followed ones (a project's marker naming its
// directory) the same careful way: no symlink in its last step, never a FIFO or device, and
// at most max bytes (a bigger file is refused).
func ReadSmall(path string, max int64) ([]byte, error) {
	f, err := os.OpenFile(path, openFlags, 0)
	if err != nil {
		if isSymlinkErr(path) {
			return nil, fmt.Errorf("%s: %w", path, errNotRegular)
		}
		return nil, err
	}
	defer f.Close()
	fi, err := f.Stat()
	if err != nil {
		return nil, err
	}
	if !fi.Mode().IsRegular() {
		return nil, fmt.Errorf("%s: %w", path, errNotRegular)
	}
	if fi.Size() > max {
		return nil, fmt.Errorf("%s: over %d bytes", path, max)
	}
	b, err := io.ReadAll(io.LimitReader(f, max+1))
	if err != nil {
		return nil, err
	}
	if int64(len(b)) > max {
		return nil, fmt.Errorf("%s: over %d bytes", path, max)
	}
	return b, nil
}
