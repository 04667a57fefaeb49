package sharedplans

import (
	"bytes"
	"encoding/json"
	"path/filepath"
	"regexp"
	"testing"
)

// FuzzDecodePlan checks the plan-file decoder on arbitrary input: it never panics, the fast
// listing decoder agrees with it exactly (verdict and error text), and whatever decodes
// re-encodes to a file that decodes to the same plan.
func FuzzDecodePlan(f *testing.F) {
	for _, seed := range []string{
		`{"name":"release","title":"Release plan","content":"Step 1","author":"planner","status":"draft","revision":3,"updatedAt":"2026-07-28T12:34:56Z"}`,
		`{"content":"x","revision":1}`, `null`, ``, `[]`, `{"revision":"1"}`, `{"content":5}`, `{"CONTENT":"a","content":null}`,
		`{"content":"\u003c\u2028\ud800"}`, `{} x`, `{"revision":1e3}`, `{"revision":-0}`,
	} {
		f.Add([]byte(seed))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		p, err := DecodePlan(data)
		sum, serr := decodeSummary(data)
		if (err == nil) != (serr == nil) {
			t.Fatalf("decoders disagree: %v / %v", err, serr)
		}
		if err != nil {
			if err.Error() != serr.Error() {
				t.Fatalf("error texts differ: %q / %q", err, serr)
			}
			return
		}
		if sum != p.Summary() {
			t.Fatalf("summary %+v, plan %+v", sum, p)
		}
		enc, err := EncodePlan(p)
		if err != nil {
			t.Fatal(err)
		}
		back, err := DecodePlan(enc)
		if err != nil || back != p {
			t.Fatalf("round trip: %+v %v, want %+v", back, err, p)
		}
	})
}

var nameRE = regexp.MustCompile(`^[a-z0-9][a-z0-9_-]*$`)

// FuzzValidateName checks the hand-written name check against docker-agent's regular
// expression, and that no accepted name can address a file outside the plans directory.
func FuzzValidateName(f *testing.F) {
	for _, seed := range []string{"release-2025", "db_migration", "", "-a", "A", "../x", "a/b", "a.json", "a\n", "ok\x00"} {
		f.Add(seed)
	}
	f.Fuzz(func(t *testing.T, name string) {
		err := ValidateName(name)
		if (err == nil) != nameRE.MatchString(name) {
			t.Fatalf("ValidateName(%q) = %v, regexp says %v", name, err, nameRE.MatchString(name))
		}
		if err != nil {
			return
		}
		dir := filepath.FromSlash("/plans")
		p := filepath.Join(dir, name+".json")
		if filepath.Dir(p) != dir || filepath.Base(p) != name+".json" {
			t.Fatalf("name %q maps to %s", name, p)
		}
	})
}

// FuzzEncodePlan holds the plan encoder to encoding/json byte for byte, for files
// (MarshalIndent) and tool results (Marshal), on any strings: invalid UTF-8, control
// characters, HTML characters, U+2028/U+2029, and any revision.
func FuzzEncodePlan(f *testing.F) {
	f.Add("release", "Release plan", "Step 1\n<b>&</b>\u2028\u2029\x00\x1f\b\f\t\r\"\\", "", "draft", 3, "2026-07-28T12:34:56Z")
	f.Add("", "", "\xff\xfe\xed\xa0\x80 é 😀", "a", "", -1, "")
	f.Add("p", "", "", "", "", 0, "\x7f")
	f.Fuzz(func(t *testing.T, name, title, content, author, status string, rev int, updated string) {
		p := Plan{Name: name, Title: title, Content: content, Author: author, Status: status, Revision: rev, UpdatedAt: updated}
		for _, indent := range []bool{true, false} {
			var want []byte
			var err error
			if indent {
				want, err = json.MarshalIndent(p, "", "  ")
			} else {
				want, err = json.Marshal(p)
			}
			if err != nil {
				t.Fatal(err)
			}
			got := encodePlan(&p, indent)
			if !bytes.Equal(got, want) {
				t.Fatalf("indent %v:\n got %q\nwant %q", indent, got, want)
			}
			if len(got) != cap(got) {
				t.Fatalf("indent %v: planLen %d, encoded %d bytes", indent, cap(got), len(got))
			}
		}
	})
}
