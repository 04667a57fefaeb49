package opencode

import (
	"bufio"
	"bytes"
	"io"
)

// MaxEventBytes bounds one event's data: a todo list or a message part with a tool's output.
const MaxEventBytes = 16 << 20

// ReadSSE reads a Server-Sent Events stream and calls fn with each event's data (its data
// lines joined by newlines) once a blank line ends it. Comments, ids, event names and retry fields are ignored: OpenCode
// puts the type inside the data. A line over MaxEventBytes ends the stream with an error.
func ReadSSE(r io.Reader, fn func(data []byte)) error {
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 0, 64<<10), MaxEventBytes)
	var data bytes.Buffer
	has := false
	for sc.Scan() {
		line := sc.Bytes()
		if len(line) == 0 {
			if has {
				fn(bytes.Clone(data.Bytes()))
			}
			data.Reset()
			has = false
			continue
		}
		field, value, _ := bytes.Cut(line, []byte(":"))
		if string(field) != "data" {
			continue
		}
		value = bytes.TrimPrefix(value, []byte(" "))
		if has {
			data.WriteByte('\n')
		}
		if data.Len()+len(value) > MaxEventBytes {
			data.Reset()
			has = false
			continue
		}
		data.Write(value)
		has = true
	}
	// An event not ended by a blank line was cut off with the stream: SSE drops it.
	return sc.Err()
}
