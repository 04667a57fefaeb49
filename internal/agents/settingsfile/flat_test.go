package settingsfile

import (
	"bytes"
	"encoding/json"
	"strings"
	"testing"
)

func flatHooks(server string) FlatHooks {
	entry := func(ev string) json.RawMessage {
		b, _ := json.Marshal(map[string]any{"type": "command", "bash": HookCommand("/opt/my tools/plandash", "x", Flag{"--server", server}),
			"env": map[string]string{"EV": ev}})
		return b
	}
	return FlatHooks{Agent: "x", CommandKey: "bash", Events: []string{"preToolUse", "agentStop"},
		Entries: map[string][]json.RawMessage{"preToolUse": {entry("pre")}, "agentStop": {entry("stop")}}}
}

// flatOurs counts plandash's entries in a file's hooks.
func flatOurs(t *testing.T, b []byte) int {
	t.Helper()
	top, err := ParseObject(b)
	if err != nil {
		return 0
	}
	raw, _ := top.Get("hooks")
	hooks, _ := ParseObject(raw)
	n := 0
	for _, m := range hooks {
		es, _ := ParseArray(m.Value)
		for _, e := range es {
			if isOurEntry(e, "bash", "x") {
				n++
			}
		}
	}
	return n
}

func TestMergeFlatHooks(t *testing.T) {
	user := "{\n  \"banner\": \"never\",\n  \"hooks\": {\n    \"preToolUse\": [\n      {\n        \"type\": \"command\",\n        \"bash\": \"./audit.sh\"\n      }\n    ]\n  }\n}\n"
	out, ch, err := MergeFlatHooks("/s.json", []byte(user), flatHooks("http://h:1"))
	if err != nil || !ch.Changed() {
		t.Fatalf("install: %+v %v", ch, err)
	}
	if !strings.Contains(string(out), "./audit.sh") || flatOurs(t, out) != 2 {
		t.Fatalf("install lost the user's hook or added the wrong number:\n%s", out)
	}
	if i, j := strings.Index(string(out), "./audit.sh"), strings.Index(string(out), "hook x"); i > j {
		t.Errorf("plandash's entry goes after the user's:\n%s", out)
	}
	again, ch, _ := MergeFlatHooks("/s.json", out, flatHooks("http://h:1"))
	if ch.Changed() || !bytes.Equal(again, out) {
		t.Errorf("a second install changed the file:\n%s", again)
	}
	back, _, err := MergeFlatHooks("/s.json", out, FlatHooks{Agent: "x", CommandKey: "bash"})
	if err != nil || string(back) != user {
		t.Errorf("uninstall did not give the file back (%v):\n%s", err, back)
	}
	if _, _, err := MergeFlatHooks("/s.json", []byte(`{"hooks":{"preToolUse":{}}}`), flatHooks("h")); err == nil || !strings.Contains(err.Error(), "hooks.preToolUse is not an array") {
		t.Errorf("a non-array event: %v", err)
	}
}

// FuzzMergeFlatHooks: for every file MergeFlatHooks accepts, the output is an object, a second
// install changes no byte, plandash's entries are there once and gone after uninstall, and a
// file without plandash's entries, in whatever layout, comes back byte for byte from install
// then uninstall (unless it held a duplicate or empty "hooks" or event).
func FuzzMergeFlatHooks(f *testing.F) {
	for _, s := range []string{``, `{}`, `{"hooks":null}`, `{"hooks":{}}`, `{"a":1,"a":2}`, `{"hooks":{"preToolUse":[]}}`,
		`{"hooks":{"preToolUse":[1,{"bash":"plandash hook x"},{"bash":"y"}]}}`, `{"hooks":{"agentStop":{"a":1}}}`,
		"{\r\n\t\"hooks\" : {\r\n\t\t\"preToolUse\" : [ {\"bash\" : \"./a.sh\"} ]\r\n\t},\r\n\t\"x\":1\r\n}\r\n",
		`  {"banner":"never", "hooks": {"agentStop": [{"bash": "./n.sh"}]}}  `} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, in []byte) {
		h := flatHooks("http://h:1")
		out, ch, err := MergeFlatHooks("/s.json", in, h)
		if err != nil {
			return
		}
		if !ch.Changed() && !bytes.Equal(out, in) {
			t.Fatalf("nothing changed but the bytes did")
		}
		if _, err := ParseObject(out); err != nil {
			t.Fatalf("the output is no object: %v\n%s", err, out)
		}
		if n := flatOurs(t, out); n != 2 {
			t.Fatalf("%d plandash entries, want 2:\n%s", n, out)
		}
		again, ch2, err := MergeFlatHooks("/s.json", out, h)
		if err != nil || ch2.Changed() || !bytes.Equal(again, out) {
			t.Fatalf("second install: %+v %v", ch2, err)
		}
		clean, _, err := MergeFlatHooks("/s.json", out, FlatHooks{Agent: "x", CommandKey: "bash"})
		if err != nil || flatOurs(t, clean) != 0 {
			t.Fatalf("uninstall: %v\n%s", err, clean)
		}
		top, err := ParseFile("/s.json", in)
		if err != nil || len(top) == 0 || !restorable(top) || flatOurs(t, in) != 0 {
			return
		}
		back, _, err := MergeFlatHooks("/s.json", out, FlatHooks{Agent: "x", CommandKey: "bash"})
		if err != nil || !bytes.Equal(back, in) {
			t.Fatalf("install then uninstall did not give the file back (%v):\n%q\n→\n%q\n→\n%q", err, in, out, back)
		}
	})
}

// FuzzMergeFlatHooksGenerated holds FuzzMergeFlatHooks's round trip for settings files written
// from the fuzzer's bytes in every layout (see FuzzMergeHooksGenerated).
func FuzzMergeFlatHooksGenerated(f *testing.F) {
	for _, s := range []string{"", "\x00", "\x01\x02\x03\x04\x05\x06\x07\x08", "\xff\xfe\xfd\xfc\xfb\xfa\xf9\xf8\xf7\xf6\xf5\xf4"} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, seed []byte) {
		in := []byte((&gen{b: seed}).file())
		out, _, err := MergeFlatHooks("/s.json", in, flatHooks("http://h:1"))
		if err != nil {
			return
		}
		if n := flatOurs(t, out); n != 2 {
			t.Fatalf("%d plandash entries, want 2:\n%s", n, out)
		}
		top, err := ParseFile("/s.json", in)
		if err != nil || len(top) == 0 || !restorable(top) {
			return
		}
		back, _, err := MergeFlatHooks("/s.json", out, FlatHooks{Agent: "x", CommandKey: "bash"})
		if err != nil || !bytes.Equal(back, in) {
			t.Fatalf("install then uninstall did not give the file back (%v):\n%q\n→\n%q\n→\n%q", err, in, out, back)
		}
	})
}
