// Package changes names what changes and the live topics that show it: the kinds of change the
// services announce and PostgreSQL instances notify each other of, the parts of a session a page
// redoes on its own, and the topics a page's socket subscribes to. The announcers, the notifier,
// the listener of other instances, the pages and main.js all use these names, and tests hold
// each of them to Kinds, so a kind published that no listener knows fails a test.
package changes

// Kinds of change, a live.Change's Kind and a PostgreSQL note's.
const (
	Session     = "session"     // ID the session; Part one of the Part* or ""
	Approval    = "approval"    // ID the approval request
	Rules       = "rules"       // the gate's auto-approve rules; a note's ID the rule
	Permissions = "permissions" // the relayed ACP permission requests; a note's ID the proxy stream
	Shared      = "shared"      // ID the shared plan's name
	// Waits is the one list of waits moving; ID the wait (after BeganPrefix when it began).
	Waits = "waits"
)

// Kinds lists every kind of change.
func Kinds() []string { return []string{Session, Approval, Rules, Permissions, Shared, Waits} }

// BeganPrefix marks a Waits change where a wait began (in its ID: a Part would reach only
// topics that render parts): the count's notification names it.
const BeganPrefix = "began:"

// Parts of a session that its pages redo on their own.
const (
	PartPlan      = "plan:"    // + the plan's id
	PartCall      = "call:"    // + the tool call's id
	PartCallCount = "calls"    // the count of a session's tool calls, which only a new call changes
	PartActivity  = "activity" // the session's activity
	// PartRemoved + the plan's id: the plan was removed (and is announced as PartPlan too). The
	// overview takes its card away on this alone: reading every changed plan back to see whether
	// it was removed was a store read per plan update on every overview's critical path.
	PartRemoved = "removed:"
)

// Topics a page's socket subscribes to; keyed ones as name:<id>. Every page also follows
// TopicGate, the pending count in the navigation, which is all a page drawn once follows.
const (
	TopicAll       = "all"       // the overview
	TopicSession   = "session"   // session:<id>
	TopicApprovals = "approvals" // the inbox
	TopicApproval  = "approval"  // approval:<id>
	TopicShared    = "shared"    // the shared-plans list, and shared:<name>
	TopicGate      = "gate"      // the pending count
	TopicWait      = "wait"      // wait:<id>, a kept wait's page
)
