package acpproxy

import (
	"bytes"
	"time"

	"github.com/plandash/plandash/internal/acp"
)

// TapOptions bound what the tap holds while the dashboard is away.
type TapOptions struct {
	MaxFrames int // frames queued at most (plan frames aside); default 10000
	MaxBytes  int // bytes queued at most; default 32 MiB
	// MaxLine is the longest line sent to the dashboard; longer ones (huge tool output) are
	// forwarded to the peer as always but not sent. Default 4 MiB, the server's line limit.
	MaxLine int
	// Record, when set, receives the transcript as NDJSON envelopes (see Recorder).
	Record *Recorder
	// SlowPost is how long a post to the dashboard may be out before the dashboard counts as
	// behind and the queue keeps only the newest state of each plan; until then every state
	// is kept, so a plan's history has every revision. Default 2 s.
	SlowPost time.Duration
	Now      func() time.Time
}

// Tap copies the frames of a proxied connection off the forwarding path. Feed is called by the
// forwarding goroutines with whatever they forward; it splits lines, notes which frames carry a
// plan, and queues copies without ever blocking. A Sink posts the queue to the dashboard.
type Tap struct {
	q     *frameQueue
	rec   *Recorder
	now   func() time.Time
	split [2]splitter // per direction; each is used by one writer at a time (peerWriter's lock)
	batch [2][]frame

	sessions sessionTracker
	todos    cursorTodos // Cursor's todo lists, turned into plans
}

// NewTap returns a tap with the given bounds.
func NewTap(o TapOptions) *Tap {
	if o.MaxFrames <= 0 {
		o.MaxFrames = 10000
	}
	if o.MaxBytes <= 0 {
		o.MaxBytes = 32 << 20
	}
	if o.MaxLine <= 0 {
		o.MaxLine = 4<<20 - 512 // room for the envelope around the line
	}
	if o.Now == nil {
		o.Now = time.Now
	}
	if o.SlowPost <= 0 {
		o.SlowPost = 2 * time.Second
	}
	t := &Tap{q: newFrameQueue(o.MaxFrames, o.MaxBytes), rec: o.Record, now: o.Now}
	t.q.now, t.q.slow = o.Now, o.SlowPost
	t.todos.sessions = &t.sessions
	t.split[0].max, t.split[1].max = o.MaxLine, o.MaxLine
	return t
}

// Stats reports what the queue holds and what it had to drop.
func (t *Tap) Stats() QueueStats { return t.q.snapshot() }

// Close says no more frames will come; a Sink posts what is left and stops.
func (t *Tap) Close() { t.q.close() }

func dirSlot(d acp.Direction) int {
	if d == acp.AgentToClient {
		return 1
	}
	return 0
}

// feedAt takes bytes travelling in direction dir, forwarded at at: any chunk, not necessarily
// whole lines; calls for one direction must not overlap. owned says b is the tap's to keep (a
// copy made for it), so frames may point into it instead of into a copy of their own.
func (t *Tap) feedAt(dir acp.Direction, at time.Time, b []byte, owned bool) {
	if t.rec != nil {
		t.rec.feed(dir, at, b)
	}
	i := dirSlot(dir)
	fs := t.batch[i][:0]
	// One copy of the chunk holds every line that lies in it; the frames share it. append does
	// not zero what it copies over, as make would.
	var slab []byte
	if owned {
		slab = b
	}
	t.split[i].feed(b, func(line []byte, over bool, off int) {
		if over {
			t.q.mu.Lock()
			t.q.stats.Oversize++
			t.q.mu.Unlock()
			return
		}
		// The method is read once, from the top of the frame (it comes before a long params
		// in practice), and decides which of the closer looks below the line needs at all: most
		// frames are session/updates without a plan, and searching each of them for every
		// method name of interest cost more than everything else the tap does.
		method := frameMethod(line)
		var key string
		if dir == acp.AgentToClient && methodIs(method, acp.MethodSessionUpdate) { // only the agent sends plans
			key = planKey(line)
		}
		var own []byte
		switch {
		case off < 0: // it began in an earlier chunk
			own = bytes.Clone(line)
		case key != "":
			// A plan frame may stay queued long after its neighbours are dropped; it must not
			// keep their whole chunk alive.
			own = bytes.Clone(line)
		default:
			if slab == nil {
				slab = append([]byte(nil), b...)
			}
			own = slab[off : off+len(line) : off+len(line)]
		}
		fs = append(fs, frame{at: at.UnixNano(), line: own, key: key, a2c: dir == acp.AgentToClient, cursor: cursorMethod(method), valid: validMsg(line)})
		fs = t.cursorSide(fs, dir, line, method, at)
	})
	if len(fs) > 0 {
		t.q.push(fs)
	}
	clear(fs)
	t.batch[i] = fs[:0]
}

