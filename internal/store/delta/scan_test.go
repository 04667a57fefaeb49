package delta

import (
	"bytes"
	"encoding/json"
	"maps"
	"slices"
	"testing"
)

// scanCases are JSON texts of the shapes a plan's revision takes, and a few it never takes.
var scanCases = []string{
	`{}`, `[]`, ` { "a" : 1 , "b":[1,2,{"c":"]}"}] } `, `{"a\"b":"x\\"}`, `{"\u0061":1,"a":2}`,
	`{"entries":[{"content":"x","status":"pending"},{"content":"{[\"]"}],"n":-1.5e3,"t":true,"z":null}`,
	`[1, "two", {"three":[3]}, [4], null, false]`, `{"a":}`, `{"a":1,}`, `[1,]`, `{"a" 1}`, `{"a":1}x`,
	`{"a":tru}`, `{"a":"unterminated}`, `["\u0001"]`, "[\"a\x01\"]", `{"a":01}`,
}

func FuzzScanObject(f *testing.F) {
	for _, c := range scanCases {
		f.Add([]byte(c))
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		checkScanObject(t, b)
		checkScanArray(t, b)
	})
}

// The scanners agree with encoding/json on everything encoding/json accepts; what they accept
// beyond that is only ever handed JSON that json.Marshal wrote.
func TestScannersAgreeWithEncodingJSON(t *testing.T) {
	for _, c := range scanCases {
		checkScanObject(t, []byte(c))
		checkScanArray(t, []byte(c))
	}
	// A real revision body, as the store encodes it.
	p := bigPlan("s", "p", 40)
	p.Raw = json.RawMessage(`{"nested":{"deep":["x",{"y":"\\\""}]}}`)
	checkScanObject(t, mustJSON(p))
}

func checkScanObject(t *testing.T, b []byte) {
	t.Helper()
	var want Fields
	wantErr := json.Unmarshal(b, &want)
	got, err := scanObject(b)
	if wantErr != nil {
		return
	}
	if err != nil {
		t.Fatalf("scanObject(%q) failed on valid JSON: %v", b, err)
	}
	if !slices.Equal(slices.Sorted(maps.Keys(got)), slices.Sorted(maps.Keys(want))) {
		t.Fatalf("scanObject(%q) members %v, want %v", b, slices.Sorted(maps.Keys(got)), slices.Sorted(maps.Keys(want)))
	}
	for k, v := range want {
		if !bytes.Equal(got[k], v) {
			t.Fatalf("scanObject(%q)[%q] = %s, want %s", b, k, got[k], v)
		}
	}
}

func checkScanArray(t *testing.T, b []byte) {
	t.Helper()
	var want []json.RawMessage
	wantErr := json.Unmarshal(b, &want)
	got, err := scanArray(b)
	if wantErr != nil {
		return
	}
	if err != nil {
		t.Fatalf("scanArray(%q) failed on valid JSON: %v", b, err)
	}
	if len(got) != len(want) {
		t.Fatalf("scanArray(%q) has %d elements, want %d", b, len(got), len(want))
	}
	for i := range want {
		if !bytes.Equal(got[i], want[i]) {
			t.Fatalf("scanArray(%q)[%d] = %s, want %s", b, i, got[i], want[i])
		}
	}
}
