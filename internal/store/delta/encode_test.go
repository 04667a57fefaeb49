package delta

import (
	"bytes"
	"encoding/json"
	"reflect"
	"testing"
	"time"

	"github.com/plandash/plandash/internal/plans"
	"github.com/plandash/plandash/internal/plans/planstest"
)

var awkward = []string{"", "Read the code", `"quoted"`, `back\slash`, "<b>&amp;</b>", "\x00\x1f\x7f", "\xff\xfe", "é\u2028\u2029", "tab\tnew\nline", "🙂"}

// TestEncodersAgree: the appenders write what encoding/json writes.
func TestEncodersAgree(t *testing.T) {
	// encodeEntry writes plans.Entry's fields by name: a new field must be added there too.
	if ty := reflect.TypeFor[plans.Entry](); ty.NumField() != 4 {
		t.Fatalf("plans.Entry has %d fields; encodeEntry writes 4: add the new one to it", ty.NumField())
	}
	for _, s := range awkward {
		checkEntry(t, plans.Entry{Content: s, Priority: "high", Status: s})
		checkEntry(t, plans.Entry{Content: "c", Priority: s, Status: "pending", Meta: json.RawMessage(` { "k" : "<` + "x" + `>" } `)})
		checkValue(t, s)
	}
	for _, v := range []any{time.Date(2026, 11, 28, 14, 0, 0, 123456789, time.FixedZone("x", 3600)), time.Time{},
		time.Date(10000, 1, 1, 0, 0, 0, 0, time.UTC), true, false, uint64(7), []string{"<a>"}, []plans.Entry{{Content: "&"}},
		json.RawMessage(` [ 1 ] `), json.RawMessage(nil)} {
		if _, err := json.Marshal(v); err == nil {
			checkValue(t, v)
		}
	}
	d := delta{Set: map[string]json.RawMessage{"z": mustJSON("<z>"), "a": mustJSON(1), "é": mustJSON(true), "nil": nil},
		Del: []string{"_meta", `q"`}, Entries: []hunk{{At: 0, Del: 2}, {At: 3, Ins: []json.RawMessage{mustJSON(plans.Entry{Content: "x"}), nil}}}}
	for _, d := range []delta{{}, d, {Del: []string{"a"}}, {Entries: []hunk{{}}}} {
		if got, want := encodeDelta(d), mustJSON(d); !bytes.Equal(got, want) {
			t.Errorf("encodeDelta = %s\nencoding/json  %s", got, want)
		}
	}
}

func checkEntry(t *testing.T, e plans.Entry) {
	t.Helper()
	if got, want := encodeEntry(e), mustJSON(e); !bytes.Equal(got, want) {
		t.Errorf("encodeEntry(%+v) = %s, encoding/json %s", e, got, want)
	}
}

func checkValue(t *testing.T, v any) {
	t.Helper()
	if got, want := encodeValue(v), mustJSON(v); !bytes.Equal(got, want) {
		t.Errorf("encodeValue(%#v) = %s, encoding/json %s", v, got, want)
	}
}

// FuzzEncodeEntry: an entry of any text encodes as encoding/json encodes it.
func FuzzEncodeEntry(f *testing.F) {
	for _, s := range awkward {
		f.Add(s, "medium", s)
	}
	f.Fuzz(func(t *testing.T, content, priority, status string) {
		checkEntry(t, plans.Entry{Content: content, Priority: priority, Status: status})
		checkValue(t, content)
	})
}

// planFields are plans.Plan's fields in order, as EncodePlan writes them: a field added to
// Plan must be added to EncodePlan too.
var planFields = []string{"SessionID", "ID", "Kind", "Type", "Revision", "Created", "Updated", "Removed", "Agent",
	"Entries", "Markdown", "URI", "Raw", "Meta", "Warnings", "Replayed", "Seq"}

