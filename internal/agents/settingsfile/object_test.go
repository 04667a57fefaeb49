package settingsfile

import (
	"bytes"
	"encoding/json"
	"strings"
	"testing"
)

func TestObject(t *testing.T) {
	o, err := ParseObject([]byte(` {"b": 1, "a\u003c": [1, 2], "dup": 1, "x": {"y": 2}, "dup": 2} `))
	if err != nil {
		t.Fatal(err)
	}
	if got := string(o.Marshal()); got != `{"b": 1, "a\u003c": [1, 2], "dup": 1, "x": {"y": 2}, "dup": 2}` {
		t.Errorf("Marshal did not keep the bytes: %s", got)
	}
	if v, ok := o.Get("dup"); !ok || string(v) != "2" {
		t.Errorf("Get of a duplicate = %s, want the last", v)
	}
	if _, ok := o.Get("nope"); ok {
		t.Error("Get of a missing key")
	}
	o.Set("dup", json.RawMessage(`3`))
	o.Set("a<", json.RawMessage(`true`))
	o.Set("new&", json.RawMessage(`null`))
	if got := string(o.Marshal()); got != `{"b": 1, "a\u003c": true, "x": {"y": 2}, "dup": 3, "new&": null}` {
		t.Errorf("after Set: %s", got)
	}
	o.Del("x")
	o.Del("b")
	if got := string(o.Marshal()); got != `{"a\u003c": true, "dup": 3, "new&": null}` {
		t.Errorf("after Del: %s", got)
	}
	o[0].Key = "renamed"
	if got := string(o.Marshal()); !strings.HasPrefix(got, `{"renamed": true`) {
		t.Errorf("a renamed key: %s", got)
	}
	if got := string((Object{}).Marshal()); got != "{}" {
		t.Errorf("empty: %s", got)
	}
}

func TestParseRefuses(t *testing.T) {
	for _, in := range []string{``, `[]`, `null`, `1`, `{"a":1} x`, `{"a":1}{}`, `{"a":}`, `{"a":1`} {
		if _, err := ParseObject([]byte(in)); err == nil {
			t.Errorf("ParseObject(%q) accepted", in)
		}
	}
	for _, in := range []string{``, `{}`, `null`, `[1] 2`, `[1`} {
		if _, err := ParseArray([]byte(in)); err == nil {
			t.Errorf("ParseArray(%q) accepted", in)
		}
	}
	a, err := ParseArray([]byte(` [ {"a" : 1}, 2 ] `))
	if err != nil || len(a) != 2 || string(a[0]) != `{"a" : 1}` || string(MarshalArray(a)) != `[{"a" : 1},2]` {
		t.Errorf("ParseArray = %q, %v", a, err)
	}
}

func TestParseFile(t *testing.T) {
	tests := []struct{ in, say string }{
		{"{\n  \"a\": 1,\n  \"b\": {,}\n}\n", "/s.json is not valid JSON (line 3, column 9"},
		{"{\n  \"a\": 1, // mine\n}", "/s.json has a comment at line 2, column 11"},
		{"/* head */ {}", "has a comment at line 1, column 1"},
		{`{"url": "http://x"} x`, "line 1, column 21"},
		{`["x"]`, "/s.json must hold a JSON object"},
		{`null`, "must hold a JSON object"},
		{`{"a":1}{}`, "line 1, column 8"},
	}
	for _, tt := range tests {
		_, err := ParseFile("/s.json", []byte(tt.in))
		if err == nil || !strings.Contains(err.Error(), tt.say) || !strings.Contains(err.Error(), "left it untouched") && !strings.Contains(err.Error(), "left untouched") {
			t.Errorf("%q: %v, want %q", tt.in, err, tt.say)
		}
	}
	for _, in := range []string{"", " \n\t", `{"url": "http://x // y /* z"}`} {
		if _, err := ParseFile("/s.json", []byte(in)); err != nil {
			t.Errorf("%q: %v", in, err)
		}
	}
}

func TestIndent(t *testing.T) {
	in := []byte(`{"a":[1,{"b":"c"}],"d":{}}`)
	want := "{\n  \"a\": [\n    1,\n    {\n      \"b\": \"c\"\n    }\n  ],\n  \"d\": {}\n}\n"
	if got := string(Indent(in)); got != want {
		t.Errorf("Indent:\n%s", got)
	}
	if got := string(Indent([]byte(want))); got != want {
		t.Errorf("Indent of an indented file changed it:\n%s", got)
	}
}

