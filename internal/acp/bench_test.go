package acp

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"strings"
	"testing"
)

func planUpdateLine(entries int) []byte {
	var b strings.Builder
	b.WriteString(`{"jsonrpc":"2.0","method":"session/update","params":{"sessionId":"sess_b0c39167111088253d25ea18","update":{"sessionUpdate":"plan_update","plan":{"type":"items","planId":"plan","entries":[`)
	statuses := []string{"completed", "in_progress", "pending"}
	for i := range entries {
		if i > 0 {
			b.WriteByte(',')
		}
		fmt.Fprintf(&b, `{"content":"Step %d: update the handler and its tests","priority":"medium","status":"%s"}`, i, statuses[min(i, 2)])
	}
	b.WriteString(`]}}}}`)
	return []byte(b.String())
}

// BenchmarkDecodePlanUpdate is the hot path of the proxy and ingest: one line holding a 10-entry
// plan_update, framed, validated and decoded.
func BenchmarkDecodePlanUpdate(b *testing.B) {
	line := planUpdateLine(10)
	b.SetBytes(int64(len(line)))
	b.ReportAllocs()
	for b.Loop() {
		msgs, err := DecodeLine(line)
		if err != nil {
			b.Fatal(err)
		}
		n, _, err := msgs[0].SessionNotification()
		if err != nil || len(n.Update.Plan.Entries) != 10 {
			b.Fatal(err)
		}
	}
}

// BenchmarkLineReader measures framing alone over 100k lines of a typical size.
func BenchmarkLineReader(b *testing.B) {
	var buf bytes.Buffer
	line := planUpdateLine(3)
	for range 100_000 {
		buf.Write(line)
		buf.WriteByte('\n')
	}
	data := buf.Bytes()
	b.SetBytes(int64(len(data)))
	b.ReportAllocs()
	for b.Loop() {
		lr := NewLineReader(bytes.NewReader(data), 1<<20)
		n := 0
		for {
			_, _, err := lr.Next()
			if errors.Is(err, io.EOF) {
				break
			}
			if err != nil {
				b.Fatal(err)
			}
			n++
		}
		if n != 100_000 {
			b.Fatalf("read %d lines", n)
		}
	}
}
