package acp

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"testing/iotest"
	"unicode/utf8"
)

// seedLines returns every line of every testdata file, for fuzz corpora.
func seedLines(f *testing.F) [][]byte {
	f.Helper()
	var out [][]byte
	for _, pattern := range []string{"testdata/spec/*.json", "testdata/schema/*.json", "testdata/*.jsonl"} {
		files, err := filepath.Glob(pattern)
		if err != nil {
			f.Fatal(err)
		}
		for _, name := range files {
			b, err := os.ReadFile(name)
			if err != nil {
				f.Fatal(err)
			}
			for l := range bytes.SplitSeq(bytes.TrimSpace(b), []byte("\n")) {
				out = append(out, l)
			}
		}
	}
	return out
}

// seedParams returns the params of every seed message with the given method.
func seedParams(f *testing.F, method string) [][]byte {
	var out [][]byte
	for _, l := range seedLines(f) {
		msgs, _ := DecodeLine(l)
		for _, m := range msgs {
			if m.Method == method {
				out = append(out, m.Params)
			}
		}
	}
	return out
}

// expectedLines is the reference model of LineReader: split on "\n", drop one trailing "\r",
// count every physical line, report the over-long, skip the blank.
func expectedLines(data []byte, maxLine int) []string {
	var want []string
	parts := bytes.Split(data, []byte("\n"))
	if len(parts[len(parts)-1]) == 0 {
		parts = parts[:len(parts)-1] // nothing after the last newline
	}
	for i, p := range parts {
		p = bytes.TrimSuffix(p, []byte("\r"))
		switch {
		case maxLine > 0 && len(p) > maxLine:
			want = append(want, "!"+strings.Repeat("x", i+1))
		case IsBlank(p):
		default:
			want = append(want, strings.Repeat("x", i+1)+":"+string(p))
		}
	}
	return want
}

func FuzzLineReader(f *testing.F) {
	f.Add([]byte("a\nb\r\n\n  \nlast"), 0, uint8(0))
	f.Add([]byte(strings.Repeat("y", 100)+"\n\r\n"), 10, uint8(3))
	for _, l := range seedLines(f)[:5] {
		f.Add(append(l, '\n'), 50, uint8(1))
	}
	f.Fuzz(func(t *testing.T, data []byte, maxLine int, mode uint8) {
		maxLine %= 300
		var r io.Reader = bytes.NewReader(data)
		if mode&1 == 1 {
			r = iotest.OneByteReader(r)
		}
		lr := newLineReaderSize(r, maxLine, 16+int(mode>>1)%64)
		var got, lines []string
		for {
			line, n, err := lr.Next()
			if errors.Is(err, io.EOF) {
				break
			}
			var le *LineError
			if errors.As(err, &le) {
				got = append(got, "!"+strings.Repeat("x", n))
				continue
			}
			if err != nil {
				t.Fatal(err)
			}
			got = append(got, strings.Repeat("x", n)+":"+string(line))
			lines = append(lines, string(line))
		}
		if want := expectedLines(data, maxLine); !equalStrings(got, want) {
			t.Fatalf("got %q\nwant %q", got, want)
		}
		// Without blank lines, carriage returns or a limit, the lines are the input.
		if maxLine <= 0 && !bytes.Contains(data, []byte("\r")) && len(lines) == len(expectedLines(data, 0)) &&
			len(lines) == bytes.Count(bytes.TrimSuffix(data, []byte("\n")), []byte("\n"))+1 {
			if joined := strings.Join(lines, "\n"); joined != string(bytes.TrimSuffix(data, []byte("\n"))) {
				t.Fatalf("concatenation %q != input %q", joined, data)
			}
		}
	})
}

func FuzzDecodeLine(f *testing.F) {
	for _, l := range seedLines(f) {
		f.Add(l)
	}
	f.Add([]byte(`[{"jsonrpc":"2.0","method":"a"},{"jsonrpc":"2.0","id":1,"error":{"code":1,"message":"m"}}]`))
	f.Add([]byte("{\"jsonrpc\":\"2.0\",\"method\":\"\xff\"}"))
	f.Fuzz(func(t *testing.T, line []byte) {
		msgs, err := DecodeLine(line)
		var le *LineError
		if err != nil && !errors.As(err, &le) {
			t.Fatalf("error %T is not a *LineError", err)
		}
		wellFormed := utf8.Valid(line) && json.Valid(line)
		if err == nil && !wellFormed {
			t.Fatalf("accepted malformed input %q", line)
		}
		if le != nil && le.Code == CodeParseError && wellFormed && len(TrimSpace(line)) > 0 {
			t.Fatalf("parse error for well-formed input: %v", le)
		}
		if err == nil && len(msgs) == 0 {
			t.Fatal("no messages and no error")
		}
		for _, m := range msgs {
			if !json.Valid(m.Raw) || !bytes.Contains(line, m.Raw) {
				t.Fatalf("Raw %q is not valid JSON from the line", m.Raw)
			}
			again, err := DecodeLine(m.Raw)
			if err != nil || len(again) != 1 {
				t.Fatalf("Raw %q does not decode again: %v", m.Raw, err)
			}
			a := again[0]
			if a.Method != m.Method || string(a.ID) != string(m.ID) || string(a.Params) != string(m.Params) || string(a.Result) != string(m.Result) {
				t.Fatalf("re-decoding Raw changed the message: %+v vs %+v", a, m)
			}
			if !m.IsRequest() && !m.IsNotification() && !m.IsResponse() {
				t.Fatalf("message of no kind: %+v", m)
			}
			checkSessionNotification(t, m)
		}
	})
}

