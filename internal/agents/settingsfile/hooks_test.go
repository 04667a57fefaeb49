package settingsfile

import (
	"encoding/json"
	"reflect"
	"strings"
	"testing"
)

// testHooks is an install of agent "x": two events with one group, one with two.
func testHooks(server string) Hooks {
	cmd := HookCommand("/opt/my tools/plandash", "x", Flag{"--server", server})
	group := func(matcher string) json.RawMessage {
		o := Object{}
		if matcher != "" {
			m, _ := json.Marshal(matcher)
			o.Set("matcher", m)
		}
		h, _ := json.Marshal(map[string]any{"type": "command", "command": cmd, "timeout": 30})
		o.Set("hooks", MarshalArray([]json.RawMessage{h}))
		return o.Marshal()
	}
	return Hooks{Agent: "x", Events: []string{"Start", "Stop", "PreTool"}, Groups: map[string][]json.RawMessage{
		"Start":   {group("")},
		"Stop":    {group("")},
		"PreTool": {group("plan"), group("ask")},
	}}
}

// userFile is a settings file as an agent writes it, with the user's own hooks.
const userFile = `{
  "model": "m",
  "hooks": {
    "Stop": [
      {
        "hooks": [
          {
            "type": "command",
            "command": "say done"
          }
        ]
      }
    ],
    "Other": "not ours to judge"
  },
  "env": {
    "A\u003c": "1"
  }
}
`

func TestMergeHooks(t *testing.T) {
	if top, err := ParseFile("/s.json", []byte(userFile)); err != nil || !restorable(top) {
		t.Fatalf("userFile is no file the fuzz targets give back byte for byte: %v", err)
	}
	h := testHooks("http://h:1")
	out, ch, err := MergeHooks("/s.json", []byte(userFile), h)
	if err != nil {
		t.Fatal(err)
	}
	want := Changes{Added: []string{"Stop", "Start", "PreTool"}}
	if !reflect.DeepEqual(ch, want) {
		t.Errorf("changes %+v, want %+v", ch, want)
	}
	s := string(out)
	if i, j, k := strings.Index(s, `"model"`), strings.Index(s, `"hooks"`), strings.Index(s, `"env"`); !(i < j && j < k) || !strings.Contains(s, `"A\u003c"`) {
		t.Errorf("the user's keys moved or changed:\n%s", s)
	}
	if strings.Index(s, "say done") > strings.Index(s, "hook x") {
		t.Errorf("plandash's hook went before the user's:\n%s", s)
	}
	if again, ch, err := MergeHooks("/s.json", out, h); err != nil || ch.Changed() || string(again) != s {
		t.Errorf("second install: %+v %v", ch, err)
	}
	// Another server replaces plandash's groups only.
	moved, ch, err := MergeHooks("/s.json", out, testHooks("http://h:2"))
	if err != nil || !reflect.DeepEqual(ch, Changes{Updated: []string{"Stop", "Start", "PreTool"}}) || strings.Contains(string(moved), "h:1") {
		t.Errorf("update: %+v %v\n%s", ch, err, moved)
	}
	// One event less: its groups go.
	less := testHooks("http://h:2")
	delete(less.Groups, "PreTool")
	if _, ch, err := MergeHooks("/s.json", moved, less); err != nil || !reflect.DeepEqual(ch, Changes{Removed: []string{"PreTool"}}) {
		t.Errorf("one event less: %+v %v", ch, err)
	}
	back, ch, err := MergeHooks("/s.json", moved, Hooks{Agent: "x"})
	if err != nil || !reflect.DeepEqual(ch, Changes{Removed: []string{"Stop", "Start", "PreTool"}}) || string(back) != userFile {
		t.Errorf("uninstall: %+v %v\n%s", ch, err, back)
	}
	if same, ch, err := MergeHooks("/s.json", []byte(userFile), Hooks{Agent: "x"}); err != nil || ch.Changed() || string(same) != userFile {
		t.Errorf("uninstall with nothing installed: %+v %v", ch, err)
	}
}

