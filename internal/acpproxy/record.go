package acpproxy

import (
	"bufio"
	"encoding/json"
	"io"
	"strings"
	"sync"
	"time"

	"github.com/plandash/plandash/internal/acp"
)

// Recorder writes a proxied connection as a transcript: one envelope per line,
// {"dir":"c2a"|"a2c","ts":RFC 3339,"msg":<the line exactly as sent>}, which acp.DecodeLine reads back,
// so `plandash ingest FILE` replays it. A line that is not JSON cannot sit in "msg" as it is; it
// is recorded as a ProtocolViolation notification holding its text.
//
// Unlike the dashboard feed it is lossless: it is written on the forwarding path (a buffered
// write, flushed per chunk so a crash loses nothing already forwarded), with no line limit.
type Recorder struct {
	mu    sync.Mutex
	w     *bufio.Writer
	c     io.Closer
	split [2]splitter
	at    time.Time
	dir   acp.Direction
	err   error
}

// ProtocolViolation is the method of the notification plandash records and reports in place of
// a line that is not a JSON-RPC message (spec §2: only ACP messages may travel on stdio).
const ProtocolViolation = "_plandash/protocol_violation"

// NewRecorder records to w; Close flushes it and closes w when it is an io.Closer.
func NewRecorder(w io.Writer) *Recorder {
	r := &Recorder{w: bufio.NewWriterSize(w, 64<<10)}
	r.c, _ = w.(io.Closer)
	return r
}

func (r *Recorder) feed(dir acp.Direction, at time.Time, b []byte) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.dir, r.at = dir, at
	r.split[dirSlot(dir)].feed(b, r.line)
	r.flush()
}

func (r *Recorder) end(dir acp.Direction, at time.Time) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.dir, r.at = dir, at
	r.split[dirSlot(dir)].end(r.line)
	r.flush()
}

func (r *Recorder) flush() {
	if err := r.w.Flush(); err != nil && r.err == nil {
		r.err = err
	}
}

// line writes one envelope; the splitter has no limit, so over is never set.
func (r *Recorder) line(line []byte, _ bool, _ int) {
	w := r.w
	w.WriteString(`{"dir":"`)
	w.WriteString(string(r.dir))
	w.WriteString(`","ts":"`)
	var ts [40]byte
	w.Write(r.at.UTC().AppendFormat(ts[:0], time.RFC3339Nano))
	w.WriteString(`","msg":`)
	if b := acp.TrimSpace(line); (acp.IsObject(b) || acp.IsArray(b)) && acp.Valid(b) {
		w.Write(b)
	} else {
		w.Write(violationMsg(r.dir, line, ""))
	}
	w.WriteString("}\n")
}

// Close flushes the transcript and closes its file. It reports the first write error.
func (r *Recorder) Close() error {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.flush()
	if r.c != nil {
		if err := r.c.Close(); err != nil && r.err == nil {
			r.err = err
		}
	}
	return r.err
}

// maxViolationText is how much of a bad line the dashboard is shown.
const maxViolationText = 4 << 10

// violationMsg is the message reporting a line that is not JSON. With a session it is a
// session/update of a custom kind, which the dashboard keeps as raw activity of that session;
// without one (nothing has opened a session yet) it is an extension notification.
func violationMsg(dir acp.Direction, line []byte, session string) []byte {
	text := line
	if session != "" && len(text) > maxViolationText {
		text = text[:maxViolationText]
	}
	// A cut through a rune, or a binary line, becomes U+FFFD rather than invalid JSON.
	s := strings.ToValidUTF8(string(text), "\uFFFD")
	detail := map[string]any{"direction": dir, "bytes": len(line), "text": s}
	if len(text) < len(line) {
		detail["truncated"] = true
	}
	var msg any
	if session != "" {
		detail["sessionUpdate"] = ProtocolViolation
		msg = map[string]any{"jsonrpc": "2.0", "method": acp.MethodSessionUpdate,
			"params": map[string]any{"sessionId": session, "update": detail}}
	} else {
		msg = map[string]any{"jsonrpc": "2.0", "method": ProtocolViolation, "params": detail}
	}
	b, _ := json.Marshal(msg)
	return b
}
