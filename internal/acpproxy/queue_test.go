package acpproxy

import (
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/plandash/plandash/internal/acp"
)

func testPlanFrame(session, plan string, version int) frame {
	line := fmt.Sprintf(`{"jsonrpc":"2.0","method":"session/update","params":{"sessionId":%q,"update":{"sessionUpdate":"plan_update","plan":{"type":"markdown","planId":%q,"content":"v%d"}}}}`, session, plan, version)
	return newFrame(acp.AgentToClient, time.Time{}, []byte(line))
}

func chunkFrame(i int) frame {
	return newFrame(acp.AgentToClient, time.Time{}, []byte(fmt.Sprintf(`{"jsonrpc":"2.0","method":"session/update","params":{"sessionId":"s","update":{"sessionUpdate":"agent_message_chunk","content":{"type":"text","text":"%d"}}}}`, i)))
}

// contents lists what a batch carries: "plan:v3" or "chunk:12".
func contents(fs []frame) string {
	var out []string
	for _, f := range fs {
		s := string(f.line)
		switch {
		case f.key != "":
			i := strings.Index(s, `"content":"`)
			out = append(out, strings.SplitN(f.key, "\x00", 2)[1]+":"+s[i+11:i+13])
		default:
			i := strings.Index(s, `"text":"`)
			out = append(out, "chunk:"+strings.TrimRight(s[i+8:], `"}`))
		}
	}
	return strings.Join(out, " ")
}

func TestPlanKey(t *testing.T) {
	for _, tc := range []struct{ line, key string }{
		{`{"jsonrpc":"2.0","method":"session/update","params":{"sessionId":"s","update":{"sessionUpdate":"plan","entries":[]}}}`, "s\x00main"},
		{`{"jsonrpc":"2.0","method":"session/update","params":{"sessionId":"s","update":{"sessionUpdate":"plan_update","plan":{"type":"items","planId":"p","entries":[]}}}}`, "s\x00p"},
		{`{"jsonrpc":"2.0","method":"session/update","params":{"sessionId":"s","update":{"sessionUpdate":"plan_update","plan":{"type":"items","id":"old","entries":[]}}}}`, "s\x00old"},
		{`{"jsonrpc":"2.0","method":"session/update","params":{"sessionId":"s","update":{"sessionUpdate":"plan_removed","planId":"p"}}}`, "s\x00p"},
		{`{ "jsonrpc": "2.0", "method": "session/update", "params": { "sessionId": "s", "update": { "sessionUpdate": "plan", "entries": [] } } }`, "s\x00main"},
		{`{"jsonrpc":"2.0","method":"session/update","params":{"sessionId":"s","update":{"sessionUpdate":"tool_call","toolCallId":"t","title":"plan","rawInput":{"plan":"x"}}}}`, ""},
		{`{"jsonrpc":"2.0","method":"session/update","params":{"sessionId":"s","update":{"sessionUpdate":"plan_update","plan":{"type":"items","entries":[]}}}}`, ""},
		{`{"sessionUpdate":"plan" not json`, ""},
	} {
		if got := planKey([]byte(tc.line)); got != tc.key {
			t.Errorf("planKey(%s) = %q, want %q", tc.line, got, tc.key)
		}
	}
}

func TestFrameQueueKeepsLatestPlans(t *testing.T) {
	q := newFrameQueue(10, 1<<20)
	q.maxPinned = 0
	var fs []frame
	for i := range 50 {
		fs = append(fs, chunkFrame(i))
		if i%10 == 0 {
			fs = append(fs, testPlanFrame("s", "a", i/10), testPlanFrame("s", "b", i/10))
		}
	}
	q.push(fs)
	batch := q.take(100, 1<<20)
	// Eight chunks fit beside the two plans; the oldest chunks went; once the queue was full
	// (the dashboard behind), each plan was kept at its latest only.
	if got, want := contents(batch), "a:v4 b:v4 chunk:42 chunk:43 chunk:44 chunk:45 chunk:46 chunk:47 chunk:48 chunk:49"; got != want {
		t.Errorf("queue holds\n %s\nwant\n %s", got, want)
	}
	if st := q.snapshot(); st.Dropped != 42 || st.Coalesced != 8 {
		t.Errorf("stats %+v, want 42 dropped and 8 coalesced", st)
	}
}

