package follow

import "log/slog"

// skipLog reports skipped lines without flooding the log: per file and interval, the
// first skipped line is logged in full and the others are counted, then summed up in one line
// when the interval ends. A file of a million bad lines costs two log lines a minute, not a
// million. Owned by the Follower's Run goroutine.
type skipLog struct {
	log   *slog.Logger
	name  string
	files map[string]*skipCount // files with a line skipped this interval
}

type skipCount struct {
	more int   // skipped after the first, not logged yet
	last error // the newest of those
}

// skipped records that a line of path was skipped because of err.
func (s *skipLog) skipped(path string, err error) {
	c := s.files[path]
	if c == nil {
		s.files[path] = &skipCount{}
		s.log.Warn(s.name+": line skipped", "file", path, "err", err)
		return
	}
	c.more++
	c.last = err
}

// flush logs one summary per file with lines skipped since its first, and starts a new
// interval.
func (s *skipLog) flush() {
	for path, c := range s.files {
		if c.more > 0 {
			s.log.Warn(s.name+": more lines skipped", "file", path, "count", c.more, "last", c.last)
		}
	}
	clear(s.files)
}