func TestMergeHooksMixedGroup(t *testing.T) {
	in := `{"hooks":{"Stop":[{"matcher":"","hooks":[{"command":"say done"},{"command":"plandash hook x"}]}]}}`
	out, ch, err := MergeHooks("/s.json", []byte(in), Hooks{Agent: "x"})
	if err != nil || !reflect.DeepEqual(ch.Removed, []string{"Stop"}) {
		t.Fatalf("%+v %v", ch, err)
	}
	if strings.Contains(string(out), "plandash") || !strings.Contains(string(out), "say done") || !strings.Contains(string(out), `"matcher"`) {
		t.Errorf("%s", out)
	}
	// Another agent's hooks are not ours.
	in = `{"hooks":{"Stop":[{"hooks":[{"command":"plandash hook y"}]}]}}`
	if out, ch, err := MergeHooks("/s.json", []byte(in), Hooks{Agent: "x"}); err != nil || ch.Changed() || string(out) != in {
		t.Errorf("another agent's hook: %+v %v %s", ch, err, out)
	}
}

func TestMergeHooksRefuses(t *testing.T) {
	tests := []struct{ name, body, say string }{
		{"syntax", "{\n  \"model\": \"x\",\n  \"hooks\": {,}\n}\n", "/s.json is not valid JSON (line 3, column 13"},
		{"comment", "{\n  // mine\n}", "/s.json has a comment at line 2, column 3"},
		{"not an object", `["x"]`, "/s.json must hold a JSON object"},
		{"trailing data", `{} {}`, "/s.json is not valid JSON (line 1, column 4"},
		{"hooks not an object", `{"hooks": []}`, `/s.json: "hooks" is not an object`},
		{"event not an array", `{"hooks": {"Stop": {}}}`, "/s.json: hooks.Stop is not an array"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, _, err := MergeHooks("/s.json", []byte(tt.body), testHooks(""))
			if err == nil || !strings.Contains(err.Error(), tt.say) || !strings.Contains(err.Error(), "untouched") {
				t.Errorf("got %v, want %q", err, tt.say)
			}
		})
	}
	// An event plandash does not hook is not judged.
	in := `{"hooks": {"Other": {}, "Stop": [{"hooks":[{"command":"plandash hook x"}]}]}}`
	if _, ch, err := MergeHooks("/s.json", []byte(in), Hooks{Agent: "x"}); err != nil || !reflect.DeepEqual(ch.Removed, []string{"Stop"}) {
		t.Errorf("%+v %v", ch, err)
	}
	// An empty file is an empty object.
	out, ch, err := MergeHooks("/s.json", []byte(" \n"), testHooks(""))
	if err != nil || !ch.Changed() || !json.Valid(out) {
		t.Errorf("empty file: %+v %v", ch, err)
	}
	if same, ch, err := MergeHooks("/s.json", nil, Hooks{Agent: "x"}); err != nil || ch.Changed() || same != nil {
		t.Errorf("uninstall from no file: %q %+v %v", same, ch, err)
	}
}