func TestFrameQueueRequeue(t *testing.T) {
	q := newFrameQueue(100, 1<<20)
	q.push([]frame{chunkFrame(1), testPlanFrame("s", "a", 1), chunkFrame(2)})
	batch := q.take(2, 1<<20)
	if q.take(10, 1<<20) != nil {
		t.Fatal("a second batch was handed out while one is out")
	}
	q.push([]frame{testPlanFrame("s", "a", 2), chunkFrame(3)})
	q.requeue(batch) // the post failed; a:v1 has been superseded meanwhile
	if got, want := contents(q.take(10, 1<<20)), "chunk:1 chunk:2 a:v2 chunk:3"; got != want {
		t.Errorf("after requeue: %s, want %s", got, want)
	}
}

func TestFrameQueuePinsOpeningFrames(t *testing.T) {
	q := newFrameQueue(5, 1<<20)
	q.maxPinned = 2
	var fs []frame
	for i := range 20 {
		fs = append(fs, chunkFrame(i))
	}
	q.push(fs)
	if got, want := contents(q.take(100, 1<<20)), "chunk:0 chunk:1 chunk:17 chunk:18 chunk:19"; got != want {
		t.Errorf("got %s, want %s: the opening frames (initialize, session/new) are kept", got, want)
	}
}

func TestFrameQueueBatchBytes(t *testing.T) {
	q := newFrameQueue(100, 1<<20)
	q.push([]frame{chunkFrame(1), chunkFrame(2), chunkFrame(3)})
	one := len(chunkFrame(1).line)
	if got := q.take(100, one+1); len(got) != 1 {
		t.Errorf("took %d frames in %d bytes, want 1", len(got), one+1)
	}
	q.done()
	if got := q.take(100, 1); len(got) != 1 {
		t.Errorf("a frame bigger than the batch must still go alone; took %d", len(got))
	}
}

// slowClock is the queue's clock, moved by hand.
type slowClock struct{ t time.Time }

func (c *slowClock) now() time.Time { return c.t }

// TestFrameQueueCoalescesOnlyWhenBehind: while posts come back in time every state of a plan
// is kept; once a post is out too long, or failed, only the newest, with the count it replaced.
func TestFrameQueueCoalescesOnlyWhenBehind(t *testing.T) {
	clock := &slowClock{t: time.Unix(1000, 0)}
	q := newFrameQueue(100, 1<<20)
	q.now, q.slow = clock.now, time.Second
	q.push([]frame{testPlanFrame("s", "a", 1)})
	batch := q.take(10, 1<<20)
	q.push([]frame{testPlanFrame("s", "a", 2), testPlanFrame("s", "a", 3)}) // a post in flight, in time
	q.done()
	if got, want := contents(q.take(10, 1<<20)), "a:v2 a:v3"; got != want || len(batch) != 1 {
		t.Fatalf("healthy: %s, want %s", got, want)
	}
	clock.t = clock.t.Add(2 * time.Second) // that post is now out too long
	q.push([]frame{testPlanFrame("s", "a", 4), testPlanFrame("s", "b", 1), testPlanFrame("s", "a", 5)})
	q.done()
	got := q.take(10, 1<<20)
	if contents(got) != "b:v1 a:v5" || got[1].skipped != 1 || got[0].skipped != 0 {
		t.Fatalf("slow post: %s (skipped %v), want b:v1 a:v5 with a:v4 counted", contents(got), got)
	}
	q.push([]frame{testPlanFrame("s", "a", 6)})
	q.requeue(got) // the post failed: a:v5 is superseded and counted with the one it replaced
	got = q.take(10, 1<<20)
	if contents(got) != "b:v1 a:v6" || got[1].skipped != 2 {
		t.Fatalf("after a failed post: %s, want b:v1 a:v6 with 2 skipped", contents(got))
	}
	if st := q.snapshot(); st.Coalesced != 2 {
		t.Errorf("coalesced %d, want 2", st.Coalesced)
	}
}

