package sqlite

import (
	"database/sql"
	"sync"
	"time"
)

// checkpointEvery is how often a file's WAL is copied back into it.
const checkpointEvery = time.Second

// writerCheckpoint is the writer's own threshold, in pages, kept as the backstop when the
// checkpointer cannot finish (readers in the WAL): about 40 MB.
const writerCheckpoint = "&_pragma=wal_autocheckpoint(10000)"

// checkpointer copies a file's WAL back into it every checkpointEvery, on a connection of its
// own, until closed. SQLite's automatic checkpoint runs inside the commit that crosses its
// threshold (1,000 pages) and waits for the disk twice (WAL, then file): with many small
// commits that was one in about seventy taking milliseconds longer. On the outbox file it was
// the 99th percentile of BenchmarkWaitToWebhook from the stored wait (4.7–6.2 ms, 2.0–2.4 ms
// without). A PASSIVE checkpoint takes no lock a writer waits for.
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
	t := time.NewTicker(checkpointEvery)
	defer t.Stop()
	for {
		select {
		case <-c.stop:
			return
		case <-t.C:
			// A failure is tried again next tick; the writer's own threshold is the backstop.
			c.db.Exec(`PRAGMA wal_checkpoint(PASSIVE)`)
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
