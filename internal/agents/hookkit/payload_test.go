package hookkit_test

import (
	"strings"
	"testing"

	"github.com/plandash/plandash/internal/agents/hookkit"
)

func TestDecodePayload(t *testing.T) {
	p, err := hookkit.DecodePayload([]byte(" {\"a\":\"x\",\"n\":3,\"o\":{\"k\":1},\"z\":null}\n"), 1<<20)
	if err != nil {
		t.Fatal(err)
	}
	if string(p.Raw) != `{"a":"x","n":3,"o":{"k":1},"z":null}` {
		t.Errorf("Raw = %s", p.Raw)
	}
	if p.String("a") != "x" || p.String("n") != "" || p.String("missing") != "" {
		t.Errorf("String: a=%q n=%q missing=%q", p.String("a"), p.String("n"), p.String("missing"))
	}
	if string(p.Value("o")) != `{"k":1}` || p.Value("z") != nil || p.Value("missing") != nil {
		t.Errorf("Value: o=%s z=%s missing=%s", p.Value("o"), p.Value("z"), p.Value("missing"))
	}
	for in, want := range map[string]string{
		"":                         "empty",
		"  \n":                     "empty",
		"\xff{}":                   "not valid UTF-8",
		"[1]":                      "not a JSON object",
		"null":                     "must be a JSON object, not null",
		`{"a":1}` + "tail":         "not a JSON object",
		strings.Repeat(" ", 2<<20): "over the 1 MiB limit",
	} {
		if _, err := hookkit.DecodePayload([]byte(in), 1<<20); err == nil || !strings.HasPrefix(err.Error(), want) {
			t.Errorf("DecodePayload(%.20q) = %v, want %q", in, err, want)
		}
	}
}

func FuzzDecodePayload(f *testing.F) {
	f.Add([]byte(`{"a":"x"}`))
	f.Add([]byte(`null`))
	f.Fuzz(func(t *testing.T, b []byte) {
		p, err := hookkit.DecodePayload(b, 1<<20)
		if err == nil && p.Members == nil {
			t.Fatal("a payload without members decoded")
		}
		for k := range p.Members {
			_ = p.String(k)
			_ = p.Value(k)
		}
	})
}