// TestEncodePlan: EncodePlan writes what encoding/json writes, for a plan with each field
// changed alone and for plans with awkward text.
func TestEncodePlan(t *testing.T) {
	ty := reflect.TypeFor[plans.Plan]()
	var names []string
	for i := range ty.NumField() {
		names = append(names, ty.Field(i).Name)
	}
	if !reflect.DeepEqual(names, planFields) {
		t.Fatalf("plans.Plan has the fields %v; EncodePlan writes %v: teach it the change", names, planFields)
	}
	base := bigPlan("s", "p", 3)
	base.Revision, base.Updated, base.Seq = 4, rt0.Add(time.Millisecond), 9
	checkPlan(t, base)
	for _, p := range planstest.Vary(t, *base) {
		checkPlan(t, &p)
	}
	for _, s := range awkward {
		p := *base
		p.SessionID, p.ID, p.Agent, p.Markdown, p.URI, p.Warnings = s, s, s, s, s, []string{s, "w"}
		p.Entries = []plans.Entry{{Content: s, Priority: s, Status: s}, {Content: "m", Meta: json.RawMessage(` {"a": "<"} `)}}
		checkPlan(t, &p)
	}
	checkPlan(t, &plans.Plan{})
	checkPlan(t, &plans.Plan{Created: time.Date(-1, 1, 1, 0, 0, 0, 0, time.UTC)}) // MarshalJSON fails: so must EncodePlan
}

func checkPlan(t *testing.T, p *plans.Plan) {
	t.Helper()
	want, wantErr := json.Marshal(p)
	if wantErr != nil {
		defer func() {
			if recover() == nil {
				t.Errorf("EncodePlan of a plan encoding/json refuses (%v) did not panic", wantErr)
			}
		}()
	}
	if got := EncodePlan(p); !bytes.Equal(got, want) {
		t.Errorf("EncodePlan = %s\nencoding/json  %s", got, want)
	}
}

// sessionFields are plans.Session's fields in order, as EncodeSession writes them: a field
// added to Session must be added to EncodeSession too.
var sessionFields = []string{"ID", "Agent", "AgentTitle", "Cwd", "Host", "Source", "AgentSessionID", "Via", "Usage",
	"Title", "Mode", "FirstSeen", "LastSeen", "Ended", "Streaming", "Seq"}

// TestEncodeSession: EncodeSession writes what encoding/json writes, for a session with each
// field changed alone and for sessions with awkward text.
func TestEncodeSession(t *testing.T) {
	ty := reflect.TypeFor[plans.Session]()
	var names []string
	for i := range ty.NumField() {
		names = append(names, ty.Field(i).Name)
	}
	if !reflect.DeepEqual(names, sessionFields) {
		t.Fatalf("plans.Session has the fields %v; EncodeSession writes %v: teach it the change", names, sessionFields)
	}
	base := plans.Session{ID: "s", Agent: "claude", FirstSeen: rt0, LastSeen: rt0.Add(time.Second), Seq: 3}
	checkSession(t, &base)
	for _, s := range planstest.Vary(t, base) {
		checkSession(t, &s)
	}
	full := base
	full.Via = []string{plans.ViaHooks, plans.ViaTranscript}
	full.Usage = &plans.Usage{Used: 1, Size: 2, InputTokens: 3, OutputTokens: 4, Model: "<m>", Cost: &plans.Cost{Amount: 0.125, Currency: "USD"}}
	checkSession(t, &full)
	for _, s := range awkward {
		v := full
		v.ID, v.Agent, v.AgentTitle, v.Cwd, v.Host, v.Source, v.AgentSessionID = s, s, s, s, s, s, s
		v.Via, v.Title, v.Mode, v.Streaming = []string{s}, s, s, s
		checkSession(t, &v)
	}
	checkSession(t, &plans.Session{})
	checkSession(t, &plans.Session{LastSeen: time.Date(-1, 1, 1, 0, 0, 0, 0, time.UTC)}) // MarshalJSON fails: so must EncodeSession
}

func checkSession(t *testing.T, s *plans.Session) {
	t.Helper()
	want, wantErr := json.Marshal(s)
	if wantErr != nil {
		defer func() {
			if recover() == nil {
				t.Errorf("EncodeSession of a session encoding/json refuses (%v) did not panic", wantErr)
			}
		}()
	}
	if got := EncodeSession(s); !bytes.Equal(got, want) {
		t.Errorf("EncodeSession = %s\nencoding/json    %s", got, want)
	}
}