func TestHookCommand(t *testing.T) {
	tests := []struct {
		bin   string
		flags []Flag
		want  string
	}{
		{"", nil, "plandash hook claude"},
		{"/bin/plandash", []Flag{{"--server", "http://h:1"}, {"--data", ""}, {"--token", "tok-1"}}, "/bin/plandash hook claude --server http://h:1 --token tok-1"},
		{"/opt/my tools/plandash", []Flag{{"--data", "/a b"}}, "'/opt/my tools/plandash' hook claude --data '/a b'"},
		{"/opt/it's/plandash", []Flag{{"--token", "a b'c"}}, `'/opt/it'\''s/plandash' hook claude --token 'a b'\''c'`},
	}
	for _, tt := range tests {
		got := HookCommand(tt.bin, "claude", tt.flags...)
		if got != tt.want {
			t.Errorf("got %s, want %s", got, tt.want)
		}
		if !IsOurCommand(got, "claude") || IsOurCommand(got, "codex") {
			t.Errorf("%s is not recognised as claude's", got)
		}
	}
}

func TestIsOurs(t *testing.T) {
	for cmd, want := range map[string]bool{
		"plandash hook claude":                              true,
		"  /usr/local/bin/plandash hook claude --server x":  true,
		"/home/u/go/bin/plandash-dev hook claude":           true,
		"'/opt/my tools/plandash' hook claude":              true,
		`"/opt/my tools/plandash" hook claude`:              true,
		"'/opt/it'\\''s/plandash' hook claude":              true,
		"'/opt/tools/plandash' hook claude --data '/a b'":   true,
		"plandash hook codex":                               false,
		"plandash hook":                                     false,
		"plandash hooks claude":                             false,
		"echo plandash hook claude":                         false,
		"/plandash/bin/other hook claude":                   false,
		"'unterminated hook claude":                         false,
		"curl -s http://localhost:7420/api/v1/hooks/claude": false,
	} {
		h, _ := json.Marshal(map[string]string{"type": "command", "command": cmd})
		if got := (Hooks{Agent: "claude"}).IsOurs(h); got != want {
			t.Errorf("%q: got %v", cmd, got)
		}
	}
	for _, h := range []string{`[]`, `{"command":1}`, `"plandash hook claude"`} {
		if (Hooks{Agent: "claude"}).IsOurs(json.RawMessage(h)) {
			t.Errorf("%s counted as ours", h)
		}
	}
}

// FuzzParseObject: whatever ParseObject accepts, Marshal writes back byte for byte (the space
// around it, and inside an empty object, aside); changed, it is still a JSON object holding the same members; Set then Get
// agree. The same for arrays.
func FuzzParseObject(f *testing.F) {
	for _, s := range []string{`{}`, `{"a":1,"a":2}`, `{"\u00e9\n":"\ud800","<":[1, {"x" : null}]}`, `[]`, `{"a":1} 2`, "{\"\xff\":1}", `{"a":{"b":[]}}`} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		o, err := ParseObject(b)
		if err != nil {
			return
		}
		want := bytes.Trim(b, " \t\r\n")
		if len(o) == 0 {
			want = []byte("{}") // no member to keep the space inside
		}
		if got := o.Marshal(); !bytes.Equal(got, want) {
			t.Fatalf("Marshal changed an object as read: %q → %q", b, got)
		}
		arr := append(append([]byte("[1,"), b...), ']')
		if a, err := parseArray(arr); err != nil || !bytes.Equal(a.marshal(), arr) {
			t.Fatalf("an array as read changed: %v %s", err, a.marshal())
		}
		o.Set("new", json.RawMessage(`{"a":[1,2]}`))
		o.Del("new")
		out := o.Marshal()
		if !json.Valid(out) {
			t.Fatalf("Marshal made invalid JSON %q from %q", out, b)
		}
		again, err := ParseObject(out)
		if err != nil || len(again) != len(o) {
			t.Fatalf("reparse: %v, %d members of %d", err, len(again), len(o))
		}
		for i := range o {
			if again[i].Key != o[i].Key || string(again[i].Value) != string(o[i].Value) {
				t.Fatalf("member %d: %q=%s became %q=%s", i, o[i].Key, o[i].Value, again[i].Key, again[i].Value)
			}
		}
		if string(again.Marshal()) != string(out) {
			t.Fatalf("Marshal is not stable: %s then %s", out, again.Marshal())
		}
		for _, m := range o {
			again.Set(m.Key, json.RawMessage(`"set"`))
			if v, ok := again.Get(m.Key); !ok || string(v) != `"set"` {
				t.Fatalf("Set %q then Get = %s", m.Key, v)
			}
		}
		if len(again) > len(o) {
			t.Fatalf("Set of existing keys grew the object: %d > %d", len(again), len(o))
		}
	})
}
