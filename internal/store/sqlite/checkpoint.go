package sqlite

import (
	"database/sql"
	"sync"
	"time"
)

// checkpointQuiet is how long a file must go without a commit before its WAL is copied back
// into it: the checkpointer looks this often. checkpointAtLeast is how long a file that is
// never quiet (a wait every 200 ms, all day) goes without one.
const (
	checkpointQuiet   = 250 * time.Millisecond
	checkpointAtLeast = 10 * time.Second
)

// writerCheckpoint is the writer's own threshold, in pages, kept as the backstop when the
// checkpointer cannot finish (readers in the WAL) or the file is never quiet: about 120 MB,
// some 2.5 times what a thousand waits, begun and decided within two seconds, write to the
// outbox (11,000 pages). At 10,000 it struck within such a burst, in the commit that crossed
// it, and that 40–50 ms checkpoint held the gate's commits for 27–31 ms.
const writerCheckpoint = "&_pragma=wal_autocheckpoint(30000)"

// checkpointer copies a file's WAL back into it once the file has had no commit for
// checkpointQuiet, or checkpointAtLeast after the last time, on a connection of its own,
// until closed.
//
// SQLite's automatic checkpoint runs inside the commit that crosses its threshold (1,000
// pages) and waits for the disk twice (WAL, then file): with many small commits that was one
// in about seventy taking milliseconds longer. On the outbox file it was the 99th percentile
// of BenchmarkWaitToWebhook from the stored wait (4.7–6.2 ms, 2.0–2.4 ms without).
//
// A checkpoint on a clock (every second) took no lock a writer waits for, but its two fsyncs
// write out everything committed since the last one (at a thousand waits a second some 6,000
// pages, 24 MB), which took 6–32 ms, and the gate's commits on the main file, each an fsync on
// the same disk, waited behind them: in BenchmarkThousandWaits nearly every submission that
// overlapped a checkpoint took over 5 ms, some 25 of the burst's 2,000 calls, enough to set
// its p99. Checkpoints every 100 ms were worse (2–12 ms each, ten times as many). The commits
// of notifications follow the gate's, so a quiet outbox is a quiet gate: checkpointing then
// costs nobody a wait. A burst of a thousand waits now writes no checkpoint until it is over.
type checkpointer struct {
	db            *sql.DB
	stop, stopped chan struct{}
	once          sync.Once
}

// startCheckpoints opens a connection to the file at dsn and checkpoints it until Close.
func startCheckpoints(dsn string) (*checkpointer, error) {
	db, err := sql.Open("sqlite", dsn)
	if err != nil {
		return nil, err
	}
	db.SetMaxOpenConns(1)
	c := &checkpointer{db: db, stop: make(chan struct{}), stopped: make(chan struct{})}
	go c.run()
	return c, nil
}

func (c *checkpointer) run() {
	defer close(c.stopped)
	t := time.NewTicker(checkpointQuiet)
	defer t.Stop()
	// PRAGMA data_version changes when another connection commits: seen is its value at the
	// last look, done at the last checkpoint that copied everything.
	seen, done := int64(-1), int64(-1)
	last := time.Now()
	for {
		select {
		case <-c.stop:
			return
		case <-t.C:
		}
		var v int64
		if err := c.db.QueryRow(`PRAGMA data_version`).Scan(&v); err != nil {
			continue
		}
		quiet := v == seen // no commit since the last look
		seen = v
		if v == done || (!quiet && time.Since(last) < checkpointAtLeast) {
			continue
		}
		// A failure is tried again at the next look; the writer's own threshold is the backstop.
		last = time.Now()
		var busy, log, copied int
		if err := c.db.QueryRow(`PRAGMA wal_checkpoint(PASSIVE)`).Scan(&busy, &log, &copied); err == nil && log == copied {
			done = v // all of it copied: no reader held a page back
		}
	}
}

// Close stops the checkpoints and closes their connection; a nil one does nothing.
func (c *checkpointer) Close() error {
	if c == nil {
		return nil
	}
	var err error
	c.once.Do(func() {
		close(c.stop)
		<-c.stopped
		err = c.db.Close()
	})
	return err
}
