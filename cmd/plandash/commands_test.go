package main

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// runOut runs the command in process and returns its stdout, stderr and error.
func runOut(t *testing.T, getenv func(string) string, stdin string, args ...string) (string, string, error) {
	t.Helper()
	var out, errOut bytes.Buffer
	ctx, cancel := context.WithTimeout(context.Background(), testWait)
	defer cancel()
	err := run(ctx, args, getenv, strings.NewReader(stdin), &out, &errOut)
	return out.String(), errOut.String(), err
}

func writeFile(t *testing.T, name, content string) string {
	t.Helper()
	path := filepath.Join(t.TempDir(), name)
	if err := os.WriteFile(path, []byte(content), 0o600); err != nil {
		t.Fatal(err)
	}
	return path
}

func TestURL(t *testing.T) {
	data := t.TempDir()
	if err := os.WriteFile(filepath.Join(data, "token"), []byte("tok/en+1\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	env := testEnv(t)
	for _, tt := range []struct {
		name string
		args []string
		want string
	}{
		{"the overview", nil, "http://127.0.0.1:9/?token=tok%2Fen%2B1"},
		{"a session", []string{"--session", "s 1"}, "http://127.0.0.1:9/sessions/s%201?token=tok%2Fen%2B1"},
		// The token goes in the fragment, which the browser never sends to the server.
		{"--embed", []string{"--embed"}, "http://127.0.0.1:9/embed#token=tok%2Fen%2B1"},
		{"--embed a session", []string{"--embed", "--session", "s1"}, "http://127.0.0.1:9/embed/sessions/s1#token=tok%2Fen%2B1"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			args := append([]string{"url", "--server", "http://127.0.0.1:9/", "--data", data}, tt.args...)
			out, errOut, err := runOut(t, env, "", args...)
			if err != nil {
				t.Fatalf("url: %v\n%s", err, errOut)
			}
			if got := strings.TrimSpace(out); got != tt.want {
				t.Fatalf("url printed %q, want %q", got, tt.want)
			}
		})
	}
	t.Run("a given token wins", func(t *testing.T) {
		out, _, err := runOut(t, env, "", "url", "--server", "http://127.0.0.1:9", "--token", "given", "--data", data, "--embed")
		if err != nil || strings.TrimSpace(out) != "http://127.0.0.1:9/embed#token=given" {
			t.Fatalf("url = %q, %v", out, err)
		}
	})
	t.Run("no token anywhere", func(t *testing.T) {
		_, _, err := runOut(t, env, "", "url", "--data", t.TempDir())
		if err == nil {
			t.Fatal("url without a token file succeeded")
		}
	})
}

const (
	validDAG = `{"type":"_dag","calls":[
		{"_id":"profile","_tool":"fetchUserProfile","userName":"Alice","_outputPath":"†state.profile"},
		{"_id":"summary","_tool":"summarize","text":"†state.profile.bio","_outputPath":"†state.summary"}]}`
	// summary reads state nothing writes.
	invalidDAG = `{"type":"_dag","calls":[
		{"_id":"summary","_tool":"summarize","text":"†state.nothing","_outputPath":"†state.summary"}]}`
)

func TestDagCheck(t *testing.T) {
	env := testEnv(t)
	valid, invalid := writeFile(t, "valid.json", validDAG), writeFile(t, "invalid.json", invalidDAG)
	for _, tt := range []struct {
		name  string
		args  []string
		stdin string
		code  int // exit code: 0, 1 (problems), 2 (usage); -1 any other error
		want  []string
	}{
		{"valid", []string{valid}, "", 0, []string{"2 calls, 1 dependencies", "valid: no problems", "order: profile → summary"}},
		{"invalid", []string{invalid}, "", 1, []string{"1 problems:", "summary"}},
		{"stdin", []string{"-"}, validDAG, 0, []string{"-: 2 calls", "valid: no problems"}},
		{"json, valid", []string{"--json", valid}, "", 0, []string{`"valid": true`}},
		{"json, invalid", []string{"--json", invalid}, "", 1, []string{`"valid": false`}},
		{"not JSON", []string{"-"}, "{", -1, nil},
		{"no file", nil, "", 2, nil},
		{"missing file", []string{filepath.Join(t.TempDir(), "none.json")}, "", -1, nil},
	} {
		t.Run(tt.name, func(t *testing.T) {
			out, errOut, err := runOut(t, env, tt.stdin, append([]string{"dag", "check"}, tt.args...)...)
			if got := exitOf(err); got != tt.code {
				t.Fatalf("exit %d (%v), want %d\n%s%s", got, err, tt.code, out, errOut)
			}
			for _, w := range tt.want {
				if !strings.Contains(out, w) {
					t.Errorf("output lacks %q:\n%s", w, out)
				}
			}
			if strings.HasPrefix(tt.name, "json") && !json.Valid([]byte(out)) {
				t.Errorf("--json printed invalid JSON:\n%s", out)
			}
		})
	}
}

// exitOf is the exit code main would give err: 0, the command's own code, 2 for usage, and -1
// for any other error (main prints it and exits 1).
func exitOf(err error) int {
	var ec exitCode
	switch {
	case err == nil:
		return 0
	case errors.As(err, &ec):
		return int(ec)
	case errors.Is(err, errUsage):
		return 2
	}
	return -1
}

// transcript is ACP traffic as an agent sends it: a session and its plan.
func transcript(session string, steps ...string) string {
	var b strings.Builder
	var entries []map[string]string
	for _, s := range steps {
		entries = append(entries, map[string]string{"content": s, "priority": "medium", "status": "pending"})
	}
	for _, m := range []any{
		map[string]any{"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": map[string]any{"protocolVersion": 1}},
		map[string]any{"jsonrpc": "2.0", "id": 1, "result": map[string]any{"protocolVersion": 1, "agentInfo": map[string]any{"name": "scripted", "version": "1"}}},
		map[string]any{"jsonrpc": "2.0", "method": "session/update", "params": map[string]any{"sessionId": session,
			"update": map[string]any{"sessionUpdate": "plan", "entries": entries}}},
	} {
		line, err := json.Marshal(m)
		if err != nil {
			panic(err)
		}
		b.Write(line)
		b.WriteByte('\n')
	}
	return b.String()
}

// planEntries is the content of a session's plan "main", through the API.
func planEntries(t *testing.T, s *server, session string) []string {
	t.Helper()
	var got struct {
		Plans []struct {
			ID      string
			Entries []struct{ Content string }
		}
	}
	s.getJSON(t, "/api/v1/sessions/"+session, &got)
	var out []string
	for _, p := range got.Plans {
		if p.ID == "main" {
			for _, e := range p.Entries {
				out = append(out, e.Content)
			}
		}
	}
	return out
}

func TestIngest(t *testing.T) {
	s := startServer(t, "serve", "--token", "ingest-token")
	env := testEnv(t)
	file := writeFile(t, "session.jsonl", transcript("from-file", "Read", "Write"))
	for _, tt := range []struct {
		name, session, stdin string
		args                 []string
		want                 []string
	}{
		{"a file", "from-file", "", []string{file}, []string{"Read", "Write"}},
		{"stdin by default", "from-stdin", transcript("from-stdin", "One"), nil, []string{"One"}},
		{"stdin as -", "from-dash", transcript("from-dash", "Two", "Three"), []string{"-"}, []string{"Two", "Three"}},
	} {
		t.Run(tt.name, func(t *testing.T) {
			args := append([]string{"ingest", "--server", s.base, "--token", s.token}, tt.args...)
			out, errOut, err := runOut(t, env, tt.stdin, args...)
			if err != nil {
				t.Fatalf("ingest: %v\n%s%s", err, out, errOut)
			}
			if !strings.Contains(out, "3 applied, 0 errors") {
				t.Errorf("ingest printed %q", out)
			}
			if got := planEntries(t, s, tt.session); strings.Join(got, ",") != strings.Join(tt.want, ",") {
				t.Fatalf("plan of %s = %v, want %v", tt.session, got, tt.want)
			}
		})
	}
	t.Run("a bad line exits 1 and says which", func(t *testing.T) {
		out, _, err := runOut(t, env, "{\"jsonrpc\":\"2.0\"}\nnot json\n", "ingest", "--server", s.base, "--token", s.token)
		if exitOf(err) != 1 || !strings.Contains(out, "line 2") {
			t.Fatalf("exit %d, output %q", exitOf(err), out)
		}
	})
	t.Run("a wrong token fails", func(t *testing.T) {
		_, _, err := runOut(t, env, transcript("x", "y"), "ingest", "--server", s.base, "--token", "wrong")
		if err == nil {
			t.Fatal("ingest with a wrong token succeeded")
		}
	})
}

// TestAcpRecord runs `plandash acp --record FILE -- AGENT` with a shell as the agent: the record
// holds every frame both ways, in order, and `plandash ingest` replays it into the same plan.
func TestAcpRecord(t *testing.T) {
	if _, err := exec.LookPath("sh"); err != nil {
		t.Skip("no sh to play the agent")
	}
	s := startServer(t, "serve", "--token", "acp-token")
	const (
		request = `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":1}}`
		update  = `{"jsonrpc":"2.0","method":"session/update","params":{"sessionId":"s-rec","update":{"sessionUpdate":"plan","entries":[{"content":"Recorded step","priority":"high","status":"pending"}]}}}`
	)
	rec := filepath.Join(t.TempDir(), "session.jsonl")
	// The agent reads the IDE's request and answers with a plan update.
	agent := "read line; printf '%s\\n' '" + update + "'"
	out, errOut, err := runOut(t, testEnv(t), request+"\n",
		"acp", "--server", s.base, "--token", s.token, "--record", rec, "--flush", "10s", "--", "sh", "-c", agent)
	if err != nil {
		t.Fatalf("acp: %v\n%s", err, errOut)
	}
	if strings.TrimSpace(out) != update {
		t.Fatalf("the IDE received %q, want the agent's frame unchanged", out)
	}
	raw, err := os.ReadFile(rec)
	if err != nil {
		t.Fatal(err)
	}
	var frames []struct {
		Dir string          `json:"dir"`
		TS  string          `json:"ts"`
		Msg json.RawMessage `json:"msg"`
	}
	for i, line := range strings.Split(strings.TrimSpace(string(raw)), "\n") {
		var f struct {
			Dir string          `json:"dir"`
			TS  string          `json:"ts"`
			Msg json.RawMessage `json:"msg"`
		}
		if err := json.Unmarshal([]byte(line), &f); err != nil {
			t.Fatalf("record line %d is not an envelope: %v\n%s", i+1, err, line)
		}
		frames = append(frames, f)
	}
	if len(frames) != 2 || frames[0].Dir != "c2a" || string(frames[0].Msg) != request || frames[1].Dir != "a2c" || string(frames[1].Msg) != update {
		t.Fatalf("record holds %s, want the request (c2a) then the update (a2c) exactly as sent", raw)
	}
	if frames[0].TS == "" || frames[1].TS == "" {
		t.Errorf("frames without a time: %s", raw)
	}
	// The dashboard has the plan, and replaying the record into another server gives the same.
	if got := planEntries(t, s, "s-rec"); len(got) != 1 || got[0] != "Recorded step" {
		t.Fatalf("the dashboard has %v for s-rec", got)
	}
	fresh := startServer(t, "serve", "--token", "fresh")
	if _, errOut, err := runOut(t, testEnv(t), "", "ingest", "--server", fresh.base, "--token", fresh.token, rec); err != nil {
		t.Fatalf("replaying the record: %v\n%s", err, errOut)
	}
	if got := planEntries(t, fresh, "s-rec"); len(got) != 1 || got[0] != "Recorded step" {
		t.Fatalf("the replay gave %v for s-rec", got)
	}
}
