package sharedplans

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"time"
)

// TempMaxAge is how old a leftover temp file must be before CleanTemp removes it. A live
// atomic write keeps its temp file for milliseconds; a minute leaves a wide margin for a slow
// disk or a writer (docker-agent builds before 07-28) that does not take the plans lock.
const TempMaxAge = time.Minute

// TempSweepInterval is how often a running Watcher removes temp files that have grown old since
// the last pass, so a crash while plandash runs leaves nothing behind for long (at most
// TempMaxAge + TempSweepInterval).
const TempSweepInterval = 30 * time.Second

// CleanTemp removes the temp files that crashed atomic writes left in the plans directory:
// regular files named exactly <name>.json<digits> (the writer's <base><up to 10 digits>, for a
// valid plan name) whose modification time is more than TempMaxAge before the store's clock.
// Nothing else is ever touched: not plans, not the lock file, not directories or symlinks, not
// look-alikes. It takes no lock, so a stuck lock holder cannot delay start-up; the age rule is
// what keeps it off a write in progress. A missing directory is not an error. It returns the
// base names it removed, for the log.
func (s *Store) CleanTemp(ctx context.Context) (removed []string, err error) {
	entries, err := os.ReadDir(s.dir)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("cleaning temp files: %w", err)
	}
	cutoff := s.now().Add(-TempMaxAge)
	var errs []error
	for _, e := range entries {
		if err := ctx.Err(); err != nil {
			return removed, err
		}
		// Type comes from the directory entry, so a symlink is seen as one and never followed.
		if !e.Type().IsRegular() || !isTempName(e.Name()) {
			continue
		}
		info, err := e.Info()
		if errors.Is(err, fs.ErrNotExist) {
			continue // its writer renamed or removed it meanwhile
		}
		if err != nil {
			errs = append(errs, err)
			continue
		}
		if !info.Mode().IsRegular() || !info.ModTime().Before(cutoff) {
			continue
		}
		if err := os.Remove(filepath.Join(s.dir, e.Name())); err != nil && !errors.Is(err, fs.ErrNotExist) {
			errs = append(errs, err)
			continue
		}
		removed = append(removed, e.Name())
	}
	if err := errors.Join(errs...); err != nil {
		return removed, fmt.Errorf("cleaning temp files: %w", err)
	}
	return removed, nil
}

// isTempName reports whether file is <name>.json<digits> with a valid plan name and 1 to 10
// digits: a random uint32 in decimal, the only suffix files.WriteAtomic and docker-agent's
// writer make.
func isTempName(file string) bool {
	i := strings.LastIndex(file, ".json")
	if i <= 0 {
		return false
	}
	digits := file[i+len(".json"):]
	if len(digits) == 0 || len(digits) > 10 {
		return false
	}
	for j := 0; j < len(digits); j++ {
		if digits[j] < '0' || digits[j] > '9' {
			return false
		}
	}
	return validName(file[:i])
}
