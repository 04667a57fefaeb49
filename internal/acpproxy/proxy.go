// Package acpproxy is the stdio proxy of `plandash acp`: it sits between an IDE and the real
// ACP agent, forwards every byte both ways, and on the side taps the frames to a plandash server
// (Tap, Sink), bridges the plan capability (PlanUpdates), relays permission requests to the
// dashboard (RemoteBroker) and supervises the agent process (Agent). The wire format itself is
// internal/acp's.
package acpproxy

import (
	"bufio"
	"bytes"
	"errors"
	"io"
	"log/slog"
	"sync"

	"github.com/plandash/plandash/internal/acp"
)

// Proxy sits between an ACP client (the IDE) and the real agent and forwards every byte both
// ways. Each direction is one goroutine that reads from one peer and writes to the other itself,
// so the forwarding path has no goroutine hop. The tap's work (splitting lines, reading plans,
// queueing frames for the dashboard) runs on a goroutine of its own: the forwarding path only
// queues a copy of each chunk for it before writing the chunk on (so the dashboard sees a
// request before the answer the other goroutine may forward a moment later), and never blocks.
//
// With no capability bridge and approvals left to the IDE, the proxy forwards what it reads as it
// reads it, like cat. Otherwise both directions are forwarded line by line so that a frame can be
// rewritten, withheld, or have the proxy's own frame slotted in between two others.
type Proxy struct {
	ClientIn  io.Reader      // what the IDE sends
	ClientOut io.Writer      // toward the IDE
	AgentIn   io.WriteCloser // toward the agent; closed when ClientIn ends
	AgentOut  io.Reader      // what the agent sends

	// Tap receives a copy of every frame; nil taps nothing.
	Tap *Tap
	// PlanUpdates turns on the capability bridge (see bridge).
	PlanUpdates bool
	// Approvals says who answers the agent's permission requests; anything but ApprovalsIDE
	// needs Broker.
	Approvals Approvals
	Broker    PermissionBroker
	// OnClientGone runs once when the IDE stops reading (a write to ClientOut failed), so the
	// caller can end the agent instead of letting it talk to nobody.
	OnClientGone func()
	// OnAgentDone, if set, runs once the agent's output has ended, before Run waits for the tap
	// to take the rest of what was forwarded (the tap waits on a dashboard that keeps up): the
	// caller's bound on delivering after the agent is gone starts here.
	OnAgentDone func()
	Log         *slog.Logger

	toClient, toAgent *peerWriter
	feeder            *tapFeeder
	bridge            *bridge
	perms             *permissions
}

// maxInspect is the longest line the line-by-line mode holds in memory to look at. Longer lines
// (tens of MiB of tool output) cannot be plan or permission frames worth rewriting; they are
// streamed through as they arrive.
const maxInspect = 16 << 20

// pumpBufSize matches what cat reads at a time, so large transfers take as few syscalls.
const pumpBufSize = 128 << 10

// Run forwards until the agent's output ends, and returns then. The IDE→agent goroutine goes on
// until ClientIn ends (it may be blocked reading a terminal that nobody closes; the process
// exits around it). Write errors toward a peer that has gone are not returned: the other
// direction still drains, so neither peer blocks on a full pipe.
func (p *Proxy) Run() error {
	if p.Log == nil {
		p.Log = slog.New(slog.DiscardHandler)
	}
	if p.Approvals != ApprovalsIDE && p.Broker == nil {
		return errors.New("acp proxy: approvals from the dashboard need a permission broker")
	}
	if p.Tap != nil {
		p.feeder = newTapFeeder(p.Tap, feederMaxBytes)
		// The caller reads the tap once Run returns: it must hold what was forwarded so far.
		// What the IDE still sends goes on being tapped until its stream ends too.
		defer p.feeder.drain()
	}
	p.toClient = &peerWriter{w: p.ClientOut, dir: acp.AgentToClient, feed: p.feeder, onFail: p.OnClientGone}
	p.toAgent = &peerWriter{w: p.AgentIn, dir: acp.ClientToAgent, feed: p.feeder}
	lineMode := p.PlanUpdates || p.Approvals != ApprovalsIDE
	if p.PlanUpdates {
		p.bridge = newBridge()
	}
	if p.Approvals != ApprovalsIDE {
		p.perms = newPermissions(p.Approvals, p.Broker, p.toAgent, p.toClient, p.Log)
	}
	var afterWrite func()
	if p.perms != nil {
		afterWrite = p.perms.runOffers
	}
	go func() {
		if lineMode {
			p.lines(p.ClientIn, p.toAgent, p.fromClient, nil)
		} else {
			p.raw(p.ClientIn, p.toAgent)
		}
		// The IDE is done: EOF on the agent's stdin is how ACP says so.
		p.AgentIn.Close()
	}()
	if lineMode {
		p.lines(p.AgentOut, p.toClient, p.fromAgent, afterWrite)
	} else {
		p.raw(p.AgentOut, p.toClient)
	}
	if p.OnAgentDone != nil {
		p.OnAgentDone()
	}
	if p.perms != nil {
		p.perms.agentGone()
	}
	return nil
}

