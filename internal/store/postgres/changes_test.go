package postgres

import (
	"testing"

	"github.com/plandash/plandash/internal/changes"
)

// TestEveryKindHasAStream: a note of every kind of change has a stream to catch up on, and
// decodeNote takes it, so no instance drops a kind another one sends.
func TestEveryKindHasAStream(t *testing.T) {
	for _, k := range changes.Kinds() {
		if streamOf(k) == "" {
			t.Errorf("kind %q has no stream in streamOf", k)
		}
		if _, err := decodeNote(string(mustJSON(Note{Kind: k, ID: "x"}))); err != nil {
			t.Errorf("decodeNote refuses kind %q: %v", k, err)
		}
	}
}
