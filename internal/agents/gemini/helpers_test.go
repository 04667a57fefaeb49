package gemini

import (
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"

	"github.com/plandash/plandash/internal/agents/agenttest"
)

// The stores and services the tests run on, from the agents' test kit.
var (
	openDB   = agenttest.SQLite
	newPlans = agenttest.Plans
	newGate  = agenttest.Gate
)

// captured returns the payloads the real Gemini CLI sent in one captured run ("todos" or
// "plan"), in the order it sent them.
func captured(t testing.TB, run string) [][]byte {
	t.Helper()
	names, err := filepath.Glob(filepath.Join("testdata", "captured", run+"_*.json"))
	if err != nil || len(names) == 0 {
		t.Fatalf("no captured %s fixtures: %v", run, err)
	}
	sort.Strings(names)
	var out [][]byte
	for _, n := range names {
		b, err := os.ReadFile(n)
		if err != nil {
			t.Fatal(err)
		}
		out = append(out, b)
	}
	return out
}

// capturedEvent returns the one captured payload of run whose file name ends in suffix.
func capturedEvent(t testing.TB, run, suffix string) []byte {
	t.Helper()
	names, _ := filepath.Glob(filepath.Join("testdata", "captured", run+"_*"+suffix+".json"))
	if len(names) != 1 {
		t.Fatalf("captured %s *%s: %v", run, suffix, names)
	}
	b, err := os.ReadFile(names[0])
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// rehome moves a captured payload's paths from the capture's temp dir to home, so the plan
// file it names can be written where the Service will look.
func rehome(t testing.TB, b []byte, home string) []byte {
	t.Helper()
	ev, err := Decode(b)
	if err != nil {
		t.Fatal(err)
	}
	old, _, ok := strings.Cut(ev.TranscriptPath, "/home/.gemini/")
	if !ok {
		t.Fatalf("transcript path %q is not under a capture home", ev.TranscriptPath)
	}
	return []byte(strings.ReplaceAll(string(b), old+"/home", home))
}

func mustRead(t testing.TB, path string) []byte {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return b
}