func FuzzDecodeSessionNotification(f *testing.F) {
	for _, p := range seedParams(f, MethodSessionUpdate) {
		f.Add([]byte(p))
	}
	f.Add([]byte(`{"sessionId":"s","update":{"sessionUpdate":"plan","entries":[{"content":"a","priority":"urgent","status":"x"},1]}}`))
	f.Fuzz(func(t *testing.T, p []byte) {
		n, warns, err := DecodeSessionNotification(p)
		if err != nil {
			var de *DecodeError
			if !errors.As(err, &de) || de.Message == "" {
				t.Fatalf("error %v (%T)", err, err)
			}
			return
		}
		if !json.Valid(n.Update.Raw) || n.Update.Kind == "" {
			t.Fatalf("bad update %+v", n.Update)
		}
		for _, w := range warns {
			if !strings.HasPrefix(w.Path, "update") || w.Message == "" {
				t.Fatalf("bad warning %+v", w)
			}
		}
		if pl := n.Update.Plan; pl != nil {
			if pl.PlanID == "" || !json.Valid(pl.Raw) {
				t.Fatalf("bad plan %+v", pl)
			}
			for _, e := range pl.Entries {
				if !validPriority(e.Priority) || !validStatus(e.Status) {
					t.Fatalf("invalid entry kept: %+v", e)
				}
			}
		}
		if tc := n.Update.ToolCall; tc != nil {
			checkToolCall(t, tc)
		}
	})
}

// checkSessionNotification holds the method that trusts DecodeLine's checks to what
// DecodeSessionNotification finds checking the params itself.
func checkSessionNotification(t *testing.T, m Message) {
	t.Helper()
	n1, w1, err1 := m.SessionNotification()
	n2, w2, err2 := DecodeSessionNotification(m.Params)
	if fmt.Sprint(err1) != fmt.Sprint(err2) || !reflect.DeepEqual(n1, n2) || !reflect.DeepEqual(w1, w2) {
		t.Fatalf("Message.SessionNotification: %+v %v %v; DecodeSessionNotification: %+v %v %v", n1, w1, err1, n2, w2, err2)
	}
}

func checkToolCall(t *testing.T, tc *ToolCallUpdate) {
	t.Helper()
	if tc.Content == nil {
		return
	}
	var items []json.RawMessage
	if err := json.Unmarshal(tc.Content, &items); err != nil {
		t.Fatalf("content %q is not an array: %v", tc.Content, err)
	}
	for _, it := range items {
		if !IsObject(TrimSpace(it)) || isContentBlockType(typeOf(TrimSpace(it))) {
			t.Fatalf("content item %q not normalised", it)
		}
	}
}

func FuzzDecodeRequestPermission(f *testing.F) {
	for _, p := range seedParams(f, MethodRequestPermission) {
		f.Add([]byte(p))
	}
	f.Fuzz(func(t *testing.T, p []byte) {
		rp, err := DecodeRequestPermissionParams(p)
		if err != nil {
			var de *DecodeError
			if !errors.As(err, &de) {
				t.Fatalf("error %v (%T)", err, err)
			}
			return
		}
		checkToolCall(t, &rp.ToolCall)
		for _, o := range rp.Options {
			if o.OptionID == "" && !bytes.Contains(p, []byte(`"optionId"`)) {
				t.Fatalf("option without an id kept: %+v", o)
			}
		}
	})
}

// FuzzScanner feeds the internal scanner input that did not pass json.Valid: the decoders never
// do that, but a hand-built Message might reach it, and it must not panic or loop.
func FuzzScanner(f *testing.F) {
	for _, l := range seedLines(f)[:10] {
		f.Add(l)
	}
	f.Add([]byte(`{"a":`))
	f.Add([]byte(`["\`))
	f.Fuzz(func(t *testing.T, b []byte) {
		b = TrimSpace(b)
		if len(b) == 0 {
			return
		}
		var out [3][]byte
		Lookup(b, out[:], "a", "type", "jsonrpc")
		countElems(b)
		Unquote(b)
		describe(b)
		valueEnd(b, 0)
		nestingDepth(b)
		sp := newSpans(b)
		for range 2 { // noting, then using what was noted
			sp.lookup(b, out[:], "a", "type", "jsonrpc")
			sp.countElems(b)
			sp.valueEnd(b, 0)
		}
	})
}