// raw copies in to out chunk by chunk: the transparent mode.
func (p *Proxy) raw(in io.Reader, out *peerWriter) {
	buf := make([]byte, pumpBufSize)
	for {
		n, err := in.Read(buf)
		if n > 0 {
			out.send(buf[:n])
		}
		if err != nil {
			out.endPartial()
			return
		}
	}
}

// verdict is what a filter decided about one line.
type verdict int

const (
	pass    verdict = iota // forward the line as it came
	replace                // forward the replacement instead
	drop                   // forward nothing
)

// filter looks at one complete line (without its terminator) on the forwarding goroutine; it
// must be quick and must not block.
type filter func(line []byte) (verdict, []byte)

// lines forwards in to out one line at a time through f, batching every line already buffered
// into one write so a burst costs one syscall, as in raw mode. after, if set, runs after each
// write.
func (p *Proxy) lines(in io.Reader, out *peerWriter, f filter, after func()) {
	br := bufio.NewReaderSize(in, pumpBufSize)
	// orig is the batch as the peer sent it. While nothing had to be copied it is a window on
	// bufio's buffer (aliased): the batch is written before the buffer is ever refilled, because
	// a write happens as soon as no complete line is left buffered.
	var orig, own []byte
	var aliased bool
	var batch []byte // the batch as forwarded, once a filter changed a line
	var changed bool // batch is in use
	var long []byte  // a line longer than bufio's buffer, being assembled
	add := func(line []byte, inBuffer bool) {
		switch {
		case len(orig) == 0 && inBuffer:
			orig, aliased = line, true
		case aliased && inBuffer && follows(orig, line):
			orig = orig[:len(orig)+len(line)]
		default:
			if aliased {
				own, aliased = append(own[:0], orig...), false
				orig = own
			}
			orig = append(orig, line...)
		}
	}
	flush := func() {
		switch {
		case changed:
			out.sendLines(batch, orig)
		case len(orig) > 0:
			out.sendLines(orig, orig)
		}
		orig, aliased, batch, changed = nil, false, batch[:0], false
		if cap(own) > 4<<20 || cap(batch) > 4<<20 {
			own, batch = nil, nil // one huge line should not pin its buffer for the rest of the run
		}
		if after != nil {
			after()
		}
	}
	for {
		chunk, err := br.ReadSlice('\n')
		if errors.Is(err, bufio.ErrBufferFull) {
			long = append(long, chunk...)
			if len(long) > maxInspect {
				flush()
				out.send(long)
				long = nil
				p.stream(br, out)
			}
			continue
		}
		line, inBuffer := chunk, true
		if len(long) > 0 {
			long = append(long, chunk...)
			line, inBuffer = long, false
		}
		if len(line) > 0 {
			v, repl := f(trimEOL(line))
			if v != pass && !changed {
				batch, changed = append(batch[:0], orig...), true
			}
			add(line, inBuffer)
			switch {
			case v == replace:
				batch = append(append(batch, repl...), '\n')
			case v == pass && changed:
				batch = append(batch, line...)
			}
			if long = long[:0]; cap(long) > 4<<20 {
				long = nil
			}
		}
		if err != nil {
			flush()
			out.endPartial()
			return
		}
		// Write when nothing more is ready, so a lone frame goes out at once and a burst goes
		// out together.
		if br.Buffered() == 0 || bytes.IndexByte(peekBuffered(br), '\n') < 0 || len(orig) >= pumpBufSize {
			flush()
		}
	}
}

