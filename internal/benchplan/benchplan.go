// Package benchplan is the plan update the fan-out and ingest benchmarks post, and how a reader
// of what comes back tells which update it shows. It is shared by the black-box benchmarks in
// bench/ and the in-package ones, so both post and read the same thing.
package benchplan

import (
	"bytes"
	"fmt"
	"strconv"
	"strings"
)

// Line is one ACP session/update carrying a five-entry v1 plan for session sid. rev (0 to
// 999,999) is written into an entry as "rev-" and six digits, so any fragment showing the plan
// tells which update it is from.
func Line(sid string, rev int) string {
	return fmt.Sprintf(`{"jsonrpc":"2.0","method":"session/update","params":{"sessionId":%q,"update":{"sessionUpdate":"plan","entries":[`+
		`{"content":"Read the code","priority":"high","status":"completed"},`+
		`{"content":"Change it rev-%06d","priority":"medium","status":"in_progress"},{"content":"Test it","priority":"medium","status":"pending"},`+
		`{"content":"Review","priority":"low","status":"pending"},{"content":"Ship","priority":"low","status":"pending"}]}}}`, sid, rev)
}

// NewestRev is the highest update number Line wrote into msg, or -1. It scans with
// bytes.Index and allocates nothing: a benchmark's socket readers share the machine with the
// server they measure, and must cost little per message.
func NewestRev(msg []byte) int64 {
	newest := int64(-1)
	for {
		i := bytes.Index(msg, []byte("rev-"))
		if i < 0 || len(msg) < i+10 {
			return newest
		}
		if n, err := strconv.ParseInt(string(msg[i+4:i+10]), 10, 64); err == nil {
			newest = max(newest, n)
		}
		msg = msg[i+4:]
	}
}

// LongPlanUpdate is a plan_update of an n-entry plan with entry rev%n in progress: the line an
// agent that rewrites a long plan after every step sends (no newline).
func LongPlanUpdate(sid string, n, rev int) string {
	var b strings.Builder
	fmt.Fprintf(&b, `{"jsonrpc":"2.0","method":"session/update","params":{"sessionId":%q,"update":{"sessionUpdate":"plan_update","plan":{"type":"items","planId":"p","entries":[`, sid)
	for i := range n {
		status := "pending"
		switch {
		case i < rev%n:
			status = "completed"
		case i == rev%n:
			status = "in_progress"
		}
		if i > 0 {
			b.WriteByte(',')
		}
		fmt.Fprintf(&b, `{"content":"Step %d of the migration: update the callers in package p%d and run its tests","priority":"medium","status":%q}`, i+1, i, status)
	}
	b.WriteString("]}}}}")
	return b.String()
}