// TestMergeHooksLayout: what plandash adds takes the layout of the file (four spaces, tabs,
// one line, CRLF), the user's bytes around it stay as they were, and uninstalling gives the
// file back byte for byte.
func TestMergeHooksLayout(t *testing.T) {
	tests := []struct{ name, in, has string }{
		{"four spaces", "{\n    \"a\": [1,\n        2],\n    \"hooks\": {\n        \"Stop\": [\n            {\"hooks\": [{\"command\": \"say\"}]}\n        ]\n    }\n}",
			"\n        \"Start\": [\n            {\n                \"hooks\": [\n                    {\n                        \"command\":"},
		{"tabs", "{\n\t\"model\": \"x\"\n}\n", "\t\"model\": \"x\",\n\t\"hooks\": {\n\t\t\"Start\": [\n\t\t\t{\n"},
		{"one line", `{"a":1, "b": 2}`, `{"a":1, "b": 2, "hooks": {"Start":[{"hooks":[{"command":`},
		{"CRLF", "{\r\n  \"a\": 1\r\n}\r\n", "{\r\n  \"a\": 1,\r\n  \"hooks\": {\r\n    \"Start\": [\r\n      {\r\n"},
		{"a one-line event", "{\n  \"hooks\": {\"Stop\": [{\"hooks\": []}]}\n}", `{"Stop": [{"hooks": []},{"hooks":[{"command":`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			out, _, err := MergeHooks("/s.json", []byte(tt.in), testHooks("s"))
			if err != nil || !strings.Contains(string(out), tt.has) || !json.Valid(out) {
				t.Fatalf("%v\n%s", err, out)
			}
			if crlf := strings.Contains(tt.in, "\r\n"); crlf && strings.Count(string(out), "\n") != strings.Count(string(out), "\r\n") {
				t.Errorf("lines ending in LF added to a file with CRLF:\n%q", out)
			}
			back, _, err := MergeHooks("/s.json", out, Hooks{Agent: "x"})
			if err != nil || string(back) != tt.in {
				t.Errorf("uninstall: %v\n%q\nwant\n%q", err, back, tt.in)
			}
		})
	}
	// A new file, or one that held only {}, is written as Indent formats it.
	for _, in := range []string{"", "{}", " { }\n"} {
		out, _, err := MergeHooks("/s.json", []byte(in), testHooks("s"))
		if err != nil || !strings.HasPrefix(string(out), "{\n  \"hooks\": {\n    \"Start\": [\n      {\n") {
			t.Errorf("%q: %v\n%s", in, err, out)
		}
	}
}

// testFlatHooks is an install of agent "x" in a file that lists hook entries under each event,
// their command under "bash", as GitHub Copilot CLI's.
func testFlatHooks(server string) Hooks {
	cmd := HookCommand("plandash", "x", Flag{"--server", server})
	entry := func(timeout int) json.RawMessage {
		b, _ := json.Marshal(map[string]any{"type": "command", "bash": cmd, "timeoutSec": timeout})
		return b
	}
	return Hooks{Agent: "x", Flat: true, CommandKey: "bash", Events: []string{"sessionStart", "preToolUse"},
		Groups: map[string][]json.RawMessage{"sessionStart": {entry(10)}, "preToolUse": {entry(10), entry(86400)}}}
}

func TestMergeHooksFlat(t *testing.T) {
	in := "{\n  \"version\": 1,\n  \"hooks\": {\n    \"preToolUse\": [\n      {\"type\": \"command\", \"bash\": \"./audit.sh\"},\n      {\"type\": \"command\", \"command\": \"plandash hook x\"}\n    ]\n  }\n}\n"
	out, ch, err := MergeHooks("/h.json", []byte(in), testFlatHooks("s"))
	if err != nil || !reflect.DeepEqual(ch, Changes{Added: []string{"preToolUse", "sessionStart"}}) {
		t.Fatalf("%+v %v", ch, err)
	}
	want := "    \"preToolUse\": [\n      {\"type\": \"command\", \"bash\": \"./audit.sh\"},\n      {\"type\": \"command\", \"command\": \"plandash hook x\"},\n      {\n        \"bash\": \"plandash hook x --server s\",\n"
	if !strings.Contains(string(out), want) {
		t.Errorf("entries not after the user's, laid out as theirs:\n%s", out)
	}
	if again, ch, err := MergeHooks("/h.json", out, testFlatHooks("s")); err != nil || ch.Changed() || string(again) != string(out) {
		t.Errorf("second install: %+v %v", ch, err)
	}
	// The entry under "command" is not plandash's: this agent's command is under "bash".
	back, ch, err := MergeHooks("/h.json", out, Hooks{Agent: "x", Flat: true, CommandKey: "bash"})
	if err != nil || !reflect.DeepEqual(ch.Removed, []string{"preToolUse", "sessionStart"}) || string(back) != in {
		t.Errorf("uninstall: %+v %v\n%s", ch, err, back)
	}
}
