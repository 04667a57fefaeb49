package acpproxy

import (
	"encoding/json"
	"strconv"
	"strings"

	"github.com/plandash/plandash/internal/acp"
)

// Cursor's questions at the dashboard: cursor/ask_question is offered to the broker as a
// permission request, so the waits list shows it and answers it with the same first-answer-wins
// machinery as session/request_permission and cursor/create_plan. A permission request takes
// one option, so a single question with a single choice offers its options, each answering it;
// several questions, or one that takes several choices, offer only skipping them (they are
// answered in the IDE). Every question can be skipped. The answer goes back in Cursor's nested
// form.

// cursorSkipOption is the synthetic option that skips the questions. Cursor's own option ids
// are kept as they are, so a clash is avoided by taking another id (skipOptionID).
const cursorSkipOption = "skip"

// skipOptionID is the skip option's id for a: "skip", or "skip-" repeated until it is none of
// the question's options' ids.
func skipOptionID(a acp.CursorAsk) string {
	id := cursorSkipOption
	for answerable(a) && optionIndex(a.Questions[0], id) >= 0 {
		id += "-"
	}
	return id
}

// answerable reports whether the dashboard can answer a with one option: one question, one
// choice.
func answerable(a acp.CursorAsk) bool { return len(a.Questions) == 1 && !a.Questions[0].Multi }

func optionIndex(q acp.CursorQuestion, id string) int {
	for i, o := range q.Options {
		if o.ID == id {
			return i
		}
	}
	return -1
}

// cursorAskRequest turns cursor/ask_question params into the permission request offered.
func cursorAskRequest(id, params json.RawMessage, sessions *sessionTracker) (PermissionRequest, acp.CursorAsk, bool) {
	a, err := acp.DecodeCursorAsk(params)
	if err != nil {
		return PermissionRequest{}, acp.CursorAsk{}, false
	}
	sid := sessions.session(a.SessionID)
	title := "Cursor asks: " + a.Questions[0].Prompt
	if len(a.Questions) > 1 {
		title = "Cursor asks " + strconv.Itoa(len(a.Questions)) + " questions: answer them in the IDE"
	} else if a.Questions[0].Multi {
		title += " (several choices: answer in the IDE)"
	}
	callID := a.ToolCallID
	if callID == "" {
		callID = "cursor_ask_question_" + strings.Trim(string(id), `"`)
	}
	var opts []acp.PermissionOption
	if answerable(a) {
		for _, o := range a.Questions[0].Options {
			opts = append(opts, acp.PermissionOption{OptionID: o.ID, Name: o.Label, Kind: "allow_once"})
		}
	}
	opts = append(opts, acp.PermissionOption{OptionID: skipOptionID(a), Name: "Skip the question", Kind: "reject_once"})
	if len(a.Questions) > 1 {
		opts[len(opts)-1].Name = "Skip the questions"
	}
	wire := make([]map[string]string, len(opts))
	for i, o := range opts {
		wire[i] = map[string]string{"optionId": o.OptionID, "name": o.Name, "kind": o.Kind}
	}
	synth, _ := json.Marshal(map[string]any{
		"sessionId": sid,
		"toolCall": map[string]any{"toolCallId": callID, "title": title, "kind": "other", "status": "pending",
			"rawInput": map[string]any{"questions": askText(a)}},
		"options": wire,
		"_meta":   map[string]any{"plandash": map[string]any{"from": acp.MethodCursorAskQuestion, "params": params}},
	})
	return PermissionRequest{ID: id, SessionID: sid, Params: synth, Options: opts}, a, true
}

// askText is the questions as the dashboard shows them: each prompt and its options' labels.
func askText(a acp.CursorAsk) []map[string]any {
	out := make([]map[string]any, len(a.Questions))
	for i, q := range a.Questions {
		labels := make([]string, len(q.Options))
		for j, o := range q.Options {
			labels[j] = o.Label
		}
		out[i] = map[string]any{"question": q.Prompt, "options": labels, "multiple": q.Multi}
	}
	return out
}

// askOutcome maps a permission outcome on the offered options to Cursor's answer.
func askOutcome(a acp.CursorAsk, o acp.PermissionOutcome) acp.CursorQuestionOutcome {
	if o.Outcome != "selected" {
		return acp.CursorQuestionOutcome{Outcome: acp.CursorCancelled}
	}
	if o.OptionID == skipOptionID(a) {
		reason := "Skipped on the plandash dashboard"
		if o.Feedback != "" {
			reason += ": " + o.Feedback
		}
		return acp.CursorQuestionOutcome{Outcome: acp.CursorSkipped, Reason: reason}
	}
	if answerable(a) && optionIndex(a.Questions[0], o.OptionID) >= 0 {
		return acp.CursorQuestionOutcome{Outcome: acp.CursorAnswered,
			Answers: []acp.CursorAnswer{{QuestionID: a.Questions[0].ID, OptionIDs: []string{o.OptionID}}}}
	}
	return acp.CursorQuestionOutcome{Outcome: acp.CursorCancelled}
}

// askPermissionOutcome maps the IDE's answer to a Cursor question back onto the offered options,
// so the dashboard shows what the IDE decided: the option chosen (when it is one offered), skip,
// or cancelled.
func askPermissionOutcome(a acp.CursorAsk, result json.RawMessage) acp.PermissionOutcome {
	o, err := acp.DecodeCursorQuestionOutcome(result)
	switch {
	case err != nil:
		return acp.PermissionOutcome{}
	case o.Outcome == acp.CursorSkipped:
		return acp.PermissionOutcome{Outcome: "selected", OptionID: skipOptionID(a)}
	case o.Outcome == acp.CursorAnswered && answerable(a) && len(o.Answers) == 1 && len(o.Answers[0].OptionIDs) == 1 &&
		o.Answers[0].QuestionID == a.Questions[0].ID && optionIndex(a.Questions[0], o.Answers[0].OptionIDs[0]) >= 0:
		return acp.PermissionOutcome{Outcome: "selected", OptionID: o.Answers[0].OptionIDs[0]}
	case o.Outcome == acp.CursorAnswered:
		return acp.PermissionOutcome{} // answered in ways the offered options cannot say
	}
	return acp.PermissionOutcome{Outcome: "cancelled"}
}

func cursorAskResultFrame(id json.RawMessage, a acp.CursorAsk, o acp.PermissionOutcome) []byte {
	b, _ := json.Marshal(map[string]any{"jsonrpc": "2.0", "id": id, "result": askOutcome(a, o).Result()})
	return b
}