// waitedFor waits until a push has waited for room n times in all.
func waitedFor(t *testing.T, q *frameQueue, n int) {
	t.Helper()
	for end := time.Now().Add(testTimeout); ; time.Sleep(time.Millisecond) {
		q.mu.Lock()
		w := q.waits
		q.mu.Unlock()
		if w >= n {
			return
		}
		if time.Now().After(end) {
			t.Fatalf("no push waited for room (%d of %d)", w, n)
		}
	}
}

// TestFrameQueueWaitsForRoomWhileTheDashboardKeepsUp: with a sink posting and posts coming back,
// a full queue holds the tap back until a batch goes out, and nothing is dropped.
func TestFrameQueueWaitsForRoomWhileTheDashboardKeepsUp(t *testing.T) {
	q := newFrameQueue(2, 1<<20)
	q.maxPinned = 0 // none of these frames is an opening one, which is never dropped
	q.attach()
	q.push([]frame{chunkFrame(1), chunkFrame(2)})
	pushed := make(chan struct{})
	go func() {
		q.push([]frame{chunkFrame(3)})
		close(pushed)
	}()
	waitedFor(t, q, 1)
	got := contents(q.take(1, 1<<20))
	q.done()
	<-pushed
	got += " " + contents(q.take(10, 1<<20))
	if want := contents([]frame{chunkFrame(1), chunkFrame(2), chunkFrame(3)}); got != want {
		t.Errorf("posted %s, want %s", got, want)
	}
	if st := q.snapshot(); st.Dropped != 0 {
		t.Errorf("dropped %d frames while the dashboard kept up", st.Dropped)
	}
}

// TestFrameQueueDropsWhenNobodyWaits: with no sink, or a dashboard that failed or is slow, or a
// closed queue, a full queue drops the oldest frame rather than hold the tap.
func TestFrameQueueDropsWhenNobodyWaits(t *testing.T) {
	cases := map[string]func(q *frameQueue, clock *slowClock){
		"no sink": func(q *frameQueue, _ *slowClock) { q.detach() },
		"post failed": func(q *frameQueue, _ *slowClock) {
			q.requeue(q.take(1, 1<<20))
			q.push([]frame{chunkFrame(9)}) // full again
		},
		"post out too long": func(q *frameQueue, clock *slowClock) {
			q.take(1, 1<<20)
			q.push([]frame{chunkFrame(9)}) // full again, with a post out
			clock.t = clock.t.Add(2 * time.Second)
		},
		"closed": func(q *frameQueue, _ *slowClock) { q.close() },
	}
	for name, setUp := range cases {
		t.Run(name, func(t *testing.T) {
			clock := &slowClock{t: time.Unix(1000, 0)}
			q := newFrameQueue(2, 1<<20)
			q.now, q.slow, q.maxPinned = clock.now, time.Second, 0
			q.attach()
			q.push([]frame{chunkFrame(1), chunkFrame(2)})
			setUp(q, clock)
			before := q.snapshot().Dropped
			q.push([]frame{chunkFrame(3)}) // returns at once, or the test times out
			if st := q.snapshot(); st.Dropped != before+1 {
				t.Errorf("dropped %d frames, want %d", st.Dropped, before+1)
			}
			q.mu.Lock()
			defer q.mu.Unlock()
			if q.waits != 0 {
				t.Errorf("the push waited %d times", q.waits)
			}
		})
	}
}