// follows reports whether b starts right where a ends, in the same array.
func follows(a, b []byte) bool {
	return len(b) > 0 && cap(a) > len(a) && &a[:len(a)+1][len(a)] == &b[0]
}

// stream forwards the rest of an over-long line as it arrives, uninspected.
func (p *Proxy) stream(br *bufio.Reader, out *peerWriter) {
	for {
		chunk, err := br.ReadSlice('\n')
		if len(chunk) > 0 {
			out.send(chunk)
		}
		if !errors.Is(err, bufio.ErrBufferFull) {
			return
		}
	}
}

func peekBuffered(br *bufio.Reader) []byte {
	b, _ := br.Peek(br.Buffered())
	return b
}

// trimEOL drops a trailing "\n" or "\r\n".
func trimEOL(b []byte) []byte {
	if n := len(b); n > 0 && b[n-1] == '\n' {
		b = b[:n-1]
		if n := len(b); n > 0 && b[n-1] == '\r' {
			b = b[:n-1]
		}
	}
	return b
}

// fromClient is the IDE→agent filter.
func (p *Proxy) fromClient(line []byte) (verdict, []byte) {
	if p.perms != nil && p.perms.fromClient(line) == drop {
		return drop, nil
	}
	if p.bridge != nil {
		return p.bridge.fromClient(line)
	}
	return pass, nil
}

// fromAgent is the agent→IDE filter.
func (p *Proxy) fromAgent(line []byte) (verdict, []byte) {
	if p.perms != nil && p.perms.fromAgent(line) == drop {
		return drop, nil
	}
	if p.bridge != nil {
		return p.bridge.fromAgent(line)
	}
	return pass, nil
}

// peerWriter serialises everything written toward one peer: forwarded bytes and the proxy's own
// frames. The tap's copy is queued under the same lock, so the tap sees frames in exactly the
// order the peer receives them.
type peerWriter struct {
	mu     sync.Mutex
	w      io.Writer
	dir    acp.Direction
	feed   *tapFeeder // nil taps nothing
	failed bool
	onFail func()
}

// send taps and writes b, the peer's own bytes.
func (pw *peerWriter) send(b []byte) {
	pw.mu.Lock()
	defer pw.mu.Unlock()
	if pw.feed != nil {
		pw.feed.put(pw.dir, b)
	}
	pw.write(b)
}

// sendLines writes out (the lines as forwarded) and taps orig (the lines as the peer sent them):
// the dashboard should see what the agent really said, not the bridge's down-conversion.
func (pw *peerWriter) sendLines(out, orig []byte) {
	pw.mu.Lock()
	defer pw.mu.Unlock()
	if pw.feed != nil && len(orig) > 0 {
		pw.feed.put(pw.dir, orig)
	}
	if len(out) > 0 {
		pw.write(out)
	}
}

// inject writes one frame of the proxy's own, whole, between the peer's lines. It is tapped in
// the direction it travels.
func (pw *peerWriter) inject(frame []byte) {
	line := append(bytes.Clone(frame), '\n')
	pw.mu.Lock()
	defer pw.mu.Unlock()
	if pw.feed != nil {
		pw.feed.put(pw.dir, line)
	}
	pw.write(line)
}

// endPartial tells the tap the stream ended, so a last line without "\n" is still seen.
func (pw *peerWriter) endPartial() {
	pw.mu.Lock()
	defer pw.mu.Unlock()
	if pw.feed != nil {
		pw.feed.end(pw.dir)
	}
}

func (pw *peerWriter) write(b []byte) {
	if pw.failed {
		return // the peer is gone; keep draining the other side so it never blocks
	}
	if _, err := pw.w.Write(b); err != nil {
		pw.failed = true
		if pw.onFail != nil {
			go pw.onFail()
		}
	}
}
