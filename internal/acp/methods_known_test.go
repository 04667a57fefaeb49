package acp

import (
	"bytes"
	"encoding/json"
	"os"
	"testing"
)

// TestKnownMethods: every method of ACP's method tables (shared/acp/meta*.json, copied into
// testdata so the test runs without the shared folder) is known, and every known method is in
// the tables or one of the few listed here with the reason it is known anyway. Ingest refuses
// and metrics lump together what is not known, so the one list must follow the protocol.
func TestKnownMethods(t *testing.T) {
	extra := map[string]string{
		"session/set_model": "earlier unstable versions; agents still send it",
		"auth/login":        "v2 (shared/acp/v2/schema.json)",
		"auth/logout":       "v2 (shared/acp/v2/schema.json)",
	}
	inTables := map[string]bool{}
	for _, name := range []string{"meta.json", "meta.unstable.json"} {
		b, err := os.ReadFile("testdata/meta/" + name)
		if err != nil {
			t.Fatal(err)
		}
		if shared, err := os.ReadFile("../../../shared/acp/" + name); err == nil && !bytes.Equal(shared, b) {
			t.Fatalf("testdata/meta/%s differs from shared/acp/%s: copy the new table and update knownMethods", name, name)
		}
		var tables map[string]json.RawMessage
		if err := json.Unmarshal(b, &tables); err != nil {
			t.Fatal(err)
		}
		for _, raw := range tables {
			var methods map[string]string
			if json.Unmarshal(raw, &methods) != nil {
				continue // "version"
			}
			for _, m := range methods {
				inTables[m] = true
				if !KnownMethod(m) {
					t.Errorf("%s defines %q, which KnownMethod does not know: ingest would refuse it", name, m)
				}
			}
		}
	}
	for m := range knownMethods {
		if !inTables[m] && extra[m] == "" {
			t.Errorf("KnownMethod knows %q, which no method table has: remove it or say why here", m)
		}
	}
	for m := range extra {
		if !KnownMethod(m) {
			t.Errorf("%q is listed as known (%s) but KnownMethod does not know it", m, extra[m])
		}
	}
}
