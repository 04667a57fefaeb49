// Package hookkit is what every agent's adapter shares: the one hook runner (Run: read the
// event, post it, wait for a person and print the answer or the agent's fallback), reading a
// hook's event from the agent's stdin, bounded in size and time, and cutting text for display
// at a character boundary.
package hookkit

import (
	"context"
	"fmt"
	"io"
	"time"
)

// ReadEvent reads a hook's event from r (the agent's stdin) up to max bytes, giving up after
// limit: the agents close stdin once they have written the event, so anything slower is not the
// agent. An event over max is an error that says so.
func ReadEvent(ctx context.Context, r io.Reader, max int64, limit time.Duration) ([]byte, error) {
	type result struct {
		b   []byte
		err error
	}
	ch := make(chan result, 1)
	go func() {
		b, err := io.ReadAll(io.LimitReader(r, max+1))
		ch <- result{b, err}
	}()
	t := time.NewTimer(limit)
	defer t.Stop()
	select {
	case res := <-ch:
		if res.err == nil && int64(len(res.b)) > max {
			res.err = fmt.Errorf("the event is over the %d MiB limit", max>>20)
		}
		return res.b, res.err
	case <-t.C:
		return nil, fmt.Errorf("stdin was not closed within %s", limit)
	case <-ctx.Done():
		return nil, ctx.Err()
	}
}

// Truncate cuts s to at most max bytes at a character boundary, marking the cut with "…".
func Truncate(s string, max int) string {
	if len(s) <= max {
		return s
	}
	cut := max
	for cut > 0 && s[cut]&0xC0 == 0x80 {
		cut--
	}
	return s[:cut] + "…"
}

// Poster posts a hook event to the dashboard and returns the answer; wait says the event waits
// on a person (a plan at the gate, a question), so the post may last as long as the hook allows.
type Poster interface {
	Post(ctx context.Context, body []byte, wait bool) ([]byte, error)
}
