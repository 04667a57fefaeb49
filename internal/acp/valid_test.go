package acp

import (
	"bytes"
	"encoding/binary"
	"encoding/json"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// validCases are edges of the grammar; each is checked against encoding/json.
var validCases = []string{
	``, ` `, `{}`, `[]`, ` {} `, `{"a":1}`, `{"a" : [1, 2.5, -0, 1e10, 1E+2, 2e-3, true, false, null, "x"]}`,
	`{"a":}`, `{"a"}`, `{"a":1,}`, `[1,]`, `[,1]`, `{,}`, `[1 2]`, `{"a":1 "b":2}`, `{1:2}`, `[`, `]`, `{`, `}`,
	`01`, `-`, `-0`, `-01`, `1.`, `.5`, `1e`, `1e+`, `+1`, `1.5e3x`, `tru`, `truex`, `nul`, `nulll`, `"`, `"abc`,
	`"a\"b"`, `"a\\"`, `"\u00e9"`, `"\u00e"`, `"\u00eg"`, `"\x"`, `"\/"`, "\"a\tb\"", "\"a\x01\"", "\"\xff\xfe\"",
	`"\u12`, `{"a":[{"b":{"c":[[]]}}]}`, `[[[[]]]]]`, `[[[[]]]`, `{}{}`, `{} x`, "{}\n", "\t[1]\r\n", `"a"`, `1`,
	`{"a":1}}`, `[{]}`, `[}`, `{]`,
}

func TestValidMatchesEncodingJSON(t *testing.T) {
	cases := append([]string(nil), validCases...)
	raw, err := os.ReadFile(filepath.Join("testdata", "gosdk_exchange.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	for _, l := range bytes.Split(raw, []byte("\n")) {
		cases = append(cases, string(l), string(l[:len(l)/2]))
	}
	// encoding/json allows nesting 10,000 deep and no deeper.
	for _, depth := range []int{10000, 10001} {
		cases = append(cases, strings.Repeat("[", depth)+strings.Repeat("]", depth))
		cases = append(cases, strings.Repeat(`{"a":`, depth)+"1"+strings.Repeat("}", depth))
	}
	for _, c := range cases {
		if got, want := Valid([]byte(c)), json.Valid([]byte(c)); got != want {
			t.Errorf("Valid(%.80q) = %v, json.Valid says %v", c, got, want)
		}
	}
}

// FuzzValid: on any input, Valid agrees with encoding/json.Valid.
func FuzzValid(f *testing.F) {
	for _, c := range validCases {
		f.Add([]byte(c))
	}
	f.Add(planUpdateLine(3))
	f.Fuzz(func(t *testing.T, b []byte) {
		if got, want := Valid(b), json.Valid(b); got != want {
			t.Errorf("Valid(%q) = %v, json.Valid says %v", b, got, want)
		}
		if got, want := valid(b, newSpans(b)), json.Valid(b); got != want {
			t.Errorf("valid(%q) noting spans = %v, json.Valid says %v", b, got, want)
		}
	})
}

func BenchmarkValid(b *testing.B) {
	line := planUpdateLine(20)
	b.SetBytes(int64(len(line)))
	b.Run("encoding/json", func(b *testing.B) {
		for b.Loop() {
			json.Valid(line)
		}
	})
	b.Run("Valid", func(b *testing.B) {
		for b.Loop() {
			Valid(line)
		}
	})
}

// TestStringStop checks the eight-byte scan against a byte-at-a-time one on words made of the
// bytes around its edges (a borrow between bytes is where such a scan goes wrong).
func TestStringStop(t *testing.T) {
	edges := []byte{0x00, 0x01, 0x1f, 0x20, 0x21, '"', '#', '[', '\\', ']', 'a', 0x7f, 0x80, 0xa0, 0xa2, 0xdc, 0xff}
	r := rand.New(rand.NewPCG(1, 2))
	for range 1_000_000 {
		var w [8]byte
		for i := range w {
			w[i] = edges[r.IntN(len(edges))]
		}
		want := 8
		for i, c := range w {
			if c == '"' || c == '\\' || c < 0x20 {
				want = i
				break
			}
		}
		if got := stringStop(binary.LittleEndian.Uint64(w[:])); got != want {
			t.Fatalf("stringStop(% x) = %d, want %d", w, got, want)
		}
	}
}
