package acpproxy

import "github.com/plandash/plandash/internal/acp"

// Feed hands the tap a chunk forwarded now, as the proxy's feeder does: tests drive the tap
// without a proxy.
func (t *Tap) Feed(dir acp.Direction, b []byte) { t.feedAt(dir, t.now(), b, false) }

// End ends direction dir now.
func (t *Tap) End(dir acp.Direction) { t.endAt(dir, t.now()) }
