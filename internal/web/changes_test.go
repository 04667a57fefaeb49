package web

import (
	"testing"

	"github.com/plandash/plandash/internal/changes"
)

// TestEveryKindHasATopic: every kind of change is shown by some live topic and every topic name
// is registered, so a change announced (here or by another instance) reaches a page.
func TestEveryKindHasATopic(t *testing.T) {
	ts := newTestServer(t, testConfig{})
	for _, k := range changes.Kinds() {
		if !ts.srv.live.Shows(k) {
			t.Errorf("no live topic shows changes of kind %q: register one in registerTopics", k)
		}
	}
	for _, name := range changes.Topics() {
		if !ts.srv.live.Valid(name) && !ts.srv.live.Valid(name+":x") {
			t.Errorf("topic %q is named in package changes but not registered", name)
		}
	}
}
