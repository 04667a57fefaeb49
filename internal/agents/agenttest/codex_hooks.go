package agenttest

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"time"
)

// TrustHooks marks every hook Codex discovers for the project as trusted, as a user does in
// the TUI's "Hooks need review" dialog: Codex 0.169.0 silently skips untrusted hooks in
// `exec` and asks about them in the TUI. It asks `codex app-server` (JSON-RPC over stdio) for
// hooks/list, whose entries carry each hook's key and currentHash, and records them in
// config.toml as [hooks.state."KEY"] trusted_hash = HASH, which is what the dialog writes.
// NewCodex calls it when given hooks; call it again after changing hooks.json.
func (c *Codex) TrustHooks() {
	c.t.Helper()
	hooks, err := c.listHooks(time.Minute)
	if err != nil {
		c.t.Fatalf("agenttest: codex hooks/list: %v", err)
	}
	var b strings.Builder
	for _, h := range hooks {
		if h.TrustStatus == "trusted" || h.IsManaged {
			continue
		}
		key, _ := json.Marshal(h.Key)
		hash, _ := json.Marshal(h.CurrentHash)
		fmt.Fprintf(&b, "\n[hooks.state.%s]\ntrusted_hash = %s\n", key, hash)
	}
	f, err := os.OpenFile(filepath.Join(c.Home, "config.toml"), os.O_APPEND|os.O_WRONLY, 0)
	if err != nil {
		c.t.Fatal(err)
	}
	if _, err := f.WriteString(b.String()); err != nil {
		c.t.Fatal(err)
	}
	if err := f.Close(); err != nil {
		c.t.Fatal(err)
	}
}

// CodexHook is one entry of the app-server's hooks/list answer.
type CodexHook struct {
	Key         string `json:"key"`
	EventName   string `json:"eventName"`
	Command     string `json:"command"`
	CurrentHash string `json:"currentHash"`
	TrustStatus string `json:"trustStatus"`
	IsManaged   bool   `json:"isManaged"`
}

// listHooks runs `codex app-server`, initializes it and asks hooks/list for the project.
func (c *Codex) listHooks(timeout time.Duration) ([]CodexHook, error) {
	ctx, cancel := context.WithTimeout(context.Background(), timeout)
	defer cancel()
	argv := append(append([]string(nil), c.Argv...), "app-server")
	cmd := exec.CommandContext(ctx, argv[0], argv[1:]...)
	cmd.Dir, cmd.Env = c.Dir, c.Env
	cmd.WaitDelay = 5 * time.Second
	stdin, err := cmd.StdinPipe()
	if err != nil {
		return nil, err
	}
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		return nil, err
	}
	var stderr strings.Builder
	cmd.Stderr = &stderr
	if err := cmd.Start(); err != nil {
		return nil, err
	}
	// Closing stdin ends the server; the deferred kill covers a server that ignores it.
	defer func() {
		_ = stdin.Close()
		_ = cmd.Process.Kill()
		_ = cmd.Wait()
	}()
	for _, msg := range []string{
		`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"clientInfo":{"name":"agenttest","version":"0"}}}`,
		`{"jsonrpc":"2.0","method":"initialized"}`,
		fmt.Sprintf(`{"jsonrpc":"2.0","id":2,"method":"hooks/list","params":{"cwds":[%q]}}`, c.Dir),
	} {
		if _, err := fmt.Fprintln(stdin, msg); err != nil {
			return nil, fmt.Errorf("writing to app-server: %w; stderr: %s", err, stderr.String())
		}
	}
	sc := bufio.NewScanner(stdout)
	sc.Buffer(make([]byte, 0, 1<<20), 64<<20)
	for sc.Scan() {
		var resp struct {
			ID     *int            `json:"id"`
			Error  json.RawMessage `json:"error"`
			Result struct {
				Data []struct {
					Hooks []CodexHook `json:"hooks"`
				} `json:"data"`
			} `json:"result"`
		}
		if json.Unmarshal(sc.Bytes(), &resp) != nil || resp.ID == nil || *resp.ID != 2 {
			continue // notifications, the initialize answer
		}
		if len(resp.Error) > 0 && string(resp.Error) != "null" {
			return nil, fmt.Errorf("hooks/list: %s", resp.Error)
		}
		var out []CodexHook
		for _, d := range resp.Result.Data {
			out = append(out, d.Hooks...)
		}
		return out, nil
	}
	return nil, fmt.Errorf("app-server ended without answering hooks/list (%v); stderr: %s", sc.Err(), stderr.String())
}
