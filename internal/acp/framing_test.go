package acp

import (
	"bytes"
	"errors"
	"io"
	"strconv"
	"strings"
	"testing"
	"testing/iotest"
)

// readAll drains a LineReader into "lineNo:text" items and "lineNo!message" for errors.
func readAll(t *testing.T, lr *LineReader) []string {
	t.Helper()
	var got []string
	for {
		line, n, err := lr.Next()
		if errors.Is(err, io.EOF) {
			return got
		}
		var le *LineError
		switch {
		case errors.As(err, &le):
			if le.Line != n {
				t.Errorf("LineError.Line = %d, Next said %d", le.Line, n)
			}
			got = append(got, strconv.Itoa(n)+"!"+le.Message)
		case err != nil:
			t.Fatalf("Next: %v", err)
		default:
			got = append(got, strconv.Itoa(n)+":"+string(line))
		}
	}
}

func TestLineReader(t *testing.T) {
	big := strings.Repeat("x", 200_000) // far over bufio.Scanner's 64 KiB
	tests := []struct {
		name    string
		in      string
		maxLine int
		want    []string
	}{
		{"empty input", "", 0, nil},
		{"one line", "a\n", 0, []string{"1:a"}},
		{"last line without newline", "a\nb", 0, []string{"1:a", "2:b"}},
		{"crlf", "a\r\nb\r\n", 0, []string{"1:a", "2:b"}},
		{"only the trailing cr goes", "a\r\r\n", 0, []string{"1:a\r"}},
		{"blank lines counted, not returned", "\n\na\n  \t\r\n\nb\n\n", 0, []string{"3:a", "6:b"}},
		{"huge line unlimited", big + "\nz\n", 0, []string{"1:" + big, "2:z"}},
		{"huge line limited", "a\n" + big + "\nz", 1000, []string{"1:a", "2!line 2 is 200000 bytes, over the limit of 1000", "3:z"}},
		{"exactly at limit", "abcde\nabcdef\n", 5, []string{"1:abcde", "2!line 2 is 6 bytes, over the limit of 5"}},
		{"cr does not count toward limit", "abcde\r\n", 5, []string{"1:abcde"}},
		{"over limit at eof", "a\nabcdef", 5, []string{"1:a", "2!line 2 is 6 bytes, over the limit of 5"}},
		{"over limit then crlf", "abcdefgh\r\nb\r\n", 5, []string{"1!line 1 is 8 bytes, over the limit of 5", "2:b"}},
	}
	readers := map[string]func(io.Reader) io.Reader{
		"plain":   func(r io.Reader) io.Reader { return r },
		"onebyte": iotest.OneByteReader,
		"half":    iotest.HalfReader,
	}
	for _, tt := range tests {
		for rname, wrap := range readers {
			for _, size := range []int{16, readerBufSize} {
				lr := newLineReaderSize(wrap(strings.NewReader(tt.in)), tt.maxLine, size)
				got := readAll(t, lr)
				if !equalStrings(got, tt.want) {
					t.Errorf("%s/%s/buf%d:\n got %.200q\nwant %.200q", tt.name, rname, size, got, tt.want)
				}
			}
		}
	}
}

func equalStrings(a, b []string) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}

func TestLineReaderErrors(t *testing.T) {
	boom := errors.New("boom")
	lr := NewLineReader(io.MultiReader(strings.NewReader("a\nb"), iotest.ErrReader(boom)), 0)
	if line, n, err := lr.Next(); err != nil || string(line) != "a" || n != 1 {
		t.Fatalf("first Next = %q, %d, %v", line, n, err)
	}
	for range 2 { // the error is sticky
		if _, _, err := lr.Next(); !errors.Is(err, boom) {
			t.Fatalf("Next after failure = %v, want boom", err)
		}
	}
	lr = NewLineReader(strings.NewReader("a"), 0)
	lr.Next()
	for range 2 {
		if _, _, err := lr.Next(); err != io.EOF {
			t.Fatalf("Next at end = %v, want io.EOF", err)
		}
	}
}

func TestLineErrorString(t *testing.T) {
	tests := []struct {
		err  LineError
		want string
	}{
		{LineError{Code: CodeParseError, Message: "not valid JSON"}, "not valid JSON"},
		{LineError{Line: 7, Code: CodeParseError, Message: "not valid JSON"}, "line 7: not valid JSON"},
		{LineError{Line: 7, Message: "line 7 is 9 bytes, over the limit of 8"}, "line 7 is 9 bytes, over the limit of 8"},
	}
	for _, tt := range tests {
		if got := tt.err.Error(); got != tt.want {
			t.Errorf("Error() = %q, want %q", got, tt.want)
		}
	}
}

func TestDecodeStream(t *testing.T) {
	in := strings.Join([]string{
		`{"jsonrpc":"2.0","method":"session/cancel","params":{"sessionId":"s"}}`,
		``,
		`not json`,
		`{"jsonrpc":"2.0","id":1,"result":{}}` + "\r",
		`{"jsonrpc":"2.0","method":"x","params":{"pad":"` + strings.Repeat("p", 100) + `"}}`,
		`[{"jsonrpc":"2.0","method":"a"},{"jsonrpc":"1.0","method":"b"}]`,
	}, "\n")
	type call struct {
		line  int
		n     int
		code  int
		error string
	}
	var got []call
	err := DecodeStream(strings.NewReader(in), 80, func(lineNo int, msgs []Message, err *LineError) error {
		c := call{line: lineNo, n: len(msgs)}
		if err != nil {
			c.code, c.error = err.Code, err.Error()
		}
		got = append(got, c)
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	want := []call{
		{line: 1, n: 1},
		{line: 3, code: CodeParseError, error: "line 3: not valid JSON: invalid character 'o' in literal null (expecting 'u') (at byte 2)"},
		{line: 4, n: 1},
		{line: 5, code: CodeInvalidRequest, error: "line 5 is 150 bytes, over the limit of 80"},
		{line: 6, n: 1, code: CodeInvalidRequest, error: `line 6: batch element 1: "jsonrpc" must be "2.0", not "1.0"`},
	}
	if len(got) != len(want) {
		t.Fatalf("got %d calls %+v, want %+v", len(got), got, want)
	}
	for i := range want {
		if got[i] != want[i] {
			t.Errorf("call %d = %+v, want %+v", i, got[i], want[i])
		}
	}

	stop := errors.New("stop")
	calls := 0
	err = DecodeStream(strings.NewReader(in), 0, func(int, []Message, *LineError) error {
		calls++
		return stop
	})
	if !errors.Is(err, stop) || calls != 1 {
		t.Errorf("DecodeStream with failing fn = %v after %d calls, want stop after 1", err, calls)
	}
}

// The messages handed to fn must survive the reader reusing its buffer.
func TestDecodeStreamMessagesOutliveBuffer(t *testing.T) {
	var buf bytes.Buffer
	for i := range 50 {
		buf.WriteString(`{"jsonrpc":"2.0","method":"m` + string(rune('a'+i%26)) + `","params":{"i":"` + strings.Repeat("q", i*40) + `"}}` + "\n")
	}
	want := bytes.Split(bytes.TrimSpace(buf.Bytes()), []byte("\n"))
	var kept []Message
	err := DecodeStream(bytes.NewReader(buf.Bytes()), 0, func(_ int, msgs []Message, err *LineError) error {
		if err != nil {
			t.Fatal(err)
		}
		kept = append(kept, msgs...)
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	for i, m := range kept {
		if !bytes.Equal(m.Raw, want[i]) {
			t.Fatalf("message %d Raw changed after later lines were read", i)
		}
	}
}