// cursorSide follows a cursor/update_todos with the plan it amounts to (a frame of the proxy's
// own, for the dashboard only), and notes the sessions the IDE prompts for Cursor frames that
// name none.
// method is the line's, as frameMethod read it.
func (t *Tap) cursorSide(fs []frame, dir acp.Direction, line, method []byte, at time.Time) []frame {
	if dir == acp.ClientToAgent {
		if methodIs(method, acp.MethodSessionPrompt) || methodIs(method, acp.MethodSessionLoad) {
			t.sessions.observeClient(line)
		}
		return fs
	}
	if !methodIs(method, acp.MethodCursorUpdateTodos) {
		return fs
	}
	if pf := t.todos.planFrame(line); pf != nil {
		fs = append(fs, frame{at: at.UnixNano(), line: pf, key: planKey(pf), a2c: true, valid: validMsg(pf)})
	}
	return fs
}

// lose says bytes of direction dir were forwarded but not fed: the line they fell in is not
// whole, so it is not sent at all, and the tap goes on from the next line.
func (t *Tap) lose(dir acp.Direction) {
	t.split[dirSlot(dir)].lose()
	t.q.mu.Lock()
	t.q.stats.Lost++
	t.q.mu.Unlock()
}

// endAt flushes a last line that had no terminator when the stream in direction dir ended at
// at.
func (t *Tap) endAt(dir acp.Direction, at time.Time) {
	if t.rec != nil {
		t.rec.end(dir, at)
	}
	t.split[dirSlot(dir)].end(func(line []byte, over bool, _ int) {
		if !over {
			t.q.push([]frame{newFrame(dir, at, bytes.Clone(line))})
		}
	})
}

// planKey is "sessionId\x00planId" for a session/update that sets or removes a plan, and "" for
// anything else. It runs on the forwarding path for every line the agent sends: one substring
// search turns away lines that cannot be plan updates, and the rest are read only as far as the
// members it needs (find), so a plan's entries, or megabytes of tool output that mention a plan,
// are not walked.
func planKey(line []byte) string {
	if !bytes.Contains(line, []byte(`"plan`)) {
		return ""
	}
	// No json.Valid here either: the scanner stays in bounds on any input, and a garbled line
	// that happens to yield a key only competes with its own plan's frames.
	b := acp.TrimSpace(line)
	if !acp.IsObject(b) {
		return ""
	}
	var top [2][]byte
	acp.Find(b, top[:], "method", "params")
	if m, _ := acp.Unquote(top[0]); m != acp.MethodSessionUpdate || !acp.IsObject(top[1]) {
		return ""
	}
	var p [2][]byte
	acp.Find(top[1], p[:], "sessionId", "update")
	sid, ok := acp.Unquote(p[0])
	if !ok || !acp.IsObject(p[1]) {
		return ""
	}
	upd := p[1]
	var id string
	switch kind, _ := acp.Unquote(member(upd, "sessionUpdate")); kind {
	case "plan":
		id = "main" // v1's single plan, under the synthetic id the plans room uses too
	case "plan_update":
		pl := member(upd, "plan")
		if !acp.IsObject(pl) {
			return ""
		}
		id, ok = idMember(pl)
	case "plan_removed":
		id, ok = idMember(upd)
	default:
		return ""
	}
	if !ok {
		return ""
	}
	return sid + "\x00" + id
}

