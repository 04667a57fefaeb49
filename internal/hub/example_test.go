package hub_test

import (
	"fmt"

	"github.com/plandash/plandash/internal/hub"
)

// A websocket writer's loop: wait, resync after an overflow, then send what is pending. Two
// versions of the same plan were published before the writer woke, so only the newer is sent.
func Example() {
	h := hub.New(hub.Options{})
	s := h.Subscribe("session-1")
	defer s.Close()

	h.Publish("session-1", hub.Fragment{Key: "plan-1", Seq: 1, Data: []byte("<li>v1</li>")})
	h.Publish("session-1", hub.Fragment{Key: "plan-1", Seq: 2, Data: []byte("<li>v2</li>")})

	var buf []hub.Fragment
	<-s.Ready()
	if s.Overflowed() {
		// Reset first, so whatever is published while the page is re-rendered from the store
		// still arrives afterwards.
		s.ResetOverflow()
		// ...render the page from the store and send it whole...
	}
	buf = s.Drain(buf[:0])
	for _, f := range buf {
		fmt.Printf("%s seq %d: %s\n", f.Key, f.Seq, f.Data)
	}
	// Output: plan-1 seq 2: <li>v2</li>
}
