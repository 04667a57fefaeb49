package delta

import (
	"bytes"
	"encoding/json"
	"slices"

	"github.com/plandash/plandash/internal/plans"
)

// diffPlans is the delta diffFields would find between the JSON of revisions a and b, computed
// from the plans themselves so that neither is encoded whole: only the members and entries that
// changed are. TestFieldsInDeltas holds it to every field of plans.Plan and plans.Entry.
func diffPlans(a, b *plans.Plan) delta {
	var d delta
	// changed records a member that differs: set in b, or gone from it (an omitempty member
	// that b leaves empty).
	changed := func(k string, omitted bool, v any) {
		switch {
		case omitted:
			d.Del = append(d.Del, k)
		case d.Set == nil:
			d.Set = map[string]json.RawMessage{k: encodeValue(v)}
		default:
			d.Set[k] = encodeValue(v)
		}
	}
	if a.SessionID != b.SessionID {
		changed("sessionId", false, b.SessionID)
	}
	if a.ID != b.ID {
		changed("id", false, b.ID)
	}
	if a.Kind != b.Kind {
		changed("kind", false, b.Kind)
	}
	if a.Type != b.Type {
		changed("type", false, b.Type)
	}
	// revision is not in deltas: the row's key has it.
	if a.Created != b.Created { // times that are == encode the same
		changed("created", false, b.Created)
	}
	if a.Updated != b.Updated {
		changed("updated", false, b.Updated)
	}
	if a.Removed != b.Removed {
		changed("removed", !b.Removed, b.Removed)
	}
	if a.Agent != b.Agent {
		changed("agent", b.Agent == "", b.Agent)
	}
	switch {
	case len(a.Entries) > 0 && len(b.Entries) > 0:
		d.Entries = diffEntryStructs(a.Entries, b.Entries)
	case len(a.Entries) != len(b.Entries):
		changed(entriesKey, len(b.Entries) == 0, b.Entries)
	}
	if a.Markdown != b.Markdown {
		changed("markdown", b.Markdown == "", b.Markdown)
	}
	if a.URI != b.URI {
		changed("uri", b.URI == "", b.URI)
	}
	if !bytes.Equal(a.Raw, b.Raw) {
		changed("raw", len(b.Raw) == 0, b.Raw)
	}
	if !bytes.Equal(a.Meta, b.Meta) {
		changed("_meta", len(b.Meta) == 0, b.Meta)
	}
	if !slices.Equal(a.Warnings, b.Warnings) {
		changed("warnings", len(b.Warnings) == 0, b.Warnings)
	}
	if a.Replayed != b.Replayed {
		changed("replayed", !b.Replayed, b.Replayed)
	}
	if a.Seq != b.Seq {
		changed("seq", false, b.Seq)
	}
	slices.Sort(d.Del)
	return d
}

// diffEntryStructs is diffEntries for entries as structs: the hunks that turn a into b, each
// inserted entry encoded as it is in the plan's JSON.
func diffEntryStructs(a, b []plans.Entry) []hunk {
	key := func(e plans.Entry) string { return string(encodeEntry(e)) } // equal exactly when the entries are
	return hunks(a, b, plans.Entry.Equal, key, encodeEntry)
}

// clonePlan copies p with slices of its own, so the copy a tip keeps does not change with p.
func clonePlan(p *plans.Plan) *plans.Plan {
	c := *p
	c.Entries = slices.Clone(p.Entries)
	c.Warnings = slices.Clone(p.Warnings)
	c.Raw = slices.Clone(p.Raw)
	c.Meta = slices.Clone(p.Meta)
	return &c
}
