package settingsfile

import (
	"bytes"
	"encoding/json"
	"testing"
)

// FuzzMergeHooks installs and uninstalls an agent's hooks in any settings file. For every file
// MergeHooks accepts: the output is a valid JSON object, installing again changes nothing (not
// a byte), every key and hook of the user's is still there, and uninstalling leaves no plandash
// hook. For a file that holds none of plandash's hooks, in any layout, uninstalling gives it
// back byte for byte, unless it held what removal cannot tell from plandash's own: a duplicate
// "hooks" or event key, or an empty or null "hooks" or event, or no key at all.
func FuzzMergeHooks(f *testing.F) {
	for _, s := range []string{userFile, ``, `{}`, `{"hooks":null}`, `{"hooks":{}}`, `{"a":1,"a":2}`, `{"hooks":{"Stop":[]}}`,
		`{"hooks":{"Stop":[1,{"hooks":"x"},{"hooks":[{"command":"plandash hook x"}]}]}}`,
		`{"hooks":{"PreTool":[{"matcher":"*","hooks":[{"type":"command","command":"y"},{"command":"/p/plandash hook x --data d"}]}]}}`,
		`{"hooks":{"Stop":[{"hooks":[{"command":"z"}]}],"Stop":[{"hooks":[]}]},"hooks":{}}`,
		`{"x":"\u003c\ud800","hooks":{"Other":{"a":[]},"Start":[{"hooks":[{"command":"plandash hook y"}]}]}}`,
		"\n\t{\r\n\t\"a\" : 1 ,\r\n\t\"hooks\" :\t{ \"Stop\" : [ { \"hooks\" : [ ] } ] }\r\n}\r\n\n",
		"{\n    \"a\": [1,\n        2],\n    \"hooks\": {\n        \"Stop\": [\n            {\"hooks\": [{\"command\": \"say\"}]}\n        ]\n    }\n}",
		`{"a":1, "hooks":{"PreTool":[{"hooks":[{"command":"say"}]}], "Other":[]}}`} {
		f.Add([]byte(s), true)
	}
	f.Fuzz(func(t *testing.T, in []byte, twoServers bool) { groupCase.check(t, in, twoServers) })
}

// FuzzMergeHooksFlat holds FuzzMergeHooks's properties for files that list hook entries under
// each event, without matcher groups (Hooks.Flat).
func FuzzMergeHooksFlat(f *testing.F) {
	for _, s := range []string{``, `{}`, `{"version":1,"hooks":{"preToolUse":[{"type":"command","bash":"./audit.sh"}]}}`,
		`{"hooks":{"preToolUse":[{"bash":"plandash hook x"},{"command":"plandash hook x"},1,null],"other":{}}}`,
		"{\r\n\t\"version\": 1\r\n}", `{"hooks":{"sessionStart":[{"bash":"say"}],"sessionStart":[]}}`} {
		f.Add([]byte(s), true)
	}
	f.Fuzz(func(t *testing.T, in []byte, twoServers bool) { flatCase.check(t, in, twoServers) })
}

// mergeCase is one shape of hooks the fuzz targets install: two installs (to other servers)
// and how many hooks of plandash's one puts in the file.
type mergeCase struct {
	install, other Hooks
	n              int
}

var (
	groupCase = mergeCase{testHooks("http://h:1"), testHooks("http://h:2"), 4}
	flatCase  = mergeCase{testFlatHooks("http://h:1"), testFlatHooks("http://h:2"), 3}
)

