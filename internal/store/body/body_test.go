package body

import (
	"encoding/json"
	"reflect"
	"testing"

	"github.com/plandash/plandash/internal/approval"
	"github.com/plandash/plandash/internal/permissions"
	"github.com/plandash/plandash/internal/plans"
)

// sameAsEncodingJSON checks the property the stores rely on: a body encoding/json wrote for a
// value decodes, here, to what encoding/json itself decodes it to. in is any JSON; what
// encoding/json makes of it is the value, so the fuzzer reaches every field.
func sameAsEncodingJSON[T any](t *testing.T, in []byte) {
	t.Helper()
	var v T
	if json.Unmarshal(in, &v) != nil {
		return
	}
	stored, err := json.Marshal(v)
	if err != nil {
		return // a float the value cannot hold as JSON (NaN comes in as nothing else)
	}
	var want T
	if err := json.Unmarshal(stored, &want); err != nil {
		t.Fatalf("%T: encoding/json cannot read back its own %s: %v", v, stored, err)
	}
	got, err := Decode[T](stored)
	if err != nil {
		t.Fatalf("%T: Decode(%s): %v", v, stored, err)
	}
	if !reflect.DeepEqual(got, want) {
		t.Fatalf("%T: Decode(%s)\n got %+v\nwant %+v", v, stored, got, want)
	}
}

// seeds are bodies of every kind the stores keep, including what an agent may put in a plan's
// raw object: invalid UTF-8 and a name given twice.
var seeds = []string{
	`{"sessionId":"s","id":"p","kind":"items","type":"plan","revision":3,"created":"2026-11-27T10:00:00.123456789Z","updated":"2026-11-27T10:00:01+02:00","entries":[{"content":"a","status":"pending","priority":"high"},{"content":"b\u00e9","status":"completed"}],"seq":9}`,
	`{"sessionId":"s","id":"d","kind":"dag","raw":{"a":1,"a":2,"s":"` + "\xff\xfe" + `"},"_meta":{"x":[1,2.5,null,true]},"warnings":["w"],"replayed":true}`,
	`{"id":"s","agent":"claude","title":"t","cwd":"/w","firstSeen":"2026-11-27T10:00:00Z","lastSeen":"2026-11-27T10:00:00Z","toolCalls":20000}`,
	`{"sessionId":"s","id":"t1","title":"Read","kind":"read","status":"completed","rawInput":{"path":"/x"},"content":[{"type":"text","text":"x"}]}`,
	`{"sessionId":"s","kind":"agent_message_chunk","messageId":"m","text":"hello","raw":{"sessionUpdate":"x"}}`,
	`{"id":"r","title":"Plan","status":"pending","plan":{"type":"markdown","markdown":"# x"},"created":"2026-11-27T10:00:00Z","deadline":"2026-11-27T11:00:00Z"}`,
	`{}`, `{"entries":null,"raw":null}`, `{"revision":-1,"seq":18446744073709551615}`,
}

func FuzzDecodeMatchesEncodingJSON(f *testing.F) {
	for _, s := range seeds {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, in []byte) {
		sameAsEncodingJSON[plans.Plan](t, in)
		sameAsEncodingJSON[plans.Session](t, in)
		sameAsEncodingJSON[plans.ToolCall](t, in)
		sameAsEncodingJSON[plans.Activity](t, in)
		sameAsEncodingJSON[approval.Request](t, in)
		sameAsEncodingJSON[approval.Rule](t, in)
		sameAsEncodingJSON[approval.AuditEvent](t, in)
		sameAsEncodingJSON[permissions.Request](t, in)
		sameAsEncodingJSON[permissions.Answer](t, in)
	})
}

// TestDecodeKeepsAnAgentsOddJSON: a raw value with invalid UTF-8 and a repeated name, which
// encoding/json accepted on the way in and writes back as it is, still reads back.
func TestDecodeKeepsAnAgentsOddJSON(t *testing.T) {
	stored := []byte(`{"id":"d","raw":{"a":1,"a":2,"s":"` + "\xff" + `"}}`)
	p, err := Decode[plans.Plan](stored)
	if err != nil {
		t.Fatal(err)
	}
	if want := `{"a":1,"a":2,"s":"` + "\xff" + `"}`; string(p.Raw) != want {
		t.Fatalf("raw = %q, want %q", p.Raw, want)
	}
}
