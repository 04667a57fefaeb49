package agenttest

import (
	"bufio"
	"encoding/json"
	"net/http"
	"reflect"
	"strings"
	"testing"
	"time"
)

// post sends body to the model server and returns the JSON data of every SSE event (or the
// one JSON answer when the response is not a stream).
func post(t *testing.T, url, path, body string) []map[string]any {
	t.Helper()
	resp, err := http.Post(url+path, "application/json", strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		t.Fatalf("%s: %s", path, resp.Status)
	}
	var out []map[string]any
	if !strings.HasPrefix(resp.Header.Get("Content-Type"), "text/event-stream") {
		var m map[string]any
		if err := json.NewDecoder(resp.Body).Decode(&m); err != nil {
			t.Fatal(err)
		}
		return append(out, m)
	}
	sc := bufio.NewScanner(resp.Body)
	for sc.Scan() {
		if data, ok := strings.CutPrefix(sc.Text(), "data: "); ok {
			var m map[string]any
			if err := json.Unmarshal([]byte(data), &m); err != nil {
				t.Fatalf("event data %q: %v", data, err)
			}
			out = append(out, m)
		}
	}
	if err := sc.Err(); err != nil {
		t.Fatal(err)
	}
	return out
}

// find returns the first event whose "type" is typ (nil if none).
func find(evs []map[string]any, typ string) map[string]any {
	for _, ev := range evs {
		if ev["type"] == typ {
			return ev
		}
	}
	return nil
}

const (
	mainAnthropic = `{"model":"m","stream":true,"tools":[{"name":"Write"}],"messages":[{"role":"user","content":"hi"}]}`
	sideAnthropic = `{"model":"m","stream":true,"messages":[{"role":"user","content":"quota"}]}`
)

func TestModelServerAnthropic(t *testing.T) {
	srv := NewModelServer(t)
	srv.Script(
		Turn{ToolUse: &ToolUse{Name: "TaskCreate", Input: map[string]any{"subject": "a"}}},
		Turn{Text: "done"},
	)

	// A side request (no tools) gets a short text and leaves the script alone.
	evs := post(t, srv.URL, "/v1/messages?beta=true", sideAnthropic)
	if d := find(evs, "content_block_delta"); d == nil || d["delta"].(map[string]any)["text"] != "ok" {
		t.Errorf("side answer = %v", evs)
	}

	evs = post(t, srv.URL, "/v1/messages?beta=true", mainAnthropic)
	start := find(evs, "content_block_start")
	block, _ := start["content_block"].(map[string]any)
	if block["type"] != "tool_use" || block["name"] != "TaskCreate" || !strings.HasPrefix(block["id"].(string), "toolu_") {
		t.Errorf("content_block_start = %v", start)
	}
	delta, _ := find(evs, "content_block_delta")["delta"].(map[string]any)
	if delta["partial_json"] != `{"subject":"a"}` {
		t.Errorf("input delta = %v", delta)
	}
	if md := find(evs, "message_delta"); md["delta"].(map[string]any)["stop_reason"] != "tool_use" {
		t.Errorf("message_delta = %v", md)
	}
	if srv.ToolName(block["id"].(string)) != "TaskCreate" {
		t.Errorf("ToolName(%v) = %q", block["id"], srv.ToolName(block["id"].(string)))
	}

	for _, want := range []string{"done", "(script exhausted)"} {
		evs = post(t, srv.URL, "/v1/messages", mainAnthropic)
		if d := find(evs, "content_block_delta"); d["delta"].(map[string]any)["text"] != want {
			t.Errorf("answer = %v, want text %q", d, want)
		}
		if md := find(evs, "message_delta"); md["delta"].(map[string]any)["stop_reason"] != "end_turn" {
			t.Errorf("message_delta = %v", md)
		}
	}

	evs = post(t, srv.URL, "/v1/messages/count_tokens", `{"messages":[]}`)
	if evs[0]["input_tokens"] == nil {
		t.Errorf("count_tokens = %v", evs)
	}

	reqs := srv.Requests()
	if len(reqs) != 5 || !reqs[0].Side || reqs[1].Side || !reqs[4].Side || len(srv.MainRequests()) != 3 {
		t.Errorf("requests:\n%s", srv.Summary())
	}
	for i, r := range reqs {
		if r.Seq != i+1 {
			t.Errorf("request %d has Seq %d", i, r.Seq)
		}
	}
}

func TestModelServerUniqueIDsAndResponder(t *testing.T) {
	srv := NewModelServer(t)
	srv.Respond(func(r Request) (Turn, bool) {
		if strings.Contains(string(r.Body), "pick-me") {
			return Turn{Text: "picked"}, true
		}
		return Turn{}, false
	})
	tu := ToolUse{Name: "Bash", Input: map[string]any{"command": "true"}}
	srv.Script(Turn{ToolUse: &tu, ToolUses: []ToolUse{tu}}, Turn{ToolUse: &tu})

	seen := map[string]bool{}
	for range 2 {
		for _, ev := range post(t, srv.URL, "/v1/messages", mainAnthropic) {
			if b, ok := ev["content_block"].(map[string]any); ok && b["type"] == "tool_use" {
				id := b["id"].(string)
				if seen[id] {
					t.Errorf("tool-use id %s repeated", id)
				}
				seen[id] = true
			}
		}
	}
	if len(seen) != 3 {
		t.Errorf("ids = %v, want 3 distinct", seen)
	}
	evs := post(t, srv.URL, "/v1/messages", strings.Replace(mainAnthropic, "hi", "pick-me", 1))
	if d := find(evs, "content_block_delta"); d["delta"].(map[string]any)["text"] != "picked" {
		t.Errorf("responder answer = %v", evs)
	}
}

