package e2e

import (
	"bytes"
	"encoding/json"
	"io"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// TestProxyGoSDKPermissionAnsweredOnDashboard runs the Go SDK's example client and agent
// through `plandash acp --approvals=both` and answers the agent's permission request on the
// dashboard before the client's user does. The agent gets the dashboard's answer, the client
// gets $/cancel_request for its copy, and the client's late answer never reaches the agent.
func TestProxyGoSDKPermissionAnsweredOnDashboard(t *testing.T) {
	a := startApp(t, t.TempDir(), "127.0.0.1:0")
	dir := t.TempDir()
	// The client's user, who will answer too late. An OS pipe, so Wait does not wait for a copy
	// from it.
	userIn, userW, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	defer userW.Close()
	defer userIn.Close()
	cmd := exec.Command(tool(t, "client"), "sh", "-c",
		`tee ide-c2a.jsonl | "$0" acp --approvals both --stream gosdk --server "$1" --token "$2" -- sh -c 'tee agent-c2a.jsonl | "$0" | tee agent-a2c.jsonl' "$3" | tee ide-a2c.jsonl`,
		tool(t, "plandash"), "http://"+a.addr, token, tool(t, "agent"))
	cmd.Dir, cmd.Stdin = dir, userIn
	var out bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &out
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	userIn.Close()
	done := make(chan error, 1)
	go func() { done <- cmd.Wait() }()

	var open []struct {
		Stream     string          `json:"stream"`
		ID         json.RawMessage `json:"id"`
		ResolvedBy string          `json:"resolvedBy"`
		InIDE      bool            `json:"inIde"`
	}
	list := func() { a.getJSON("/api/v1/proxy/permissions", &open) }
	deadline := time.Now().Add(waitFor)
	for list(); len(open) == 0; list() {
		if time.Now().After(deadline) {
			t.Fatalf("the permission request never reached the dashboard; client output:\n%s", out.String())
		}
		time.Sleep(50 * time.Millisecond)
	}
	if open[0].Stream != "gosdk" || string(open[0].ID) != "1" || !open[0].InIDE {
		t.Fatalf("offered %+v", open[0])
	}
	answer := func() int {
		body := `{"stream":"gosdk","id":1,"outcome":{"outcome":"selected","optionId":"allow"}}`
		code, _ := a.gateAPI(http.MethodPost, "/api/v1/proxy/permissions/answer", body)
		return code
	}
	if code := answer(); code != http.StatusAccepted {
		t.Fatalf("answering on the dashboard: %d", code)
	}
	if code := answer(); code != http.StatusConflict {
		t.Errorf("a second answer: %d, want 409 (the first answer wins)", code)
	}

	read := func(name string) string {
		b, _ := os.ReadFile(filepath.Join(dir, name))
		return string(b)
	}
	for !strings.Contains(read("ide-a2c.jsonl"), `"$/cancel_request"`) {
		if time.Now().After(deadline) {
			t.Fatalf("the client got no $/cancel_request:\n%s", read("ide-a2c.jsonl"))
		}
		time.Sleep(20 * time.Millisecond)
	}
	io.WriteString(userW, "2\n") // the user picks "Skip this change", too late

	select {
	case err := <-done:
		if err != nil || !strings.Contains(out.String(), "Agent completed") {
			t.Fatalf("the client did not finish normally (%v):\n%s", err, out.String())
		}
	case <-time.After(waitFor):
		t.Fatalf("the client did not finish:\n%s", out.String())
	}
	if !strings.Contains(out.String(), "successfully updated the configuration") {
		t.Errorf("the agent did not act on the dashboard's answer:\n%s", out.String())
	}
	for !strings.Contains(read("agent-a2c.jsonl"), "stopReason") {
		if time.Now().After(deadline) {
			t.Fatal("the transcripts were not complete in time")
		}
		time.Sleep(20 * time.Millisecond)
	}
	toAgent := read("agent-c2a.jsonl")
	if strings.Count(toAgent, `"outcome"`) != 2 || !strings.Contains(toAgent, `"optionId":"allow"`) || strings.Contains(toAgent, "reject") {
		t.Errorf("the agent got other answers than the dashboard's:\n%s", toAgent)
	}
	// Everything else the agent received is what the client sent, byte for byte.
	var fromIDE []string
	for _, line := range strings.SplitAfter(read("ide-c2a.jsonl"), "\n") {
		if !strings.Contains(line, `"result":{"outcome"`) && line != "" {
			fromIDE = append(fromIDE, line)
		}
	}
	var rest []string
	for _, line := range strings.SplitAfter(toAgent, "\n") {
		if !strings.Contains(line, `"result":{"outcome"`) && line != "" {
			rest = append(rest, line)
		}
	}
	if strings.Join(rest, "") != strings.Join(fromIDE, "") {
		t.Errorf("the agent's other input differs from what the client sent:\n%s\n---\n%s", rest, fromIDE)
	}
	deadline = time.Now().Add(waitFor)
	for list(); len(open) == 0 || open[0].ResolvedBy != "dashboard"; list() {
		if time.Now().After(deadline) {
			t.Fatalf("the dashboard does not show who resolved the request: %+v", open)
		}
		time.Sleep(50 * time.Millisecond)
	}
}
