package acp

import (
	"container/list"
)

// DefaultMaxPending is the per-direction bound NewCorrelator uses when given n <= 0.
const DefaultMaxPending = 1024

// Correlator pairs responses with the requests they answer, so a tap learns which method a
// result belongs to (e.g. which permission option was chosen). Both peers send requests and
// number them independently, so the same id is routinely in flight both ways at once (spec §3);
// pending requests are therefore keyed by (direction, id). Ids compare by JSON value kind and
// text: 1 and "1" are different ids, and so are 1 and 1.0.
//
// It is bounded: at most n requests wait per direction, and the oldest is forgotten when a new
// one arrives, so a peer that never answers cannot grow it without limit.
//
// A Correlator is not safe for concurrent use; a proxy owns one per connection and feeds it from
// the goroutine that sees both directions, or guards it with a mutex.
type Correlator struct {
	max  int
	sets [3]pendingSet // indexed by dirIndex
	seq  uint64
}

type pendingSet struct {
	byID  map[string]*list.Element
	order list.List // of *pendingReq, oldest first
}

type pendingReq struct {
	key string
	seq uint64
	msg Message
}

// NewCorrelator returns a Correlator keeping at most n pending requests per direction.
func NewCorrelator(n int) *Correlator {
	if n <= 0 {
		n = DefaultMaxPending
	}
	c := &Correlator{max: n}
	for i := range c.sets {
		c.sets[i].byID = make(map[string]*list.Element)
	}
	return c
}

// dirIndex buckets requests by sender; requests of unknown direction get a bucket of their own.
func dirIndex(d Direction) int {
	switch d {
	case ClientToAgent:
		return 0
	case AgentToClient:
		return 1
	}
	return 2
}

// IDKey canonicalises an id: strings by their decoded value (so "a" and "\u0061" meet), numbers
// by their trimmed text. The kind prefix keeps 1 and "1" apart. ok is false for null or missing
// ids, which answer nothing.
func IDKey(id []byte) (string, bool) {
	id = TrimSpace(id)
	switch {
	case isString(id):
		s, ok := Unquote(id)
		return "s" + s, ok
	case isNumber(id):
		return "n" + string(id), true
	}
	return "", false
}

// Request records a request (a message with a method and an id) sent in m.Dir. When m.Dir is ""
// the sender is inferred from the method (see MethodSender), so Dir-less traffic still keeps the
// two id spaces apart. A second pending request with the same direction and id replaces the first.
// Anything that is not a request is ignored.
func (c *Correlator) Request(m Message) {
	if !m.IsRequest() {
		return
	}
	key, ok := IDKey(m.ID)
	if !ok {
		return
	}
	dir := m.Dir
	if dir == "" {
		dir = MethodSender(m.Method)
	}
	s := &c.sets[dirIndex(dir)]
	if el, ok := s.byID[key]; ok {
		s.order.Remove(el)
		delete(s.byID, key)
	}
	if s.order.Len() >= c.max {
		oldest := s.order.Front()
		delete(s.byID, oldest.Value.(*pendingReq).key)
		s.order.Remove(oldest)
	}
	c.seq++
	s.byID[key] = s.order.PushBack(&pendingReq{key: key, seq: c.seq, msg: m})
}

// Response finds and forgets the request that m answers. A response travelling in direction d
// answers a request sent the opposite way; requests whose direction could not be told are tried
// next.
//
// When m.Dir is "" (plain ingest without directions) every direction is searched. If only one
// request has that id it is the answer. If several do, the first rule that singles one out wins:
//  1. the one whose method's result shape matches m's result (sessionId for session/new,
//     stopReason for session/prompt, outcome for session/request_permission, …);
//  2. the one whose method the client sends (initialize, authenticate, session/*): clients'
//     requests are the ones routinely in flight while the other side's are answered;
//  3. the oldest.
func (c *Correlator) Response(m Message) (req Message, ok bool) {
	if !m.IsResponse() {
		return Message{}, false
	}
	key, ok := IDKey(m.ID)
	if !ok {
		return Message{}, false
	}
	var order []int
	switch m.Dir {
	case ClientToAgent:
		order = []int{1, 2}
	case AgentToClient:
		order = []int{0, 2}
	default:
		order = []int{0, 1, 2}
	}
	var found []*list.Element
	var from []int
	for _, i := range order {
		if el, ok := c.sets[i].byID[key]; ok {
			found = append(found, el)
			from = append(from, i)
			if m.Dir != "" {
				break
			}
		}
	}
	if len(found) == 0 {
		return Message{}, false
	}
	best := 0
	if len(found) > 1 {
		best = pick(found, m)
	}
	p := found[best].Value.(*pendingReq)
	s := &c.sets[from[best]]
	s.order.Remove(found[best])
	delete(s.byID, key)
	return p.msg, true
}

// pick applies Response's tie-break rules to candidates for a direction-less response.
func pick(cands []*list.Element, resp Message) int {
	fits, client := -1, -1
	nFits, nClient := 0, 0
	oldest := 0
	for i, el := range cands {
		p := el.Value.(*pendingReq)
		if resultFits(p.msg.Method, resp) {
			fits = i
			nFits++
		}
		if MethodSender(p.msg.Method) == ClientToAgent {
			client = i
			nClient++
		}
		if p.seq < cands[oldest].Value.(*pendingReq).seq {
			oldest = i
		}
	}
	switch {
	case nFits == 1:
		return fits
	case nClient == 1:
		return client
	}
	return oldest
}

// resultFits reports whether a response's result has the member that method's result always
// carries. Error responses and unknown methods fit nothing, leaving the decision to the next rule.
func resultFits(method string, resp Message) bool {
	var member string
	switch method {
	case MethodInitialize:
		member = "protocolVersion"
	case MethodSessionNew:
		member = "sessionId"
	case MethodSessionPrompt:
		member = "stopReason"
	case MethodRequestPermission:
		member = "outcome"
	case "fs/read_text_file":
		member = "content"
	case "terminal/create":
		member = "terminalId"
	case "terminal/output":
		member = "output"
	default:
		return false
	}
	r := TrimSpace(resp.Result)
	if !IsObject(r) || !Valid(r) { // a hand-built Message may hold anything
		return false
	}
	var f [1][]byte
	Lookup(r, f[:], member)
	return f[0] != nil
}

// Len reports how many requests are waiting for a response, in all directions.
func (c *Correlator) Len() int {
	n := 0
	for i := range c.sets {
		n += c.sets[i].order.Len()
	}
	return n
}
