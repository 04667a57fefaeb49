package web

import (
	"testing"

	"github.com/plandash/plandash/internal/changes"
)

// TestEveryKindHasATopic: every kind of change is shown by some live topic, so a change
// announced (here or by another instance) reaches a page; registerTopics refuses to start a
// server otherwise.
func TestEveryKindHasATopic(t *testing.T) {
	ts := newTestServer(t, testConfig{})
	for _, k := range changes.Kinds() {
		if !ts.srv.live.Shows(k) {
			t.Errorf("no live topic shows changes of kind %q: register one in registerTopics", k)
		}
	}
}