// check holds FuzzMergeHooks's properties for one file.
func (c mergeCase) check(t *testing.T, in []byte, twoServers bool) {
	out, ch, err := MergeHooks("/s.json", in, c.install)
	if err != nil {
		return
	}
	if !ch.Changed() && !bytes.Equal(out, in) {
		t.Fatalf("nothing changed but the bytes did:\n%q\n%q", in, out)
	}
	if _, err := ParseObject(out); err != nil {
		t.Fatalf("the output is no object: %v\n%s", err, out)
	}
	if got := c.ours(out); got != c.n {
		t.Fatalf("%d plandash hooks installed, want %d:\n%s", got, c.n, out)
	}
	again, ch2, err := MergeHooks("/s.json", out, c.install)
	if err != nil || ch2.Changed() || !bytes.Equal(again, out) {
		t.Fatalf("second install: %+v %v\n%s", ch2, err, again)
	}
	if twoServers {
		// Another install over the first one changes plandash's hooks only.
		if out, _, err = MergeHooks("/s.json", out, c.other); err != nil {
			t.Fatal(err)
		}
	}
	c.keptUsers(t, in, out)
	uninstall := c.install
	uninstall.Groups = nil
	clean, _, err := MergeHooks("/s.json", out, uninstall)
	if err != nil {
		t.Fatalf("uninstall: %v\n%s", err, out)
	}
	if c.ours(clean) != 0 {
		t.Fatalf("plandash hooks left:\n%s", clean)
	}
	if len(clean) > 0 {
		c.keptUsers(t, in, clean)
	}

	// Byte for byte, whatever the layout, when plandash added nothing else.
	if top, err := ParseFile("/s.json", in); err != nil || len(top) == 0 || !c.restorable(top) {
		return
	}
	if !bytes.Equal(clean, in) {
		t.Fatalf("install then uninstall did not give the file back:\n%q\n→\n%q\n→\n%q", in, out, clean)
	}
}

// restorable reports whether an uninstall can give the file back byte for byte: it holds none
// of plandash's hooks and nothing plandash removes as its own (see FuzzMergeHooks).
func (c mergeCase) restorable(top Object) bool {
	if count(top, "hooks") > 1 {
		return false
	}
	raw, ok := top.Get("hooks")
	if !ok {
		return true
	}
	hooks, err := ParseObject(raw)
	if err != nil || len(hooks) == 0 {
		return false
	}
	for _, m := range hooks {
		if count(hooks, m.Key) > 1 {
			return false
		}
		a, err := ParseArray(m.Value)
		if err != nil {
			if IsNull(m.Value) {
				return false
			}
			continue
		}
		if len(a) == 0 {
			return false
		}
		for _, e := range a {
			if c.install.ours(e) {
				return false
			}
		}
	}
	return true
}

// restorable is groupCase.restorable, kept by that name for the tests that use it.
func restorable(top Object) bool { return groupCase.restorable(top) }

func count(o Object, key string) int {
	n := 0
	for _, m := range o {
		if m.Key == key {
			n++
		}
	}
	return n
}

// ours counts plandash's hooks in a settings file, read as the agents read it (last key wins).
func (c mergeCase) ours(b []byte) int {
	n := 0
	for _, hk := range c.allHooks(b) {
		if c.install.IsOurs(hk) {
			n++
		}
	}
	return n
}

// allHooks lists the hook objects of a settings file, in groups or not, read as the agents
// read it: of duplicate keys the last (Go's encoding/json would merge duplicate objects).
func (c mergeCase) allHooks(b []byte) []json.RawMessage {
	top, err := ParseFile("/s.json", b)
	if err != nil {
		return nil
	}
	raw, _ := top.Get("hooks")
	hooks, _ := ParseObject(raw)
	var out []json.RawMessage
	last := map[string]int{}
	for i, m := range hooks {
		last[m.Key] = i
	}
	for i, m := range hooks {
		if last[m.Key] != i {
			continue // an earlier duplicate
		}
		list, _ := ParseArray(m.Value)
		for _, e := range list {
			if c.install.Flat {
				out = append(out, e)
			} else {
				out = append(out, GroupHooks(e)...)
			}
		}
	}
	return out
}

// keptUsers fails unless out is an object that keeps every top-level key of in but "hooks"
// with its value, and every hook of the user's.
func (c mergeCase) keptUsers(t *testing.T, in, out []byte) {
	t.Helper()
	top, err := ParseFile("/s.json", in)
	if err != nil {
		t.Fatal(err)
	}
	o, err := ParseObject(out)
	if err != nil {
		t.Fatalf("not an object: %v\n%s", err, out)
	}
	for _, m := range top {
		if m.Key == "hooks" {
			continue
		}
		v, ok := o.Get(m.Key)
		if want, _ := top.Get(m.Key); !ok || Compact(v) != Compact(want) {
			t.Fatalf("key %q lost or changed: %s → %s", m.Key, want, v)
		}
	}
	users := map[string]int{}
	for _, hk := range c.allHooks(in) {
		if !c.install.IsOurs(hk) {
			users[Compact(hk)]++
		}
	}
	for _, hk := range c.allHooks(out) {
		users[Compact(hk)]--
	}
	for hk, n := range users {
		if n > 0 {
			t.Fatalf("the user's hook %s was lost:\n%s\n→\n%s", hk, in, out)
		}
	}
}
