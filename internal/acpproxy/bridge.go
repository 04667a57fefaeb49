package acpproxy

import (
	"bytes"
	"slices"
	"sync"
	"sync/atomic"

	"github.com/plandash/plandash/internal/acp"
)

// bridge is the opt-in capability bridge (--plan-updates, spec §13). Toward the agent it adds
// clientCapabilities.plan: {} to a v1 initialize from an IDE that did not advertise it, so the
// agent sends plan_update and plan_removed, which the dashboard shows in full. Toward that IDE it
// then speaks v1 only: each items plan_update becomes a v1 plan (the IDE shows the most recently
// updated items plan), and markdown, file, unknown and removal updates, which v1 cannot express,
// are withheld. An IDE that advertised plan itself gets everything untouched.
//
// Only frames the bridge changes are re-encoded, and only the changed member: the rest of the
// line keeps its bytes.
type bridge struct {
	active      atomic.Bool // the capability was added: down-convert toward the IDE
	initialized bool        // the IDE's initialize went by (IDE→agent goroutine only)

	mu       sync.Mutex // the agent→IDE goroutine is the only user; the lock is for clarity under -race
	sessions map[string]*itemsPlans
}

// itemsPlans are one session's items plans as last sent, least recently updated first.
type itemsPlans struct {
	ids     []string
	entries map[string][]byte // v1-valid entries array per plan id
}

func newBridge() *bridge { return &bridge{sessions: map[string]*itemsPlans{}} }

// fromClient adds the plan capability to the IDE's initialize when it lacks it. A connection
// has one initialize, first; after it the IDE's lines are not looked at again.
func (b *bridge) fromClient(line []byte) (verdict, []byte) {
	if b.initialized || !bytes.Contains(line, []byte(`"initialize"`)) {
		return pass, nil
	}
	msgs, err := acp.DecodeLine(line)
	if err != nil || len(msgs) != 1 || !msgs[0].IsRequest() || msgs[0].Method != acp.MethodInitialize {
		return pass, nil
	}
	b.initialized = true
	p, err := acp.DecodeInitializeParams(msgs[0].Params)
	// v2 has no plan capability (items plan_update is stable there): nothing to bridge.
	if err != nil || p.ProtocolVersion != 1 || p.PlanCapable {
		b.active.Store(false)
		return pass, nil
	}
	out, ok := injectPlanCapability(line)
	b.active.Store(ok)
	if !ok {
		return pass, nil
	}
	return replace, out
}

// offsetIn is where sub starts inside parent; sub must be a sub-slice of parent, as every value
// lookup returns is.
func offsetIn(parent, sub []byte) int { return cap(parent) - cap(sub) }

// splice replaces the span of sub inside line with with.
func splice(line, sub []byte, with string) []byte {
	at := offsetIn(line, sub)
	out := make([]byte, 0, len(line)-len(sub)+len(with))
	out = append(out, line[:at]...)
	out = append(out, with...)
	return append(out, line[at+len(sub):]...)
}

// insertFirst puts member as the first member of the object obj inside line.
func insertFirst(line, obj []byte, member string) []byte {
	at := offsetIn(line, obj) + 1
	if len(acp.TrimSpace(obj[1:len(obj)-1])) > 0 {
		member += ","
	}
	out := make([]byte, 0, len(line)+len(member))
	out = append(out, line[:at]...)
	out = append(out, member...)
	return append(out, line[at:]...)
}

// injectPlanCapability returns line with clientCapabilities.plan set to {}.
func injectPlanCapability(line []byte) ([]byte, bool) {
	var top [1][]byte
	acp.Lookup(line, top[:], "params")
	params := top[0]
	if !acp.IsObject(params) {
		return nil, false
	}
	var f [1][]byte
	acp.Lookup(params, f[:], "clientCapabilities")
	caps := f[0]
	switch {
	case caps == nil:
		return insertFirst(line, params, `"clientCapabilities":{"plan":{}}`), true
	case acp.IsNull(caps):
		return splice(line, caps, `{"plan":{}}`), true
	case acp.IsObject(caps):
		var c [1][]byte
		acp.Lookup(caps, c[:], "plan")
		if c[0] != nil { // null or false: not advertised, replaced rather than repeated
			return splice(line, c[0], `{}`), true
		}
		return insertFirst(line, caps, `"plan":{}`), true
	}
	return nil, false
}

