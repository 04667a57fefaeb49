package copilot

import (
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"testing"

	"github.com/plandash/plandash/internal/agents/agenttest"
)

// The stores and services the tests run on, from the agents' test kit.
var (
	newPlans = agenttest.Plans
	newGate  = agenttest.Gate
)

// planRE finds where plan mode's prompt tells the model to save plan.md.
var planRE = regexp.MustCompile(`Save the plan to: ([^\s"\\]+/plan\.md)`)

// captured returns the payloads the real Copilot CLI sent in one captured run ("todos" or
// "plan"), in the order it sent them, with their event names (from the file names).
func captured(t testing.TB, run string) (names []string, bodies [][]byte) {
	t.Helper()
	files, err := filepath.Glob(filepath.Join("testdata", "captured", run+"_*.json"))
	if err != nil || len(files) == 0 {
		t.Fatalf("no captured %s fixtures: %v", run, err)
	}
	sort.Strings(files)
	for _, n := range files {
		b, err := os.ReadFile(n)
		if err != nil {
			t.Fatal(err)
		}
		base := filepath.Base(n)
		names = append(names, base[len(run)+4:len(base)-len(".json")])
		bodies = append(bodies, b)
	}
	return names, bodies
}
