// Package opencode is plandash's adapter for OpenCode. Two ways in share one translation: a
// plugin plandash installs into OpenCode (plugin/plandash.js, embedded; see InstallPlugin) posts
// OpenCode's bus events to the HookService, and the Watcher follows a reachable OpenCode
// server's event stream (GET /event, Server-Sent Events). Either way each session's todo list
// is recorded as a plan, and plan_exit's "switch to the build agent?" question and tool
// permission requests are held at the approval gate and answered through OpenCode's own reply
// endpoints: the first answer, plandash's or OpenCode's own prompt's, wins.
package opencode

import (
	"bytes"
	"encoding/json"
	"errors"
	"regexp"
	"strings"
)

// Event types the watcher acts on.
const (
	EventTodoUpdated       = "todo.updated"
	EventQuestionAsked     = "question.asked"
	EventQuestionReplied   = "question.replied"
	EventQuestionRejected  = "question.rejected"
	EventPermissionAsked   = "permission.asked"
	EventPermissionReplied = "permission.replied"
	EventSessionCreated    = "session.created"
	EventSessionUpdated    = "session.updated"
	EventSessionIdle       = "session.idle"   // {sessionID}: the turn is over, the session waits for a prompt
	EventSessionStatus     = "session.status" // {sessionID, status: {type: idle|busy|…}}
)

// AgentName and AgentTitle name OpenCode in sessions and at the gate.
const (
	AgentName  = "opencode"
	AgentTitle = "OpenCode"
)

// SessionPrefix starts every plandash session id that comes from OpenCode.
const SessionPrefix = "opencode:"

// Plan ids of the plans an OpenCode session shows.
const (
	PlanTodos = "todos" // todowrite's list, replaced whole by each call
	PlanMode  = "plan"  // the plan plan_exit asks to implement
)

// Event is one event of the stream: its type and its properties, kept raw.
type Event struct {
	Type       string          `json:"type"`
	Properties json.RawMessage `json:"properties"`
}

// DecodeEvent reads one event's data. It fails only when the data is not a JSON object with
// a type; properties of an unexpected shape are the readers' concern.
func DecodeEvent(data []byte) (Event, error) {
	var ev Event
	if err := json.Unmarshal(bytes.TrimSpace(data), &ev); err != nil {
		return Event{}, err
	}
	if ev.Type == "" {
		return Event{}, errors.New("opencode event: no type")
	}
	return ev, nil
}

// Todo is one entry of a session's todo list.
type Todo struct {
	Content  string `json:"content"`
	Status   string `json:"status"`
	Priority string `json:"priority"`
}

// TodoUpdated is todo.updated: the session's whole list.
type TodoUpdated struct {
	SessionID string `json:"sessionID"`
	Todos     []Todo `json:"todos"`
}

// ToolRef names the tool call a question or permission belongs to.
type ToolRef struct {
	MessageID string `json:"messageID"`
	CallID    string `json:"callID"`
}

// Question is one question of question.asked.
type Question struct {
	Question string `json:"question"`
	Header   string `json:"header"`
	Options  []struct {
		Label       string `json:"label"`
		Description string `json:"description"`
	} `json:"options"`
	Multiple bool  `json:"multiple,omitempty"` // several options may be chosen
	Custom   *bool `json:"custom,omitempty"`   // the person may type their own answer; true when absent
}

// QuestionAsked is question.asked.
type QuestionAsked struct {
	ID        string     `json:"id"`
	SessionID string     `json:"sessionID"`
	Questions []Question `json:"questions"`
	Tool      *ToolRef   `json:"tool,omitempty"`
}

// PermissionAsked is permission.asked: a tool waits until a client replies; OpenCode sets no
// timeout.
type PermissionAsked struct {
	ID         string          `json:"id"`
	SessionID  string          `json:"sessionID"`
	Permission string          `json:"permission"`
	Patterns   []string        `json:"patterns"`
	Metadata   json.RawMessage `json:"metadata,omitempty"`
	Always     []string        `json:"always"`
	Tool       *ToolRef        `json:"tool,omitempty"`
}

// Replied is question.replied, question.rejected or permission.replied: a client (the TUI, or
// plandash) answered.
type Replied struct {
	SessionID string     `json:"sessionID"`
	RequestID string     `json:"requestID"`
	Reply     string     `json:"reply,omitempty"`   // permission.replied: once, always or reject
	Answers   [][]string `json:"answers,omitempty"` // question.replied: the chosen labels per question
}

// Outcomes of a request answered in OpenCode, as its reply shows them.
const (
	OutcomeApproved = "approved"
	OutcomeDeclined = "declined"
)

// Outcome says what the reply of event (one of the *Replied / *Rejected events) answered: a
// permission allowed once or always, plan_exit's "Yes" are approved; a rejection or "No"
// declined; "" when the reply does not say (another question's free answer).
func (r Replied) Outcome(event string) string {
	switch event {
	case EventQuestionRejected:
		return OutcomeDeclined
	case EventPermissionReplied:
		switch r.Reply {
		case "once", "always":
			return OutcomeApproved
		case "reject":
			return OutcomeDeclined
		}
	case EventQuestionReplied:
		if len(r.Answers) > 0 && len(r.Answers[0]) > 0 {
			switch strings.ToLower(strings.TrimSpace(r.Answers[0][0])) {
			case "yes":
				return OutcomeApproved
			case "no":
				return OutcomeDeclined
			}
		}
	}
	return ""
}

// SessionInfo is the part of session.created/updated the watcher keeps: where the session
// works, and its title.
type SessionInfo struct {
	ID        string `json:"id"`
	Directory string `json:"directory"`
	Title     string `json:"title"`
	Slug      string `json:"slug"`
	// Host is the machine OpenCode runs on, when the plugin said (it is not OpenCode's field).
	Host string `json:"-"`
	// via is how plandash heard of the session (plans.Via…), when it says.
	via string
}

// planExitRE reads the plan path out of plan_exit's question (packages/opencode/src/tool/plan.ts).
var planExitRE = regexp.MustCompile(`^Plan at (.+) is complete\. Would you like to switch to the build agent`)

// PlanExit reports whether q is plan_exit's question, and the plan file path it names (as
// OpenCode wrote it: relative to the project's worktree, or absolute).
func PlanExit(q QuestionAsked) (path string, ok bool) {
	if len(q.Questions) != 1 {
		return "", false
	}
	m := planExitRE.FindStringSubmatch(q.Questions[0].Question)
	if m == nil {
		return "", q.Questions[0].Header == "Build Agent"
	}
	return strings.TrimSpace(m[1]), true
}
