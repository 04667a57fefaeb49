package plans

import (
	"bytes"
	"encoding/json"
	"strings"
	"testing"
	"unicode/utf8"
)

func TestFormatJSON(t *testing.T) {
	nested := func(n int) string { return strings.Repeat(`{"a":`, n) + "1" + strings.Repeat("}", n) }
	tests := []struct {
		name      string
		raw       string
		depth     int
		max       int
		want      string
		collapsed int
		truncated bool
	}{
		{"object in order", `{"b":1,"a":[1,2]}`, 20, 1000, "{\n  \"b\": 1,\n  \"a\": [\n    1,\n    2\n  ]\n}", 0, false},
		{"empty containers", `{"a":{},"b":[ ]}`, 20, 1000, "{\n  \"a\": {},\n  \"b\": []\n}", 0, false},
		{"strings keep brackets and escapes", `["{[\"x\\\\",":,"]`, 20, 1000, "[\n  \"{[\\\"x\\\\\\\\\",\n  \":,\"\n]", 0, false},
		{"scalar", ` 42 `, 20, 1000, "42", 0, false},
		{"not JSON kept as text", `{"a":`, 20, 1000, `{"a":`, 0, false},
		{"collapsed past the depth", `{"a":{"b":[1]},"c":[[2]],"d":{}}`, 1, 1000, "{\n  \"a\": {…},\n  \"c\": […],\n  \"d\": {}\n}", 2, false},
		{"cut at the size", `["abcdef","ghijkl"]`, 20, 8, "[\n  \"abc", 0, true},
		{"cut on a character boundary", `["ééééé"]`, 20, 8, "[\n  \"é", 0, true},
		{"not JSON cut", strings.Repeat("x", 10), 20, 4, "xxxx", 0, true},
		{"9000 deep stays small", nested(9000), 20, 64 << 10, "", 1, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := FormatJSONWithin([]byte(tt.raw), tt.depth, tt.max)
			if tt.want != "" && got.Text != tt.want {
				t.Errorf("text = %q, want %q", got.Text, tt.want)
			}
			if got.Collapsed != tt.collapsed || got.Truncated != tt.truncated {
				t.Errorf("collapsed %d truncated %v, want %d %v", got.Collapsed, got.Truncated, tt.collapsed, tt.truncated)
			}
			if len(got.Text) > tt.max {
				t.Errorf("%d bytes over the %d limit", len(got.Text), tt.max)
			}
			if got.Shortened() != (got.Note() != "") || !strings.HasPrefix(got.Display(), got.Text) {
				t.Errorf("note %q and display %q disagree with the text", got.Note(), got.Display())
			}
		})
	}
}

func TestIndentShallowKeepsTheValue(t *testing.T) {
	for _, raw := range []string{`{"a":[1,{"b":null}],"c":"x"}`, strings.Repeat(`[`, 9000) + strings.Repeat(`]`, 9000), `[]`, `"s"`} {
		out := IndentShallow([]byte(raw), 3)
		var a, b bytes.Buffer
		if err := json.Compact(&a, []byte(raw)); err != nil {
			t.Fatal(err)
		}
		if err := json.Compact(&b, out); err != nil {
			t.Fatalf("%.40q: the output is not JSON: %v", raw, err)
		}
		if a.String() != b.String() {
			t.Errorf("%.40q: the value changed", raw)
		}
		if len(out) > 4*len(raw)+64 {
			t.Errorf("%.40q: %d bytes from %d", raw, len(out), len(raw))
		}
	}
}

// FuzzFormatJSON: whatever an agent sends, the text stays within the limits and valid UTF-8 when
// the input is; a value within the limits reads exactly as json.Indent writes it; and
// IndentShallow never changes a value.
func FuzzFormatJSON(f *testing.F) {
	for _, s := range []string{`{"a":[1,2,{"b":"c"}]}`, `[[[[[[]]]]]]`, `"\u00e9\\\""`, `{"a":`, `[1,2,3]`, `{}`, " \n[ 1 , {\"x\" : [ ] } ]\t"} {
		f.Add([]byte(s), 3, 64)
	}
	f.Fuzz(func(t *testing.T, raw []byte, depth, max int) {
		depth, max = depth&31, max&4095
		got := FormatJSONWithin(raw, depth, max)
		if len(got.Text) > max {
			t.Fatalf("%d bytes over the %d limit", len(got.Text), max)
		}
		if utf8.Valid(raw) && !utf8.ValidString(got.Text) {
			t.Fatalf("text %q is not UTF-8", got.Text)
		}
		if !json.Valid(raw) {
			return
		}
		if !got.Shortened() {
			var want bytes.Buffer
			if err := json.Indent(&want, bytes.TrimSpace(raw), "", "  "); err != nil {
				t.Fatal(err)
			}
			if want.String() != got.Text {
				t.Fatalf("text %q, json.Indent writes %q", got.Text, want.String())
			}
		}
		var a, b bytes.Buffer
		if err := json.Compact(&a, raw); err != nil {
			t.Fatal(err)
		}
		if err := json.Compact(&b, IndentShallow(a.Bytes(), depth)); err != nil || a.String() != b.String() {
			t.Fatalf("IndentShallow changed %q: %v", a.String(), err)
		}
	})
}
