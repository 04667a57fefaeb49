// Command planagent is a scripted ACP agent for plandash's proxy tests: it speaks ACP v1 on
// stdio with no model behind it, and each prompt's text is a script of words that make it emit
// plans, bad lines, large frames, permission requests or an exit code. It uses the plan
// operations (plan_update, plan_removed) only when the client advertised clientCapabilities.plan
// (or the older planCapabilities), and v1 plan otherwise, as real agents must.
//
// Words of a prompt:
//
//	plans       the tasks plan (3 entries); with the capability also a markdown, a file and a review plan
//	progress    the tasks plan with the first entry done
//	done        the tasks plan all done
//	remove      plan_removed for the review plan (with the capability only)
//	cancelled   the tasks plan with a v2 "cancelled" entry (with the capability only)
//	violation   a line that is not JSON on stdout
//	stderr      a log line on stderr
//	huge:N      an agent_message_chunk of N bytes of text
//	chunks:N    N short agent_message_chunks
//	permission  a tool call and a permission request; says which option came back
//	todos       Cursor's cursor/update_todos: a whole list (TODO_STATUS_* statuses), then a merge
//	cursorplan  Cursor's blocking cursor/create_plan; says the outcome that came back (a flat
//	            reply counts as cancelled, as in Cursor)
//	cursorask   Cursor's blocking cursor/ask_question, one single-choice question; says the
//	            outcome that came back and the answers, as JSON
//	cursorask2  the same with two questions
//	unknown     a request of a method nobody knows (_example/unknown); says what came back
//	sleep:MS    a pause
//	exit:N      exit with code N after answering the prompt
//	crash       exit with code 2 at once, mid-turn, without answering
package main

import (
	"bufio"
	"encoding/json"
	"fmt"
	"os"
	"strconv"
	"strings"
	"time"
)

type message struct {
	ID     json.RawMessage `json:"id,omitempty"`
	Method string          `json:"method,omitempty"`
	Params json.RawMessage `json:"params,omitempty"`
	Result json.RawMessage `json:"result,omitempty"`
	Error  json.RawMessage `json:"error,omitempty"`
}

type agent struct {
	in      *bufio.Reader
	out     *bufio.Writer
	session string
	capable bool
	nextID  int
	backlog []message
}

func main() {
	a := &agent{in: bufio.NewReaderSize(os.Stdin, 1<<20), out: bufio.NewWriter(os.Stdout), session: "sess_plan_1"}
	if s := os.Getenv("PLANAGENT_SESSION"); s != "" {
		a.session = s
	}
	for {
		m, ok := a.next()
		if !ok {
			return
		}
		a.handle(m)
	}
}

func (a *agent) next() (message, bool) {
	if len(a.backlog) > 0 {
		m := a.backlog[0]
		a.backlog = a.backlog[1:]
		return m, true
	}
	for {
		line, err := a.in.ReadBytes('\n')
		if len(strings.TrimSpace(string(line))) > 0 {
			var m message
			if json.Unmarshal(line, &m) != nil {
				fmt.Fprintf(os.Stderr, "planagent: not JSON: %.80q\n", line)
				continue
			}
			return m, true
		}
		if err != nil {
			return message{}, false
		}
	}
}

func (a *agent) send(v any) {
	b, err := json.Marshal(v)
	if err != nil {
		panic(err)
	}
	a.out.Write(b)
	a.out.WriteByte('\n')
	a.out.Flush()
}

func (a *agent) reply(id json.RawMessage, result any) {
	a.send(map[string]any{"jsonrpc": "2.0", "id": id, "result": result})
}

func (a *agent) update(u map[string]any) {
	a.send(map[string]any{"jsonrpc": "2.0", "method": "session/update", "params": map[string]any{"sessionId": a.session, "update": u}})
}

