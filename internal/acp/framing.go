package acp

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io"
)

// LineError reports one line that could not be used: too long, not JSON, or not a JSON-RPC
// message. Code is the JSON-RPC error code an ingest endpoint would answer with. Line is 0 when
// the error came from DecodeLine, which does not know where its input came from.
type LineError struct {
	Line    int
	Code    int
	Message string
	TooLong bool // the line is over the reader's limit (its bytes were skipped, not read)
}

// Error prefixes the line number, except on messages that already name their line (the
// over-long line report), which would otherwise read "line 5: line 5 is …".
func (e *LineError) Error() string {
	if e.Line <= 0 || len(e.Message) >= 5 && e.Message[:5] == "line " {
		return e.Message
	}
	return fmt.Sprintf("line %d: %s", e.Line, e.Message)
}

// LineReader splits NDJSON into lines of any size. ACP lines carry whole diffs and base64 images,
// so bufio.Scanner's fixed 64 KiB token limit would break real traffic; here the only limit is
// the caller's maxLine, and a line over it is reported and skipped without losing its neighbours.
type LineReader struct {
	r       *bufio.Reader
	maxLine int
	lineNo  int
	buf     []byte
	err     error // sticky: once the input fails or ends, it stays so
}

// readerBufSize is large enough that typical lines are returned straight from bufio's buffer
// without a copy.
const readerBufSize = 64 << 10

// NewLineReader returns a reader of newline-delimited lines from r. maxLine <= 0 means lines may
// be any length.
func NewLineReader(r io.Reader, maxLine int) *LineReader {
	size := readerBufSize
	// An ingest post is read from memory and is often one short line: a buffer the size of
	// what is left to read is enough, rather than 64 KiB to allocate and clear per post.
	if br, ok := r.(*bytes.Reader); ok && br.Len() < size {
		size = br.Len() + 1
	}
	return newLineReaderSize(r, maxLine, size)
}

// newLineReaderSize lets tests force lines across many buffer refills.
func newLineReaderSize(r io.Reader, maxLine, size int) *LineReader {
	return &LineReader{r: bufio.NewReaderSize(r, size), maxLine: maxLine}
}

// Next returns the next non-blank line without its "\n" or "\r\n", and its 1-based line number
// in the input (blank lines are counted, so numbers match an editor's). The returned slice is only
// valid until the next call, like bufio.Scanner's; DecodeLine copies what it keeps. A line over
// the limit is returned as a *LineError and the following call carries on after it. At the end
// of input Next returns io.EOF; any other read error is returned as is and repeats.
func (lr *LineReader) Next() (line []byte, lineNo int, err error) {
	for {
		if lr.err != nil {
			return nil, lr.lineNo, lr.err
		}
		line, size, readErr := lr.readLine()
		if readErr != nil && !errors.Is(readErr, io.EOF) {
			lr.err = readErr
			return nil, lr.lineNo, readErr
		}
		if readErr != nil {
			lr.err = io.EOF
			if size == 0 {
				// Nothing after the last newline: no final line to count.
				return nil, lr.lineNo, io.EOF
			}
		}
		lr.lineNo++
		if lr.maxLine > 0 && size > lr.maxLine {
			return nil, lr.lineNo, &LineError{
				Line:    lr.lineNo,
				Code:    CodeInvalidRequest,
				Message: fmt.Sprintf("line %d is %d bytes, over the limit of %d", lr.lineNo, size, lr.maxLine),
				TooLong: true,
			}
		}
		if IsBlank(line) {
			continue
		}
		return line, lr.lineNo, nil
	}
}

// readLine reads one physical line. size is the length without the terminator, counted even when
// the bytes were discarded for being over the limit. err is io.EOF when the input ended (with or
// without a final line).
func (lr *LineReader) readLine() (line []byte, size int, err error) {
	var over bool // the line is already known to be over the limit, so its bytes are dropped
	if cap(lr.buf) > 4<<20 {
		lr.buf = nil // one huge line should not pin its buffer for the rest of the stream
	}
	lr.buf = lr.buf[:0]
	var lastCR bool
	for {
		chunk, err := lr.r.ReadSlice('\n')
		terminated := err == nil
		if terminated {
			chunk = chunk[:len(chunk)-1]
		}
		if len(chunk) > 0 {
			lastCR = chunk[len(chunk)-1] == '\r'
		}
		size += len(chunk)
		switch {
		case over:
		case lr.maxLine > 0 && size > lr.maxLine+1:
			// One byte of slack: a trailing "\r" is not part of the line.
			over = true
			lr.buf = lr.buf[:0]
		case terminated && len(lr.buf) == 0:
			// Fast path: the whole line sits in bufio's buffer; no copy.
			line = chunk
		default:
			lr.buf = append(lr.buf, chunk...)
			line = lr.buf
		}
		if terminated || !errors.Is(err, bufio.ErrBufferFull) {
			if lastCR {
				size--
				if !over && len(line) > 0 {
					line = line[:len(line)-1]
				}
			}
			if over {
				line = nil
			}
			if terminated {
				return line, size, nil
			}
			return line, size, err
		}
	}
}

// IsBlank reports whether b holds nothing but JSON whitespace.
func IsBlank(b []byte) bool {
	for _, c := range b {
		if !isSpace(c) {
			return false
		}
	}
	return true
}

// DecodeStream reads NDJSON from r and calls fn once per non-blank line, with the line's
// messages or the reason the line was rejected (sometimes both: a batch keeps its good elements).
// Bad lines do not stop the stream; an error from fn or from reading r does, and is returned.
// It returns nil at the end of input.
func DecodeStream(r io.Reader, maxLine int, fn func(lineNo int, msgs []Message, err *LineError) error) error {
	lr := NewLineReader(r, maxLine)
	for {
		line, n, err := lr.Next()
		if errors.Is(err, io.EOF) {
			return nil
		}
		var le *LineError
		if errors.As(err, &le) {
			if err := fn(n, nil, le); err != nil {
				return err
			}
			continue
		}
		if err != nil {
			return err
		}
		msgs, derr := DecodeLine(line)
		le = nil
		if derr != nil {
			le = derr.(*LineError)
			le.Line = n
		}
		if err := fn(n, msgs, le); err != nil {
			return err
		}
	}
}
