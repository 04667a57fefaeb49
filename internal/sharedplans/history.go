package sharedplans

import (
	"context"
	"time"
)

// HistoryEntry is one recorded state of a shared plan: a revision as read from disk, or its
// removal. Seq orders entries across all plans; Revision is the plan file's own counter, which
// starts again at 1 when a plan is deleted and created anew, so Seq (not Revision) names an
// entry.
type HistoryEntry struct {
	Seq       int64     `json:"seq"`
	Name      string    `json:"name"`
	Revision  int       `json:"revision"`
	Removed   bool      `json:"removed,omitempty"`
	Title     string    `json:"title,omitempty"`
	Author    string    `json:"author,omitempty"`
	Status    string    `json:"status,omitempty"`
	Content   string    `json:"content,omitempty"`
	UpdatedAt string    `json:"updatedAt,omitempty"`
	SeenAt    time.Time `json:"seenAt"`
	// Source says how plandash learned of the state: "disk" (seen by the watcher: docker-agent,
	// an MCP client, a person with an editor) or the plandash surface that wrote it ("browser",
	// "api").
	Source string `json:"source"`
}

// SameState reports whether two entries describe the same plan state, whoever wrote it and when
// it was seen. It is the test HistoryStore.Record deduplicates by, shared so that every
// implementation agrees on it.
func (e HistoryEntry) SameState(o HistoryEntry) bool {
	return e.Removed == o.Removed && e.Revision == o.Revision && e.UpdatedAt == o.UpdatedAt &&
		e.Title == o.Title && e.Author == o.Author && e.Status == o.Status && e.Content == o.Content
}

// HistoryStore keeps every state of the shared plans that plandash has seen, so the dashboard
// can show a plan's revisions and diffs: the plan files keep only their newest state, this is
// the memory beside them. internal/sharedplans/historytest states this contract as tests that
// every implementation passes.
//
// Record is meant to be called by one writer at a time (the dashboard serialises its
// observations); reads may run concurrently with it. Lookups that find nothing report false,
// not an error.
type HistoryStore interface {
	// Record stores e unless it describes the same state (SameState) as the plan's newest
	// entry. It returns the entry as stored (or the newest existing one, when not added) and
	// whether it was added. A removal of a plan with no history, or already removed, is not
	// recorded. Record assigns Seq, greater than every Seq before it; fills a zero SeenAt with
	// the current time and an empty Source with "disk"; keeps SeenAt to the millisecond; and
	// stores a removal without title, author, status, content or UpdatedAt (the previous entry
	// has them).
	Record(ctx context.Context, e HistoryEntry) (HistoryEntry, bool, error)
	// Seq is the newest entry's Seq, 0 when there is none.
	Seq(ctx context.Context) (int64, error)
	// Entry returns the entry with the given Seq if it belongs to the named plan.
	Entry(ctx context.Context, name string, seq int64) (HistoryEntry, bool, error)
	// Latest returns the plan's newest entry.
	Latest(ctx context.Context, name string) (HistoryEntry, bool, error)
	// History returns up to limit of the plan's newest entries, newest first, without their
	// content (Entry has it).
	History(ctx context.Context, name string, limit int) ([]HistoryEntry, error)
	// HistoryBefore is History from the entry before Seq before on: the next page of a walk
	// from the newest. before <= 0 starts at the newest.
	HistoryBefore(ctx context.Context, name string, before int64, limit int) ([]HistoryEntry, error)
	// ChangedSince returns the newest entry of every plan that changed after seq, in Seq
	// order, with content: what a page rendered at seq has not seen.
	ChangedSince(ctx context.Context, seq int64) ([]HistoryEntry, error)
	// Current returns the newest entry of every plan not recorded as removed, keyed by name,
	// without content: what the history believes is on disk.
	Current(ctx context.Context) (map[string]HistoryEntry, error)
}