func (a *agent) handle(m message) {
	switch m.Method {
	case "initialize":
		var p struct {
			Caps map[string]json.RawMessage `json:"clientCapabilities"`
		}
		json.Unmarshal(m.Params, &p)
		a.capable = isObject(p.Caps["plan"]) || isObject(p.Caps["planCapabilities"])
		a.reply(m.ID, map[string]any{
			"protocolVersion":   1,
			"agentCapabilities": map[string]any{"loadSession": false},
			"agentInfo":         map[string]any{"name": "planagent", "title": "Plan Agent", "version": "1.0.0"},
			"authMethods":       []any{},
		})
	case "session/new":
		a.reply(m.ID, map[string]any{"sessionId": a.session})
	case "session/prompt":
		var p struct {
			Prompt []struct {
				Text string `json:"text"`
			} `json:"prompt"`
		}
		json.Unmarshal(m.Params, &p)
		var words []string
		for _, b := range p.Prompt {
			words = append(words, strings.Fields(b.Text)...)
		}
		exit := a.run(words)
		a.reply(m.ID, map[string]any{"stopReason": "end_turn"})
		if exit >= 0 {
			os.Exit(exit)
		}
	case "", "session/cancel", "$/cancel_request":
	default:
		if m.ID != nil {
			a.send(map[string]any{"jsonrpc": "2.0", "id": m.ID, "error": map[string]any{"code": -32601, "message": "Method not found"}})
		}
	}
}

func isObject(b json.RawMessage) bool { return len(b) > 0 && b[0] == '{' }

type entry struct {
	Content  string `json:"content"`
	Priority string `json:"priority"`
	Status   string `json:"status"`
}

func tasks(s1, s2, s3 string) []entry {
	return []entry{{"Forward every byte", "high", s1}, {"Tap plan frames", "medium", s2}, {"Document the IDE set-up", "low", s3}}
}

func (a *agent) items(id string, entries any) {
	if a.capable {
		a.update(map[string]any{"sessionUpdate": "plan_update", "plan": map[string]any{"type": "items", "planId": id, "entries": entries}})
	} else if id == "tasks" {
		a.update(map[string]any{"sessionUpdate": "plan", "entries": entries})
	}
}

// run performs a prompt's words and returns the exit code asked for, or -1.
func (a *agent) run(words []string) int {
	exit := -1
	for _, w := range words {
		word, arg, _ := strings.Cut(w, ":")
		n, _ := strconv.Atoi(arg)
		switch word {
		case "plans":
			a.items("tasks", tasks("in_progress", "pending", "pending"))
			if a.capable {
				a.update(map[string]any{"sessionUpdate": "plan_update", "plan": map[string]any{"type": "markdown", "planId": "plan-mode", "content": "## Approach\n\n1. Forward bytes unchanged\n2. Tap the frames"}})
				a.update(map[string]any{"sessionUpdate": "plan_update", "plan": map[string]any{"type": "file", "planId": "design", "uri": "file:///tmp/planagent-design.md"}})
				a.items("review", []entry{{"Review the proxy", "medium", "pending"}})
			}
		case "progress":
			a.items("tasks", tasks("completed", "in_progress", "pending"))
		case "done":
			a.items("tasks", tasks("completed", "completed", "completed"))
		case "remove":
			if a.capable {
				a.update(map[string]any{"sessionUpdate": "plan_removed", "planId": "review"})
			}
		case "cancelled":
			a.items("tasks", []entry{{"Forward every byte", "high", "completed"}, {"Drop the old tap", "low", "cancelled"}})
		case "violation":
			a.out.WriteString("planagent: this line is not JSON\n")
			a.out.Flush()
		case "stderr":
			fmt.Fprintln(os.Stderr, "planagent: a log line")
		case "huge":
			a.update(map[string]any{"sessionUpdate": "agent_message_chunk", "content": map[string]any{"type": "text", "text": strings.Repeat("x", n)}})
		case "chunks":
			for i := range n {
				a.update(map[string]any{"sessionUpdate": "agent_message_chunk", "content": map[string]any{"type": "text", "text": fmt.Sprintf("chunk %d ", i)}})
			}
		case "permission":
			a.update(map[string]any{"sessionUpdate": "tool_call", "toolCallId": "call_perm", "title": "Edit config.json", "kind": "edit", "status": "pending"})
			a.update(map[string]any{"sessionUpdate": "agent_message_chunk", "content": map[string]any{"type": "text", "text": "permission: " + a.askPermission()}})
		case "todos":
			a.send(map[string]any{"jsonrpc": "2.0", "method": "cursor/update_todos", "params": map[string]any{"todos": []map[string]any{
				{"id": "1", "content": "Read the code", "status": "TODO_STATUS_COMPLETED"},
				{"id": "2", "content": "Write the fix", "status": "TODO_STATUS_IN_PROGRESS"},
				{"id": "3", "content": "Run the tests", "status": "TODO_STATUS_PENDING"},
			}}})
			a.send(map[string]any{"jsonrpc": "2.0", "id": "todos-2", "method": "cursor/update_todos", "params": map[string]any{"merge": true, "todos": []map[string]any{
				{"id": "2", "content": "Write the fix", "status": "TODO_STATUS_COMPLETED"},
			}}})
		case "cursorplan":
			res, _ := a.ask("cursor/create_plan", map[string]any{"name": "Tighten login", "overview": "Validate the form first.",
				"plan": "1. Validate the form\n2. Add a test", "todos": []map[string]any{{"id": "t1", "content": "Validate the form", "status": "pending"}}})
			var r struct {
				Outcome json.RawMessage `json:"outcome"`
			}
			json.Unmarshal(res.Result, &r)
			var nested struct {
				Outcome string `json:"outcome"`
			}
			outcome := "cancelled" // what Cursor makes of a flat or missing outcome
			if json.Unmarshal(r.Outcome, &nested) == nil && nested.Outcome != "" {
				outcome = nested.Outcome
			}
			if res.Error != nil {
				outcome = "error " + string(res.Error)
			}
			a.update(map[string]any{"sessionUpdate": "agent_message_chunk", "content": map[string]any{"type": "text", "text": "cursorplan: " + outcome}})
		case "cursorask", "cursorask2":
			qs := []map[string]any{{"id": "db", "prompt": "Which database?", "allowMultiple": false,
				"options": []map[string]any{{"id": "pg", "label": "PostgreSQL"}, {"id": "lite", "label": "SQLite"}}}}
			if word == "cursorask2" {
				qs = append(qs, map[string]any{"id": "orm", "prompt": "Which ORM?", "allowMultiple": true,
					"options": []map[string]any{{"id": "none", "label": "None"}, {"id": "gorm", "label": "GORM"}}})
			}
			res, _ := a.ask("cursor/ask_question", map[string]any{"toolCallId": "tool_ask_1", "title": "Setup", "questions": qs})
			var r struct {
				Outcome json.RawMessage `json:"outcome"`
			}
			json.Unmarshal(res.Result, &r)
			text := string(r.Outcome)
			if res.Error != nil {
				text = "error " + string(res.Error)
			}
			a.update(map[string]any{"sessionUpdate": "agent_message_chunk", "content": map[string]any{"type": "text", "text": word + ": " + text}})
		case "unknown":
			res, ok := a.ask("_example/unknown", map[string]any{"sessionId": a.session})
			text := "no answer"
			if ok {
				text = string(res.Result) + string(res.Error)
			}
			a.update(map[string]any{"sessionUpdate": "agent_message_chunk", "content": map[string]any{"type": "text", "text": "unknown: " + text}})
		case "sleep":
			time.Sleep(time.Duration(n) * time.Millisecond)
		case "exit":
			exit = n
		case "crash":
			os.Exit(2)
		}
	}
	return exit
}