func TestModelServerOpenAIAndGemini(t *testing.T) {
	srv := NewModelServer(t)
	plan := map[string]any{"plan": []any{map[string]any{"step": "a", "status": "pending"}}}
	srv.Script(Turn{ToolUse: &ToolUse{Name: "update_plan", Input: plan}}, Turn{ToolUse: &ToolUse{Name: "write_todos", Input: map[string]any{"todos": []any{}}}})

	evs := post(t, srv.URL, "/v1/responses", `{"model":"gpt-5","stream":true,"tools":[{"type":"function","name":"x"}],"input":[]}`)
	done := find(evs, "response.output_item.done")
	item, _ := done["item"].(map[string]any)
	if item["type"] != "function_call" || item["name"] != "update_plan" || item["arguments"] != `{"plan":[{"status":"pending","step":"a"}]}` {
		t.Errorf("function_call item = %v", item)
	}
	if find(evs, "response.completed") == nil {
		t.Errorf("no response.completed in %v", evs)
	}

	evs = post(t, srv.URL, "/v1beta/models/gemini-2.5-pro:streamGenerateContent?alt=sse",
		`{"contents":[{"role":"user","parts":[{"text":"hi"}]}],"tools":[{"functionDeclarations":[{"name":"write_todos"}]}]}`)
	b, _ := json.Marshal(evs)
	if !strings.Contains(string(b), `"functionCall":{"args":{"todos":[]},"id":"toolu_agenttest_0002","name":"write_todos"}`) {
		t.Errorf("gemini answer = %s", b)
	}
	// A Gemini helper request (no tools) gets JSON text and does not consume the script.
	evs = post(t, srv.URL, "/v1beta/models/flash:generateContent", `{"contents":[]}`)
	if b, _ := json.Marshal(evs); !strings.Contains(string(b), "next_speaker") {
		t.Errorf("gemini side answer = %s", b)
	}
}

func TestRequestDecoders(t *testing.T) {
	tests := []struct {
		name string
		req  Request
		want any
		got  func(Request) any
	}{
		{
			name: "anthropic tool results of the last user message",
			req: Request{API: "anthropic", Body: []byte(`{"messages":[{"role":"user","content":"x"},{"role":"assistant","content":[]},
				{"role":"user","content":[{"type":"tool_result","tool_use_id":"t1","is_error":true,"content":"denied"},
				{"type":"tool_result","tool_use_id":"t2","content":[{"type":"text","text":"a"},{"type":"text","text":"b"}]},{"type":"text","text":"note"}]}]}`)},
			want: []ToolResult{{ToolUseID: "t1", IsError: true, Content: "denied"}, {ToolUseID: "t2", Content: "a\nb"}},
			got:  func(r Request) any { return r.ToolResults() },
		},
		{
			name: "anthropic typed prompt has no results",
			req:  Request{API: "anthropic", Body: []byte(`{"messages":[{"role":"user","content":"plan it"}]}`)},
			want: []ToolResult(nil),
			got:  func(r Request) any { return r.ToolResults() },
		},
		{
			name: "openai function call outputs",
			req:  Request{API: "openai", Body: []byte(`{"input":[{"type":"message"},{"type":"function_call_output","call_id":"c1","output":"unsupported call: update_plan"}]}`)},
			want: []FunctionCallOutput{{CallID: "c1", Output: "unsupported call: update_plan"}},
			got:  func(r Request) any { return r.FunctionCallOutputs() },
		},
		{
			name: "gemini function responses",
			req:  Request{API: "gemini", Body: []byte(`{"contents":[{"role":"user","parts":[{"functionResponse":{"id":"i","name":"n","response":{"error":"x"}}}]}]}`)},
			want: []FunctionResponse{{ID: "i", Name: "n", Response: json.RawMessage(`{"error":"x"}`)}},
			got:  func(r Request) any { return r.FunctionResponses() },
		},
		{
			name: "tool names of all three APIs",
			req:  Request{Body: []byte(`{"tools":[{"name":"Write"},{"type":"web_search"},{"functionDeclarations":[{"name":"write_todos"}]}]}`)},
			want: []string{"Write", "web_search", "write_todos"},
			got:  func(r Request) any { return r.ToolNames() },
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := tt.got(tt.req); !reflect.DeepEqual(got, tt.want) {
				t.Errorf("got %#v, want %#v", got, tt.want)
			}
		})
	}
}

func TestWaitRequestTimesOut(t *testing.T) {
	srv := NewModelServer(t)
	if _, ok := srv.waitRequest(10*time.Millisecond, func(Request) bool { return true }); ok {
		t.Error("waitRequest found a request on an idle server")
	}
	post(t, srv.URL, "/v1/messages", sideAnthropic)
	if r, ok := srv.waitRequest(time.Minute, func(r Request) bool { return r.Side }); !ok || r.Seq != 1 {
		t.Errorf("waitRequest = %+v, %v", r, ok)
	}
}
