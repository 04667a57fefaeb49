package gemini

import (
	"encoding/json"
	"os"
	"path/filepath"
	"regexp"
	"sync"
	"testing"
	"time"

	"github.com/plandash/plandash/internal/agents/agenttest"
)

// geminiModel is a Gemini 2.x non-preview model: Gemini CLI 0.61.0 offers write_todos only to
// those.
const geminiModel = "gemini-2.5-pro"

// TestCaptureFixtures runs the REAL Gemini CLI against agenttest's scripted model with a hook
// that records every event, and writes them to testdata/captured/ (PLANDASH_CAPTURE=1 only):
// the fixtures the other tests read are these payloads, with their paths left as captured.
func TestCaptureFixtures(t *testing.T) {
	if os.Getenv("PLANDASH_CAPTURE") != "1" {
		t.Skip("set PLANDASH_CAPTURE=1 to capture fixtures from the real Gemini CLI")
	}
	out := filepath.Join("testdata", "captured")
	if err := os.MkdirAll(out, 0o755); err != nil {
		t.Fatal(err)
	}
	for _, run := range []struct {
		name string
		args []string
		plan bool
	}{
		{name: "todos", args: []string{"--yolo", "-m", geminiModel}},
		{name: "plan", args: []string{"--approval-mode", "plan", "-m", geminiModel}, plan: true},
	} {
		t.Run(run.name, func(t *testing.T) {
			srv := agenttest.NewModelServer(t)
			rec := filepath.Join(t.TempDir(), "events.jsonl")
			hook := func(matcher string) []any {
				g := map[string]any{"hooks": []any{map[string]any{"type": "command", "command": agenttest.RecordHook(rec, "")}}}
				if matcher != "" {
					g["matcher"] = matcher
				}
				return []any{g}
			}
			hooks := map[string]any{}
			for _, ev := range []string{"SessionStart", "SessionEnd", "BeforeAgent", "AfterAgent", "Notification", "PreCompress"} {
				hooks[ev] = hook("")
			}
			hooks["BeforeTool"], hooks["AfterTool"] = hook("*"), hook("*")
			g := agenttest.NewGemini(t, srv, map[string]any{"hooks": hooks})
			if run.plan {
				var once sync.Once
				srv.Respond(func(r agenttest.Request) (agenttest.Turn, bool) {
					first := false
					once.Do(func() { first = true })
					if !first {
						return agenttest.Turn{}, false
					}
					m := plansRE.FindStringSubmatch(string(r.Body))
					if m == nil {
						t.Errorf("the first request names no plans directory")
						return agenttest.Turn{Text: "no plans directory"}, true
					}
					return agenttest.Turn{ToolUse: &agenttest.ToolUse{Name: "write_file", Input: map[string]any{
						"file_path": filepath.Join(m[1], "parser.md"), "content": "# Parser plan\n\n1. Tokenize\n2. Parse\n"}}}, true
				})
				srv.Script(agenttest.Turn{ToolUse: &agenttest.ToolUse{Name: "exit_plan_mode", Input: map[string]any{"plan_filename": "parser.md"}}},
					agenttest.Turn{Text: "Agenttest turn over."})
			} else {
				todos := []any{
					map[string]any{"description": "Read the parser", "status": "completed"},
					map[string]any{"description": "Write the tokenizer", "status": "in_progress"},
					map[string]any{"description": "Fuzz it", "status": "pending"},
					map[string]any{"description": "Wait for the grammar", "status": "blocked"},
					map[string]any{"description": "Old idea", "status": "cancelled"},
				}
				srv.Script(agenttest.Turn{ToolUse: &agenttest.ToolUse{Name: "write_todos", Input: map[string]any{"todos": todos}}},
					agenttest.Turn{Text: "Agenttest turn over."})
			}
			res := g.Prompt(3*time.Minute, "plan the parser", run.args...)
			if res.Err != nil {
				t.Fatalf("gemini -p: %v\nstdout: %s\nstderr: %s\nrequests:\n%s", res.Err, res.Stdout, res.Stderr, srv.Summary())
			}
			for i, ev := range agenttest.HookEvents(t, rec) {
				name := ev["hook_event_name"].(string)
				if tn, _ := ev["tool_name"].(string); tn != "" {
					name += "_" + tn
				}
				b, err := json.MarshalIndent(ev, "", "  ")
				if err != nil {
					t.Fatal(err)
				}
				path := filepath.Join(out, run.name+"_"+twoDigits(i)+"_"+name+".json")
				if err := os.WriteFile(path, append(b, '\n'), 0o644); err != nil {
					t.Fatal(err)
				}
			}
		})
	}
}

func twoDigits(i int) string { return string(rune('0'+i/10)) + string(rune('0'+i%10)) }

// plansRE finds the plans directory Gemini CLI names in plan mode's tool descriptions.
var plansRE = regexp.MustCompile(`plans directory: (/[^\s"\\]+/plans)`)
