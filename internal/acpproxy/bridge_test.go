package acpproxy

import (
	"bytes"
	"encoding/json"
	"strings"
	"testing"

	"github.com/plandash/plandash/internal/acp"
)

// v1Plans returns the entries of every v1 plan among lines, as "content=status" lists.
func v1Plans(t *testing.T, raw []byte) []string {
	t.Helper()
	var out []string
	for _, line := range bytes.Split(raw, []byte("\n")) {
		msgs, err := acp.DecodeLine(line)
		if err != nil || len(msgs) != 1 || msgs[0].Method != acp.MethodSessionUpdate {
			continue
		}
		n, warns, err := acp.DecodeSessionNotification(msgs[0].Params)
		if err != nil || len(warns) > 0 {
			t.Fatalf("bad session/update %s: %v %v", line, err, warns)
		}
		if n.Update.Kind != "plan" {
			continue
		}
		var es []string
		for _, e := range n.Update.Plan.Entries {
			es = append(es, e.Content+"="+e.Status)
		}
		out = append(out, strings.Join(es, ", "))
	}
	return out
}

func TestProxyBridgeTowardV1IDE(t *testing.T) {
	tap := NewTap(TapOptions{})
	r := startRun(t, &Proxy{Tap: tap, PlanUpdates: true})
	sess := r.ide.open(false)
	r.ide.prompt(sess, "plans progress remove cancelled done")
	r.wait()

	// The agent was told the IDE takes plan updates, in the initialize it received.
	first, _, _ := bytes.Cut(r.agentReceived(), []byte("\n"))
	msgs, err := acp.DecodeLine(first)
	if err != nil {
		t.Fatal(err)
	}
	if p, _ := acp.DecodeInitializeParams(msgs[0].Params); !p.PlanCapable {
		t.Errorf("the agent's initialize lacks the plan capability: %s", first)
	}
	sentFirst, _, _ := bytes.Cut(r.ide.sentBytes(), []byte("\n"))
	if want := bytes.Replace(sentFirst, []byte(`"clientCapabilities":{`), []byte(`"clientCapabilities":{"plan":{},`), 1); !bytes.Equal(first, want) {
		t.Errorf("initialize was changed beyond the capability:\n got %s\nwant %s", first, want)
	}

	// The IDE only ever saw v1 plans: the most recently updated items plan each time.
	if kinds := updates(t, r.ide.received()); strings.Join(kinds, " ") != "plan plan plan plan plan" {
		t.Errorf("the IDE got updates %v, want five v1 plans", kinds)
	}
	want := []string{
		"Forward every byte=in_progress, Tap plan frames=pending, Document the IDE set-up=pending",
		"Review the proxy=pending",
		"Forward every byte=completed, Tap plan frames=in_progress, Document the IDE set-up=pending",
		"Forward every byte=completed", // the v2 "cancelled" entry is not v1
		"Forward every byte=completed, Tap plan frames=completed, Document the IDE set-up=completed",
	}
	if got := v1Plans(t, r.ide.received()); strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("the IDE's plans:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
	// The dashboard sees what the agent really sent.
	frames := tapped(tap)
	for _, s := range []string{`"type":"markdown"`, `"type":"file"`, `"plan_removed"`, `"planId":"review"`} {
		if !contains(frames, s) {
			t.Errorf("the tap lacks the agent's %s frame", s)
		}
	}
}

func TestProxyBridgeLeavesPlanIDEAlone(t *testing.T) {
	r := startRun(t, &Proxy{PlanUpdates: true})
	sess := r.ide.open(true)
	r.ide.prompt(sess, "plans remove")
	r.wait()
	if got, want := r.agentReceived(), r.ide.sentBytes(); !bytes.Equal(got, want) {
		t.Errorf("the agent received other bytes than the IDE sent:\n got %q\nwant %q", got, want)
	}
	if kinds := updates(t, r.ide.received()); strings.Join(kinds, " ") != "plan_update plan_update plan_update plan_update plan_removed" {
		t.Errorf("an IDE with the capability got %v", kinds)
	}
}

func TestInjectPlanCapability(t *testing.T) {
	for _, tc := range []struct{ in, want string }{
		{`{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":1}}`,
			`{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"clientCapabilities":{"plan":{}},"protocolVersion":1}}`},
		{`{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":1,"clientCapabilities":{ }}}`,
			`{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":1,"clientCapabilities":{"plan":{} }}}`},
		{`{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":1,"clientCapabilities":null}}`,
			`{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":1,"clientCapabilities":{"plan":{}}}}`},
		{`{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":1,"clientCapabilities":{}}}`,
			`{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":1,"clientCapabilities":{"plan":{}}}}`},
		{`{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":1,"clientCapabilities":{"terminal":true,"plan":null}}}`,
			`{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":1,"clientCapabilities":{"terminal":true,"plan":{}}}}`},
		{` {"jsonrpc" : "2.0", "id":0, "method":"initialize", "params" : {"protocolVersion":1, "clientCapabilities" : { "terminal": true } } } `,
			` {"jsonrpc" : "2.0", "id":0, "method":"initialize", "params" : {"protocolVersion":1, "clientCapabilities" : {"plan":{}, "terminal": true } } } `},
	} {
		b := newBridge()
		v, out := b.fromClient([]byte(tc.in))
		if v != replace || string(out) != tc.want || !json.Valid(out) {
			t.Errorf("%s\n got %v %s\nwant %s", tc.in, v, out, tc.want)
		}
		if !b.active.Load() {
			t.Errorf("%s: the bridge is not down-converting after adding the capability", tc.in)
		}
	}
	for _, in := range []string{
		`{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":1,"clientCapabilities":{"plan":{}}}}`,
		`{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":1,"clientCapabilities":{"planCapabilities":{}}}}`,
		`{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":2}}`,
		`{"jsonrpc":"2.0","method":"initialize","params":{"protocolVersion":1}}`,
		`{"jsonrpc":"2.0","id":0,"method":"initialize","params":"nope"}`,
		`not json "initialize"`,
	} {
		b := newBridge()
		if v, out := b.fromClient([]byte(in)); v != pass || b.active.Load() {
			t.Errorf("%s: got %v %s, want it passed untouched", in, v, out)
		}
	}
}

func TestBridgeFromAgent(t *testing.T) {
	b := newBridge()
	b.active.Store(true)
	upd := func(u string) []byte {
		return []byte(`{"jsonrpc":"2.0","method":"session/update","params":{"sessionId":"s","update":` + u + `},"_meta":{"k":1}}`)
	}
	steps := []struct{ in, want string }{
		{`{"sessionUpdate":"plan_update","plan":{"type":"items","planId":"a","entries":[{"content":"A","priority":"high","status":"pending","_meta":{"x":1}}]},"_meta":{"m":2}}`,
			`{"sessionUpdate":"plan","entries":[{"content":"A","priority":"high","status":"pending","_meta":{"x":1}}],"_meta":{"m":2}}`},
		{`{"sessionUpdate":"plan_update","plan":{"type":"items","id":"b","entries":[{"content":"B","priority":"_custom","status":"pending"},{"content":"B2","priority":"low","status":"completed"}]}}`,
			`{"sessionUpdate":"plan","entries":[{"content":"B2","priority":"low","status":"completed"}]}`},
		{`{"sessionUpdate":"plan_update","plan":{"type":"markdown","planId":"m","content":"# x"}}`, ""},
		{`{"sessionUpdate":"plan_removed","planId":"a"}`, ""}, // not the one shown
		{`{"sessionUpdate":"plan_removed","planId":"b"}`, `{"sessionUpdate":"plan","entries":[]}`},
		{`{"sessionUpdate":"plan_removed","planId":"nope"}`, ""},
		{`{"sessionUpdate":"agent_message_chunk","content":{"type":"text","text":"plan"}}`, "pass"},
	}
	for _, s := range steps {
		in := upd(s.in)
		v, out := b.fromAgent(in)
		switch s.want {
		case "":
			if v != drop {
				t.Errorf("%s: got %v %s, want it withheld", s.in, v, out)
			}
		case "pass":
			if v != pass {
				t.Errorf("%s: got %v %s, want it passed", s.in, v, out)
			}
		default:
			if want := string(upd(s.want)); v != replace || string(out) != want {
				t.Errorf("%s:\n got %v %s\nwant %s", s.in, v, out, want)
			}
		}
	}
}