// validMsg reports whether line is a JSON object or array, which the dashboard takes as a
// message; anything else is posted as a violation. The tap checks each frame as it splits it,
// a line at a time, rather than the sink checking a whole batch at once: checking a batch of
// long frames took milliseconds on end, during which a frame on its way between IDE and agent
// could wait for the processor.
func validMsg(line []byte) bool {
	b := acp.TrimSpace(line)
	return (acp.IsObject(b) || acp.IsArray(b)) && acp.Valid(b)
}

// frameMethod returns the raw JSON value of a frame's method member (its first, as Find reads
// it), or nil when line is not an object or has none. The walk stops at the member: a request or
// notification names its method before its params, so only a response is read to its end.
func frameMethod(line []byte) []byte {
	b := acp.TrimSpace(line)
	if !acp.IsObject(b) {
		return nil
	}
	var m [1][]byte
	acp.Find(b, m[:], "method")
	return m[0]
}

// methodIs reports whether raw, a method member's JSON value, is the string name. The plain
// spelling is compared in place; only a value with escapes is decoded.
func methodIs(raw []byte, name string) bool {
	if n := len(raw); n == len(name)+2 && raw[0] == '"' && raw[n-1] == '"' && string(raw[1:n-1]) == name {
		return true
	}
	if bytes.IndexByte(raw, '\\') < 0 {
		return false
	}
	m, ok := acp.Unquote(raw)
	return ok && m == name
}

// idMember reads planId, or the old spelling id (spec §10.2).
func idMember(obj []byte) (string, bool) {
	if s, ok := acp.Unquote(member(obj, "planId")); ok {
		return s, true
	}
	return acp.Unquote(member(obj, "id"))
}

// member is find for one key.
func member(obj []byte, key string) []byte {
	var v [1][]byte
	acp.Find(obj, v[:], key)
	return v[0]
}

// splitter cuts a byte stream into lines (without "\n" or "\r\n"; blank lines skipped) and
// holds a line that spans chunks. A line over max is reported once, as over, without its bytes;
// max <= 0 means no limit. fn gets the line's offset in the chunk fed, or -1 when the line began
// in an earlier chunk (it then lies in the splitter's own buffer).
type splitter struct {
	buf  []byte
	max  int
	over bool
	lost bool // part of the line being assembled was never fed: skip it whole
}

func (s *splitter) lose() { s.lost, s.over, s.buf = true, false, s.buf[:0] }

func (s *splitter) feed(b []byte, fn func(line []byte, over bool, off int)) {
	pos := 0
	for pos < len(b) {
		i := bytes.IndexByte(b[pos:], '\n')
		if i < 0 {
			s.hold(b[pos:])
			return
		}
		seg, off := b[pos:pos+i], pos
		pos += i + 1
		if len(s.buf) > 0 || s.over || s.lost {
			s.hold(seg)
			seg, off = s.buf, -1
		} else if s.max > 0 && len(seg) > s.max+1 {
			s.over = true
		}
		s.emit(seg, off, fn)
	}
}

func (s *splitter) hold(b []byte) {
	switch {
	case s.over, s.lost:
	case s.max > 0 && len(s.buf)+len(b) > s.max+1: // one byte of slack for a "\r"
		s.over, s.buf = true, s.buf[:0]
	default:
		s.buf = append(s.buf, b...)
	}
}

func (s *splitter) emit(line []byte, off int, fn func([]byte, bool, int)) {
	if s.lost {
		s.lost, s.over, s.buf = false, false, s.buf[:0]
		return
	}
	over := s.over
	if n := len(line); n > 0 && line[n-1] == '\r' {
		line = line[:n-1]
	}
	if over || !acp.IsBlank(line) {
		fn(line, over, off)
	}
	s.over = false
	s.buf = s.buf[:0]
	if cap(s.buf) > 1<<20 {
		s.buf = nil
	}
}

func (s *splitter) end(fn func([]byte, bool, int)) {
	if len(s.buf) > 0 || s.over || s.lost {
		s.emit(s.buf, -1, fn)
	}
}
