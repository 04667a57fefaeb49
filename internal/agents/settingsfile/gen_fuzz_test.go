package settingsfile

import (
	"bytes"
	"strconv"
	"strings"
	"testing"
)

// FuzzMergeHooksGenerated holds FuzzMergeHooks's properties (and: a file with CRLF lines gets
// no LF-only ones) for settings files written from
// the fuzzer's bytes in every layout (indent unit, CRLF, space around ':' and ',', one line),
// with keys needing escapes, duplicate keys, and "hooks" objects holding the user's groups on
// plandash's events and others, in groups or (flat) listed straight under each event: random
// bytes alone rarely make a valid settings file.
func FuzzMergeHooksGenerated(f *testing.F) {
	for _, s := range []string{"", "\x00", "\x01\x02\x03\x04\x05\x06\x07\x08", "\xff\xfe\xfd\xfc\xfb\xfa\xf9\xf8\xf7\xf6\xf5\xf4", "hooks and more hooks, stop start"} {
		f.Add([]byte(s), false, false)
		f.Add([]byte(s), true, true)
	}
	f.Fuzz(func(t *testing.T, seed []byte, twoServers, flat bool) {
		g := &gen{b: seed, flat: flat}
		in := g.file()
		if _, err := ParseFile("/s.json", []byte(in)); err != nil {
			t.Fatalf("the generator wrote an invalid file: %v\n%q", err, in)
		}
		c := groupCase
		if flat {
			c = flatCase
		}
		c.check(t, []byte(in), twoServers)
		if out, _, err := MergeHooks("/s.json", []byte(in), c.install); err == nil && g.nl == "\r\n" && strings.Contains(in, "\n") &&
			bytes.Count(out, []byte("\n")) != bytes.Count(out, []byte("\r\n")) {
			t.Fatalf("lines ending in LF added to a file with CRLF:\n%q\n→\n%q", in, out)
		}
	})
}

// gen writes JSON from a fuzzer's bytes; past their end it reads zeros.
type gen struct {
	b          []byte
	i          int
	nl, unit   string
	colon, sep string
	oneLine    bool
	flat       bool // hook entries straight under each event, their command under "bash"
}

func (g *gen) next(n int) int {
	if g.i >= len(g.b) {
		return 0
	}
	g.i++
	return int(g.b[g.i-1]) % n
}

func (g *gen) file() string {
	g.nl = []string{"\n", "\r\n"}[g.next(2)]
	g.unit = []string{"  ", "    ", "\t", " "}[g.next(4)]
	g.colon = []string{": ", ":", " : ", ":\t"}[g.next(4)]
	g.sep = []string{"", " "}[g.next(2)]
	g.oneLine = g.next(4) == 0
	var ms []string
	for n := g.next(5); n > 0; n-- {
		ms = append(ms, g.member(g.key(), g.value(1)))
	}
	if g.next(3) > 0 {
		ms = append(ms, g.member(`"hooks"`, g.hooks()))
		for n := g.next(3); n > 0; n-- {
			ms = append(ms, g.member(g.key(), g.value(1)))
		}
	}
	lead := []string{"", " ", g.nl, g.nl + "\t"}[g.next(4)]
	trail := []string{"", g.nl, " ", g.nl + g.nl}[g.next(4)]
	return lead + g.object(ms, 0) + trail
}

func (g *gen) member(key, value string) string { return key + g.colon + value }

// object lays members out at depth d: on lines indented by unit, or on one line.
func (g *gen) object(ms []string, d int) string { return g.wrap("{", "}", ms, d) }

func (g *gen) wrap(open, close string, items []string, d int) string {
	if len(items) == 0 {
		return open + close
	}
	if g.oneLine || g.next(5) == 0 {
		return open + strings.Join(items, ","+g.sep) + close
	}
	in := g.nl + strings.Repeat(g.unit, d+1)
	return open + in + strings.Join(items, ","+in) + g.nl + strings.Repeat(g.unit, d) + close
}

func (g *gen) key() string {
	return []string{`"model"`, `"env"`, `"a<b"`, `"a\u003cb"`, `"\u00e9t\u00e9"`, `"quote\"d"`, `"model"`, `""`, `"permissions"`, `"hooksy"`}[g.next(10)]
}

func (g *gen) value(d int) string {
	if d > 3 {
		return "1"
	}
	switch g.next(8) {
	case 0:
		return strconv.Itoa(g.next(1000) - 500)
	case 1:
		return []string{`"dark"`, `"a\nb"`, `"\u003cscript\u003e"`, `"\ud83d\ude00"`, `""`, `"plandash hook x"`}[g.next(6)]
	case 2:
		return []string{"true", "false", "null", "1.5e3", "-0"}[g.next(5)]
	case 3, 4:
		var items []string
		for n := g.next(4); n > 0; n-- {
			items = append(items, g.value(d+1))
		}
		return g.wrap("[", "]", items, d)
	default:
		var ms []string
		for n := g.next(4); n > 0; n-- {
			ms = append(ms, g.member(g.key(), g.value(d+1)))
		}
		return g.object(ms, d)
	}
}

// hooks is a "hooks" object: events plandash hooks and others, with the user's groups (and
// now and then one of plandash's, or a value that is no list of groups).
func (g *gen) hooks() string {
	var ms []string
	for n := g.next(5); n > 0; n-- {
		ev := []string{`"Stop"`, `"Start"`, `"PreTool"`, `"Other"`, `"Stop"`}[g.next(5)]
		if g.flat {
			ev = []string{`"sessionStart"`, `"preToolUse"`, `"other"`, `"preToolUse"`}[g.next(4)]
		}
		var groups []string
		for k := g.next(4); k > 0; k-- {
			if g.flat {
				groups = append(groups, g.hook(3))
			} else {
				groups = append(groups, g.group())
			}
		}
		v := g.wrap("[", "]", groups, 2)
		if g.next(12) == 0 {
			v = g.value(2)
		}
		ms = append(ms, g.member(ev, v))
	}
	return g.object(ms, 1)
}

func (g *gen) group() string {
	var hs []string
	for n := g.next(3) + 1; n > 0; n-- {
		hs = append(hs, g.hook(5))
	}
	ms := []string{g.member(`"hooks"`, g.wrap("[", "]", hs, 4))}
	if g.next(2) == 0 {
		ms = append([]string{g.member(`"matcher"`, `"Bash|Write"`)}, ms...)
	}
	return g.object(ms, 3)
}

// hook is a hook object at depth d: mostly the user's, now and then one of plandash's.
func (g *gen) hook(d int) string {
	cmd := []string{`"say done"`, `"prettier --write"`, `"echo plandash hook x"`, `"'/opt/my tools/plandash' hook x"`, `"plandash hook y"`, `"a\u0020b"`}[g.next(6)]
	if g.next(8) == 0 && cmd == `"say done"` {
		cmd = `"plandash hook x --server old"`
	}
	key := `"command"`
	if g.flat && g.next(4) > 0 {
		key = `"bash"`
	}
	return g.object([]string{g.member(`"type"`, `"command"`), g.member(key, cmd)}, d)
}
