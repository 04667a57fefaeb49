package acp

import "encoding/json"

// MethodCursorAskQuestion is Cursor's blocking question: the agent waits for the person's
// choices, answered with a nested outcome (CursorQuestionOutcome). Params: {toolCallId, title?,
// questions:[{id, prompt, options:[{id, label}], allowMultiple}]} (cursor.com/docs/cli/acp lists
// it as a blocking request; the shapes as independent clients implement them: helix-acp's
// CursorAskQuestionRequest, the tth_cursor ACP schemas, and others).
const MethodCursorAskQuestion = "cursor/ask_question"

// Bounds of a decoded question: Cursor asks a few short ones; the rest is not kept.
const (
	MaxCursorQuestions = 16
	MaxCursorOptions   = 32
)

// CursorQuestion is one question of cursor/ask_question.
type CursorQuestion struct {
	ID      string
	Prompt  string
	Options []CursorOption
	Multi   bool // allowMultiple: several options may be chosen
}

// CursorOption is one choice of a question.
type CursorOption struct {
	ID    string
	Label string
}

// CursorAsk is the params of cursor/ask_question. SessionID is "" when Cursor left it out.
type CursorAsk struct {
	SessionID  string
	ToolCallID string
	Title      string
	Questions  []CursorQuestion
}

// DecodeCursorAsk decodes cursor/ask_question params. It fails when params is not an object or
// holds no usable question; a question without an id or a prompt, or an option without an id,
// is skipped (it could not be answered), and at most MaxCursorQuestions questions of
// MaxCursorOptions options are kept. An option without a label shows its id.
func DecodeCursorAsk(params json.RawMessage) (CursorAsk, error) {
	b, err := ownObject("params", params)
	if err != nil {
		return CursorAsk{}, err
	}
	var f [4][]byte
	Lookup(b, f[:], "sessionId", "toolCallId", "title", "questions")
	if !IsArray(f[3]) {
		return CursorAsk{}, &DecodeError{Path: "questions", Message: notArray(f[3])}
	}
	var a CursorAsk
	a.SessionID, _ = Unquote(f[0])
	a.ToolCallID, _ = Unquote(f[1])
	a.Title, _ = Unquote(f[2])
	for it := NewArrayIter(f[3]); len(a.Questions) < MaxCursorQuestions; {
		el, ok := it.Next()
		if !ok {
			break
		}
		if q, ok := cursorQuestion(el); ok {
			a.Questions = append(a.Questions, q)
		}
	}
	if len(a.Questions) == 0 {
		return CursorAsk{}, &DecodeError{Path: "questions", Message: "holds no question with an id, a prompt and options"}
	}
	return a, nil
}

func cursorQuestion(el []byte) (CursorQuestion, bool) {
	if !IsObject(el) {
		return CursorQuestion{}, false
	}
	var f [4][]byte
	Lookup(el, f[:], "id", "prompt", "options", "allowMultiple")
	var q CursorQuestion
	var ok1, ok2 bool
	q.ID, ok1 = Unquote(f[0])
	q.Prompt, ok2 = Unquote(f[1])
	if !ok1 || !ok2 || q.ID == "" || q.Prompt == "" || !IsArray(f[2]) {
		return CursorQuestion{}, false
	}
	q.Multi = string(f[3]) == "true"
	for it := NewArrayIter(f[2]); len(q.Options) < MaxCursorOptions; {
		o, ok := it.Next()
		if !ok {
			break
		}
		if !IsObject(o) {
			continue
		}
		var of [2][]byte
		Lookup(o, of[:], "id", "label")
		id, ok := Unquote(of[0])
		if !ok || id == "" {
			continue
		}
		label, _ := Unquote(of[1])
		if label == "" {
			label = id
		}
		q.Options = append(q.Options, CursorOption{ID: id, Label: label})
	}
	return q, len(q.Options) > 0
}

// Outcomes of cursor/ask_question besides cancelled.
const (
	CursorAnswered = "answered"
	CursorSkipped  = "skipped"
)

// CursorAnswer is the options chosen for one question.
type CursorAnswer struct {
	QuestionID string   `json:"questionId"`
	OptionIDs  []string `json:"selectedOptionIds"`
}

// CursorQuestionOutcome is the answer to cursor/ask_question.
type CursorQuestionOutcome struct {
	Outcome string         // answered, skipped or cancelled
	Answers []CursorAnswer // with answered
	Reason  string         // with skipped, optionally
}

// Result is the response's result, the outcome nested as in cursor/create_plan's:
// {"outcome":{"outcome":"answered","answers":[{"questionId","selectedOptionIds"}]}},
// {"outcome":{"outcome":"skipped","reason"?}} or {"outcome":{"outcome":"cancelled"}}.
func (o CursorQuestionOutcome) Result() json.RawMessage {
	inner := map[string]any{"outcome": o.Outcome}
	switch o.Outcome {
	case CursorAnswered:
		answers := o.Answers
		if answers == nil {
			answers = []CursorAnswer{}
		}
		inner["answers"] = answers
	case CursorSkipped:
		if o.Reason != "" {
			inner["reason"] = o.Reason
		}
	default:
		inner["outcome"] = CursorCancelled
	}
	b, _ := json.Marshal(map[string]any{"outcome": inner})
	return b
}

// DecodeCursorQuestionOutcome reads a cursor/ask_question result: the outcome nested under
// "outcome". Anything but answered or skipped decodes as cancelled; answers that are not
// {questionId, selectedOptionIds} are skipped.
func DecodeCursorQuestionOutcome(result json.RawMessage) (CursorQuestionOutcome, error) {
	b, err := ownObject("result", result)
	if err != nil {
		return CursorQuestionOutcome{}, err
	}
	var f [1][]byte
	Lookup(b, f[:], "outcome")
	if !IsObject(f[0]) {
		return CursorQuestionOutcome{}, &DecodeError{Path: "outcome", Message: notObject(f[0])}
	}
	var o [3][]byte
	Lookup(f[0], o[:], "outcome", "answers", "reason")
	s, _ := Unquote(o[0])
	switch s {
	case CursorSkipped:
		reason, _ := Unquote(o[2])
		return CursorQuestionOutcome{Outcome: s, Reason: reason}, nil
	case CursorAnswered:
		out := CursorQuestionOutcome{Outcome: s}
		if !IsArray(o[1]) {
			return out, nil
		}
		for it := NewArrayIter(o[1]); len(out.Answers) < MaxCursorQuestions; {
			el, ok := it.Next()
			if !ok {
				break
			}
			if !IsObject(el) {
				continue
			}
			var af [2][]byte
			Lookup(el, af[:], "questionId", "selectedOptionIds")
			qid, ok := Unquote(af[0])
			if !ok || !IsArray(af[1]) {
				continue
			}
			a := CursorAnswer{QuestionID: qid, OptionIDs: []string{}}
			for oi := NewArrayIter(af[1]); len(a.OptionIDs) < MaxCursorOptions; {
				v, ok := oi.Next()
				if !ok {
					break
				}
				if id, ok := Unquote(v); ok {
					a.OptionIDs = append(a.OptionIDs, id)
				}
			}
			out.Answers = append(out.Answers, a)
		}
		return out, nil
	}
	return CursorQuestionOutcome{Outcome: CursorCancelled}, nil
}