// askPermission sends a permission request and waits for its answer.
func (a *agent) askPermission() string {
	m, ok := a.ask("session/request_permission", map[string]any{
		"sessionId": a.session,
		"toolCall":  map[string]any{"toolCallId": "call_perm", "title": "Edit config.json", "kind": "edit", "status": "pending"},
		"options": []map[string]any{
			{"optionId": "allow", "name": "Allow", "kind": "allow_once"},
			{"optionId": "reject", "name": "Reject", "kind": "reject_once"},
		},
	})
	if !ok {
		return "no answer"
	}
	if m.Error != nil {
		return "error " + string(m.Error)
	}
	var r struct {
		Outcome struct {
			Outcome  string `json:"outcome"`
			OptionID string `json:"optionId"`
		} `json:"outcome"`
	}
	json.Unmarshal(m.Result, &r)
	return strings.TrimSpace(r.Outcome.Outcome + " " + r.Outcome.OptionID)
}

// ask sends a request to the client and waits for its response, keeping anything else that
// arrives meanwhile for later; ok is false when the input ended first.
func (a *agent) ask(method string, params any) (message, bool) {
	a.nextID++
	id := json.RawMessage(strconv.Itoa(a.nextID))
	a.send(map[string]any{"jsonrpc": "2.0", "id": id, "method": method, "params": params})
	for {
		line, err := a.in.ReadBytes('\n')
		var m message
		if json.Unmarshal(line, &m) == nil {
			switch {
			case m.Method == "" && string(m.ID) == string(id):
				return m, true
			case m.Method != "":
				a.backlog = append(a.backlog, m)
			}
		}
		if err != nil {
			return message{}, false
		}
	}
}
