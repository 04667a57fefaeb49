package acpproxy

import (
	"bytes"
	"os/exec"
	"strings"
	"testing"
	"time"

	"github.com/plandash/plandash/internal/acp"
)

// queuedLines is every line the tap queued, oldest first, with its direction.
func queuedLines(t *testing.T, tap *Tap) []string {
	t.Helper()
	var out []string
	for _, f := range tap.q.take(1<<30, 1<<40) {
		d := "c2a"
		if f.a2c {
			d = "a2c"
		}
		out = append(out, d+" "+string(f.line))
	}
	return out
}

// finish ends both directions and waits until the feeder has fed everything and stopped.
func finish(t *testing.T, f *tapFeeder) {
	t.Helper()
	f.end(acp.ClientToAgent)
	f.end(acp.AgentToClient)
	select {
	case <-f.finished:
	case <-time.After(testTimeout):
		t.Fatal("the feeder never finished")
	}
}

// The feeder gives the tap every chunk of both directions in the order they were forwarded, a
// line split across chunks whole, and the end of a stream's unterminated last line.
func TestTapFeederKeepsForwardingOrder(t *testing.T) {
	tap := NewTap(TapOptions{})
	f := newTapFeeder(tap, 1<<20)
	f.put(acp.ClientToAgent, []byte(`{"id":1,"method":"a"}`+"\n"+`{"id":2,`))
	f.put(acp.AgentToClient, []byte(`{"id":1,"result":{}}`+"\n"))
	f.put(acp.ClientToAgent, []byte(`"method":"b"}`+"\n"))
	f.put(acp.AgentToClient, []byte(`{"id":2,"result":{}}`))
	f.end(acp.AgentToClient)
	finish(t, f)
	got := strings.Join(queuedLines(t, tap), "\n")
	want := strings.Join([]string{
		`c2a {"id":1,"method":"a"}`,
		`a2c {"id":1,"result":{}}`,
		`c2a {"id":2,"method":"b"}`,
		`a2c {"id":2,"result":{}}`,
	}, "\n")
	if got != want {
		t.Fatalf("tapped\n%s\nwant\n%s", got, want)
	}
}

// A feeder far behind drops the tap's copy instead of growing: the line the lost bytes fell in
// is not sent at all (it is not whole), the next whole line is, and the loss is counted.
func TestTapFeederLosesWholeLinesOnly(t *testing.T) {
	tap := NewTap(TapOptions{})
	f := newTapFeeder(tap, 64)
	// Hold the feeder's goroutine off the queue so the bound is reached deterministically.
	f.mu.Lock()
	f.busy = true
	f.pending = append(f.pending, tapChunk{dir: acp.AgentToClient, b: []byte(`{"n":1}` + "\n" + `{"n":2,"pad":"`)})
	f.bytes = 60
	f.mu.Unlock()
	f.put(acp.AgentToClient, []byte(`xxxxxxxxxx"}`+"\n"+`{"n":3}`)) // over the bound: dropped
	f.mu.Lock()
	lost := f.lost[dirSlot(acp.AgentToClient)]
	f.mu.Unlock()
	if !lost {
		t.Fatal("a chunk over the bound was queued, not dropped")
	}
	f.mu.Lock()
	f.bytes = 0
	f.busy = false
	f.mu.Unlock()
	f.put(acp.AgentToClient, []byte(`tail"}`+"\n"+`{"n":4}`+"\n"))
	finish(t, f)
	got := strings.Join(queuedLines(t, tap), "\n")
	if got != "a2c {\"n\":1}\na2c {\"n\":4}" {
		t.Fatalf("tapped\n%s", got)
	}
	if st := tap.Stats(); st.Lost != 1 || st.Oversize != 0 {
		t.Fatalf("stats = %+v", st)
	}
}

// The proxy's forwarding never waits for the tap: with the tap's queue far behind, every byte
// still reaches the peer, in order, and the tap keeps within its bounds.
func TestProxyForwardsWhileTapIsBehind(t *testing.T) {
	var want strings.Builder
	for i := range 2000 {
		want.WriteString(`{"jsonrpc":"2.0","method":"session/update","params":{"sessionId":"s","update":{"sessionUpdate":"agent_message_chunk","content":{"type":"text","text":"` + strings.Repeat("x", i%50) + `"}}}}` + "\n")
	}
	cat := exec.Command("cat")
	agentIn, err := cat.StdinPipe()
	if err != nil {
		t.Fatal(err)
	}
	agentOut, err := cat.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cat.Start(); err != nil {
		t.Fatal(err)
	}
	tap := NewTap(TapOptions{MaxFrames: 10})
	var got bytes.Buffer
	p := &Proxy{ClientIn: strings.NewReader(want.String()), ClientOut: &got, AgentIn: agentIn, AgentOut: agentOut, Tap: tap}
	if err := p.Run(); err != nil {
		t.Fatal(err)
	}
	if err := cat.Wait(); err != nil {
		t.Fatal(err)
	}
	if got.String() != want.String() {
		t.Fatalf("forwarded %d bytes, want %d, or not the same bytes", got.Len(), want.Len())
	}
	if st := tap.Stats(); st.Queued > 10+tap.q.maxPinned || st.Dropped == 0 {
		t.Fatalf("the tap's queue was not bounded: %+v", st)
	}
}

// TestTapFeederHoldsDuringABurst: the tap waits while traffic streams back to back, and only
// then: not for ordinary traffic, not once the stream pauses, not past holdFor or half its
// bound, and not once both streams have ended.
func TestTapFeederHoldsDuringABurst(t *testing.T) {
	now := time.Unix(1000, 0)
	burst := func(change func(f *tapFeeder)) time.Duration {
		f := &tapFeeder{max: 1 << 20}
		f.burstStart, f.burstLast, f.burst = now.Add(-10*time.Millisecond), now.Add(-burstGap/4), burstBytes
		change(f)
		return f.hold(now)
	}
	if d := burst(func(*tapFeeder) {}); d != burstGap*3/4 {
		t.Errorf("in a burst the tap waits %v, want %v (until the stream pauses)", d, burstGap*3/4)
	}
	for name, change := range map[string]func(f *tapFeeder){
		"ordinary traffic":   func(f *tapFeeder) { f.burst = burstBytes - 1 },
		"a pause":            func(f *tapFeeder) { f.burstLast = now.Add(-burstGap) },
		"a burst too long":   func(f *tapFeeder) { f.burstStart = now.Add(-holdFor) },
		"half the bound":     func(f *tapFeeder) { f.bytes = f.max / 2 },
		"both streams ended": func(f *tapFeeder) { f.closed = true },
	} {
		if d := burst(change); d != 0 {
			t.Errorf("%s: the tap waits %v, want 0", name, d)
		}
	}
}
