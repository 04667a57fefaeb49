package dag

import (
	"encoding/json"
	"errors"
)

// ErrInvalid marks every error Parse and ParseGraph return, so callers can
// map them to an "invalid input" response without matching on text.
var ErrInvalid = errors.New("invalid plan")

// Status is where a call (or a generic graph node) stands.
type Status string

// Call and node statuses, as agents send them in "_status".
const (
	StatusPending    Status = "pending"
	StatusInProgress Status = "in_progress"
	StatusCompleted  Status = "completed"
	StatusFailed     Status = "failed"
	StatusSkipped    Status = "skipped"
)

// Valid reports whether s is one of the known statuses.
func (s Status) Valid() bool {
	switch s {
	case StatusPending, StatusInProgress, StatusCompleted, StatusFailed, StatusSkipped:
		return true
	}
	return false
}

// Call is one tool call of a plan.
type Call struct {
	// ID is "_id", or the call's position as a decimal string.
	ID string `json:"id"`
	// Index is the call's position in the plan, from 0.
	Index int `json:"index"`
	// Tool is "_tool"; empty when missing (a problem is reported).
	Tool       string `json:"tool"`
	Title      string `json:"title,omitempty"`
	Status     Status `json:"status"`
	ToolCallID string `json:"toolCallId,omitempty"`
	// Args are the non-underscore keys in the order the agent wrote them.
	Args []Arg `json:"args"`
	// Output is the canonical "_outputPath"; empty when absent or malformed.
	Output Path `json:"output,omitempty"`
	// Reads are the well-formed references found in Args, in document order.
	Reads []Ref `json:"reads,omitempty"`
}

// Label is what a diagram shows for the call: its title, else its tool.
func (c *Call) Label() string {
	switch {
	case c.Title != "":
		return c.Title
	case c.Tool != "":
		return c.Tool
	}
	return "(no tool)"
}

// Arg is one argument, its value kept as the raw JSON the agent sent.
type Arg struct {
	Name  string          `json:"name"`
	Value json.RawMessage `json:"value"`
}

// Ref is a state reference inside a call's arguments.
type Ref struct {
	Path Path `json:"path"`
	// At locates the reference in the arguments, e.g. `items[2].profile`.
	At string `json:"at"`
}

// Plan is a parsed tool-call plan with its data-flow graph and problems.
type Plan struct {
	Calls []Call `json:"calls"`
	// State is "_state", the initial state shared by every run (nil if absent).
	State json.RawMessage `json:"state,omitempty"`
	// Instances are "_instances": initial states, each run in isolation.
	Instances []json.RawMessage `json:"instances,omitempty"`
	// Graph has one node per call, in call order, and one edge per
	// (writer, reader) pair.
	Graph *Graph `json:"graph"`
	// Problems are never a reason to refuse a plan: it is still drawn.
	Problems []Problem `json:"problems,omitempty"`

	// writers maps each written path to the indices of the calls writing it.
	writers map[Path][]int
	// writerPaths are the keys of writers, sorted for descendant searches.
	writerPaths []Path
	// overlap caches overlappingWriters for every path the plan reads; it
	// is written only while parsing.
	overlap map[Path][]int
	// missing lists, per read path, the runs whose initial state lacks it.
	missing map[Path][]int
	// states holds the decoded initial state of each run (one when there
	// are no instances) so resolution does not decode twice.
	states []any
}

// Valid reports whether the plan has no problems and may be approved as is.
func (p *Plan) Valid() bool { return len(p.Problems) == 0 }