// fromAgent down-converts plan frames for an IDE that only knows v1.
func (b *bridge) fromAgent(line []byte) (verdict, []byte) {
	if !b.active.Load() || !bytes.Contains(line, []byte(`"plan`)) {
		return pass, nil
	}
	u, ok := parsePlanFrame(line)
	if !ok {
		return pass, nil
	}
	b.mu.Lock()
	defer b.mu.Unlock()
	s := b.sessions[u.session]
	if s == nil {
		s = &itemsPlans{entries: map[string][]byte{}}
		b.sessions[u.session] = s
	}
	switch {
	case u.kind == "plan":
		// Already v1: forwarded as is, and remembered under v1's synthetic id.
		s.touch("main", validV1Entries(u.entries))
		return pass, nil
	case u.kind == "plan_update" && u.planType == "items":
		entries := validV1Entries(u.entries)
		s.touch(u.planID, entries)
		return replace, splice(line, u.update, v1Plan(entries, u.meta))
	default:
		// markdown, file, unknown content, or plan_removed: v1 has no way to say it. If it
		// retired the plan the IDE is showing, show the next most recent one (or clear it).
		if !s.forget(u.planID) {
			return drop, nil
		}
		entries := []byte("[]")
		if n := len(s.ids); n > 0 {
			entries = s.entries[s.ids[n-1]]
		}
		return replace, splice(line, u.update, v1Plan(entries, nil))
	}
}

// touch records a plan as the most recently updated.
func (s *itemsPlans) touch(id string, entries []byte) {
	s.ids = slices.DeleteFunc(s.ids, func(x string) bool { return x == id })
	s.ids = append(s.ids, id)
	s.entries[id] = entries
}

// forget drops a plan and reports whether it was the one the IDE shows.
func (s *itemsPlans) forget(id string) (wasShown bool) {
	i := slices.Index(s.ids, id)
	if i < 0 {
		return false
	}
	wasShown = i == len(s.ids)-1
	s.ids = slices.Delete(s.ids, i, i+1)
	delete(s.entries, id)
	return wasShown
}

// planFrame is what the bridge reads from a plan-carrying session/update.
type planFrame struct {
	session, kind, planType, planID string
	update, entries, meta           []byte // sub-slices of the line
}

// parsePlanFrame reads a session/update whose update is plan, plan_update or plan_removed.
func parsePlanFrame(line []byte) (planFrame, bool) {
	var u planFrame
	b := acp.TrimSpace(line)
	if !acp.IsObject(b) || !acp.Valid(b) {
		return u, false
	}
	var top [2][]byte
	acp.Lookup(line, top[:], "method", "params")
	if m, _ := acp.Unquote(top[0]); m != acp.MethodSessionUpdate || !acp.IsObject(top[1]) {
		return u, false
	}
	var p [2][]byte
	acp.Lookup(top[1], p[:], "sessionId", "update")
	var ok bool
	if u.session, ok = acp.Unquote(p[0]); !ok || !acp.IsObject(p[1]) {
		return u, false
	}
	u.update = p[1]
	var f [5][]byte
	acp.Lookup(u.update, f[:], "sessionUpdate", "plan", "planId", "id", "entries")
	u.kind, _ = acp.Unquote(f[0])
	switch u.kind {
	case "plan":
		u.entries = f[4]
	case "plan_update":
		if !acp.IsObject(f[1]) {
			return u, false
		}
		var pl [4][]byte
		acp.Lookup(f[1], pl[:], "type", "planId", "id", "entries")
		u.planType, _ = acp.Unquote(pl[0])
		u.planID, ok = firstString(pl[1], pl[2])
		u.entries = pl[3]
		var m [1][]byte
		acp.Lookup(u.update, m[:], "_meta")
		u.meta = m[0]
	case "plan_removed":
		u.planID, ok = firstString(f[2], f[3])
	default:
		return u, false
	}
	return u, ok || u.kind == "plan"
}

// firstString reads the current spelling of a member, or the old one (spec §10.2).
func firstString(cur, old []byte) (string, bool) {
	if s, ok := acp.Unquote(cur); ok {
		return s, true
	}
	return acp.Unquote(old)
}

// v1Plan is the update object of a v1 plan.
func v1Plan(entries, meta []byte) string {
	s := `{"sessionUpdate":"plan","entries":` + string(entries)
	if acp.IsObject(meta) {
		s += `,"_meta":` + string(meta)
	}
	return s + "}"
}

// validV1Entries keeps the entries a v1 peer accepts, byte for byte. The rest (a v2 "cancelled"
// status, a custom priority) would make the whole frame invalid for the IDE; the schema says a
// reader skips such items, so the bridge does it for the IDE.
func validV1Entries(entries []byte) []byte {
	if !acp.IsArray(entries) {
		return []byte("[]")
	}
	out := []byte{'['}
	for it := acp.NewArrayIter(entries); ; {
		el, ok := it.Next()
		if !ok {
			break
		}
		if !acp.IsObject(el) {
			continue
		}
		var f [4][]byte
		acp.Lookup(el, f[:], "content", "priority", "status", "_meta")
		_, okContent := acp.Unquote(f[0])
		pr, _ := acp.Unquote(f[1])
		st, _ := acp.Unquote(f[2])
		if !okContent || f[3] != nil && !acp.IsObject(f[3]) && !acp.IsNull(f[3]) ||
			pr != "high" && pr != "medium" && pr != "low" ||
			st != "pending" && st != "in_progress" && st != "completed" {
			continue
		}
		if len(out) > 1 {
			out = append(out, ',')
		}
		out = append(out, el...)
	}
	return append(out, ']')
}
