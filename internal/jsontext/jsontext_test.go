package jsontext

import (
	"bytes"
	"encoding/json"
	"testing"
)

// FuzzAppendString: AppendString writes what encoding/json writes of the string, with and
// without HTML escaping, from a string and from bytes alike, and Len is its length.
func FuzzAppendString(f *testing.F) {
	for _, s := range []string{"", "plain", `"quoted" \ back`, "<b>&amp;</b>", "tab\tnew\nline\r\b\f\x00\x1f\x7f",
		"é ü 日本", "\u2028\u2029", "bad \xff\xfe utf8 \xc3", "\xed\xa0\x80 surrogate", "emoji 🙂"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		for _, e := range []Escaping{HTML, Plain} {
			var want bytes.Buffer
			enc := json.NewEncoder(&want)
			enc.SetEscapeHTML(bool(e))
			if err := enc.Encode(s); err != nil {
				t.Fatal(err)
			}
			w := bytes.TrimSuffix(want.Bytes(), []byte("\n"))
			if got := AppendString(nil, s, e); !bytes.Equal(got, w) {
				t.Fatalf("html=%v: %q, encoding/json %q", e, got, w)
			}
			if got := AppendString([]byte("x"), []byte(s), e); !bytes.Equal(got[1:], w) {
				t.Fatalf("html=%v, from bytes: %q, encoding/json %q", e, got[1:], w)
			}
			if n := Len(s, e); n != len(w) {
				t.Fatalf("html=%v: Len %d, written %d", e, n, len(w))
			}
		}
	})
}

func BenchmarkAppendString(b *testing.B) {
	s := []byte(`<div class="card" data-id="plan-1">Write the parser — “tolerant” one</div>` + "\n")
	buf := make([]byte, 0, 256)
	b.ReportAllocs()
	for b.Loop() {
		buf = AppendString(buf[:0], s, Plain)
	}
}
