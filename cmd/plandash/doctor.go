package main

import (
	"bytes"
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"time"

	"github.com/plandash/plandash/internal/agents/agentkit"
	"github.com/plandash/plandash/internal/agents/registry"
	"github.com/plandash/plandash/internal/agents/settingsfile"
	"github.com/plandash/plandash/internal/client"
)

// doctorCmd is `plandash doctor`: everything a user can get wrong between an agent and the page,
// one line each with the fix. It exits 1 when something is wrong.
func doctorCmd(ctx context.Context, args []string, getenv func(string) string, stdout, stderr io.Writer) error {
	fs := flag.NewFlagSet("plandash doctor", flag.ContinueOnError)
	fs.SetOutput(stderr)
	var f client.Flags
	f.Register(fs)
	project := fs.String("project", ".", "also check the hooks installed in this project directory")
	testEvent := fs.Bool("test-event", false, "post a test session that shows on the dashboard's page")
	if err := fs.Parse(args); err != nil {
		return errUsage
	}
	t := client.Resolve(getenv, f)
	bad := false
	say := func(ok bool, line string) {
		bad = bad || !ok
		fmt.Fprintln(stdout, line)
	}
	r := checkReach(ctx, t, getenv)
	say(r.OK, "server:   "+r.Line)
	if r.OK && *testEvent {
		if err := postTestEvent(ctx, t); err != nil {
			say(false, "test:     ✗ the test event was refused: "+err.Error())
		} else {
			say(true, "test:     ✓ a session \"plandash doctor\" is on the page now: "+t.Server+"/")
		}
	}
	proj, _ := filepath.Abs(*project)
	// Hook contracts change between releases without notice, so doctor says when the installed
	// CLI is not the version the real-CLI tests run.
	for _, a := range registry.All() {
		for _, line := range checkHooks(a, proj, t, getenv) {
			say(line.ok, fmt.Sprintf("%-9s %s", a.Name+":", line.text))
		}
		if a.CLI == "" {
			continue
		}
		if v, err := cliVersion(ctx, a.CLI, getenv); err == nil {
			if strings.Contains(v, a.Tested) {
				say(true, fmt.Sprintf("%-9s ✓ %s %s, the version plandash is tested with", a.Name+":", a.CLI, a.Tested))
			} else {
				say(true, fmt.Sprintf("%-9s ! %s says %q; plandash is tested with %s: if its plans do not show, the agent's hooks may have changed", a.Name+":", a.CLI, v, a.Tested))
			}
		}
	}
	if bad {
		return exitCode(1)
	}
	return nil
}

type hookLine struct {
	ok   bool
	text string
}

// hookCommandRe matches the command an installed hook runs: the binary, then "hook AGENT" (an
// agent of the registry with command hooks), then its flags.
func hookCommandRe() *regexp.Regexp {
	names := registry.Names(true)
	for i, n := range names {
		names[i] = regexp.QuoteMeta(n)
	}
	return regexp.MustCompile(`^(\S+) hook (` + strings.Join(names, "|") + `)\b(.*)$`)
}

// checkHooks reads the agent's settings files, the user's and the project's, and checks each
// plandash hook found: its binary exists, and it reports where the server is. For an agent
// connected by a plugin, it says where the plugin is installed.
func checkHooks(a agentkit.Agent, project string, t client.Target, getenv func(string) string) []hookLine {
	if a.Plugins != nil {
		var out []hookLine
		for _, p := range dedupe(a.Plugins(project, getenv)) {
			if _, err := os.Stat(p); err == nil {
				out = append(out, hookLine{true, "✓ plugin installed in " + filepath.Dir(p) + " (restart " + a.Title + " after installing)"})
			}
		}
		if len(out) == 0 {
			out = append(out, hookLine{true, "· not connected: " + connectHint(a)})
		}
		return out
	}
	if a.Settings == nil {
		return nil
	}
	re := hookCommandRe()
	var out []hookLine
	for _, p := range dedupe(a.Settings(getenv("HOME"), project, getenv)) {
		cmds, err := hookCommands(p, re)
		if err != nil {
			out = append(out, hookLine{false, fmt.Sprintf("✗ %s: %v", p, err)})
			continue
		}
		seen := map[hookLine]bool{}
		for _, c := range cmds {
			if l := checkHook(re, c, p, t); !seen[l] {
				seen[l] = true
				out = append(out, l)
			}
		}
		if len(cmds) > 0 {
			if missing := missingEvents(a, p); len(missing) > 0 {
				out = append(out, hookLine{false, fmt.Sprintf("✗ the hooks in %s are from an older plandash: nothing runs on %s (questions and turn ends do not reach plandash): run `plandash install %s` again",
					p, strings.Join(missing, ", "), a.Name)})
			}
		}
	}
	if len(out) == 0 {
		out = append(out, hookLine{true, "· no hooks installed: " + connectHint(a)})
	}
	return out
}

// connectHint is doctor's suggestion for an agent with nothing installed.
func connectHint(a agentkit.Agent) string {
	if a.Sessions != nil {
		return "`" + a.Connect + "` for the gate (its sessions show without it)"
	}
	return "`" + a.Connect + "`"
}

// missingEvents are the events `plandash install agent` hooks that the settings file at path
// has no plandash hook on (an install by an older plandash), for the agents whose settings name
// hooks by event ({"hooks": {"Event": [{"hooks": [{"command": …}]}]}}).
func missingEvents(a agentkit.Agent, path string) []string {
	if a.HookEvents == nil {
		return nil
	}
	want := a.HookEvents()
	f, err := settingsfile.Read("", path)
	if err != nil || !f.Exists {
		return nil
	}
	var v struct {
		Hooks map[string]json.RawMessage `json:"hooks"`
	}
	if json.Unmarshal(f.Data, &v) != nil {
		return nil
	}
	var missing []string
	for _, ev := range want {
		if !strings.Contains(string(v.Hooks[ev]), " hook "+a.Name) {
			missing = append(missing, ev)
		}
	}
	return missing
}

// checkHook checks one installed hook command found in the settings file at path.
func checkHook(re *regexp.Regexp, command, path string, t client.Target) hookLine {
	m := re.FindStringSubmatch(command)
	bin, flags := m[1], m[3]
	if fi, err := os.Stat(bin); err != nil || fi.IsDir() || fi.Mode()&0o111 == 0 {
		return hookLine{false, fmt.Sprintf("✗ the hooks in %s run %s, which is not there: install plandash (`go install ./cmd/plandash`) and run `plandash install %s` again", path, bin, m[2])}
	}
	if i := strings.Index(flags, "--server "); i >= 0 {
		server := strings.Fields(flags[i+len("--server "):])[0]
		if strings.TrimRight(server, "/") != strings.TrimRight(t.Server, "/") {
			return hookLine{false, fmt.Sprintf("✗ the hooks in %s report to %s, not to %s: run `plandash install %s` again (with --server if that is the one you want)", path, server, t.Server, m[2])}
		}
	}
	return hookLine{true, fmt.Sprintf("✓ hooks in %s run %s", path, bin)}
}

// hookCommands are the plandash hook commands in a settings file (absent: none), read as
// install reads it: bounded, regular files only.
func hookCommands(path string, re *regexp.Regexp) ([]string, error) {
	f, err := settingsfile.Read("", path)
	if err != nil || !f.Exists {
		return nil, err
	}
	b := f.Data
	var v any
	if err := json.Unmarshal(b, &v); err != nil {
		return nil, fmt.Errorf("not valid JSON (%v): the agent cannot read it either", err)
	}
	var cmds []string
	var walk func(any)
	walk = func(v any) {
		switch v := v.(type) {
		case map[string]any:
			for _, x := range v {
				walk(x)
			}
		case []any:
			for _, x := range v {
				walk(x)
			}
		case string:
			if re.MatchString(v) {
				cmds = append(cmds, v)
			}
		}
	}
	walk(v)
	return cmds, nil
}

// cliVersion runs `CLI --version` found on getenv's PATH, bounded in time and output.
func cliVersion(ctx context.Context, cli string, getenv func(string) string) (string, error) {
	bin := onPath(getenv, cli, nil)
	if bin == "" {
		return "", os.ErrNotExist
	}
	ctx, cancel := context.WithTimeout(ctx, 10*time.Second)
	defer cancel()
	cmd := exec.CommandContext(ctx, bin, "--version")
	cmd.Env = append(os.Environ(), "PATH="+getenv("PATH"))
	var out bytes.Buffer
	cmd.Stdout = &limitedWriter{w: &out, n: 4096}
	if err := cmd.Run(); err != nil {
		return "", err
	}
	line, _, _ := strings.Cut(strings.TrimSpace(out.String()), "\n")
	return strings.TrimSpace(line), nil
}

// postTestEvent puts a small session on the page, through the same ingest API the agents use.
func postTestEvent(ctx context.Context, t client.Target) error {
	host, _ := os.Hostname()
	session := "plandash-doctor"
	update := map[string]any{"jsonrpc": "2.0", "method": "session/update", "params": map[string]any{
		"sessionId": session,
		"update": map[string]any{"sessionUpdate": "plan", "entries": []map[string]string{
			{"content": "plandash doctor reached this server from " + host + " at " + time.Now().Format("15:04:05"), "priority": "medium", "status": "completed"},
		}},
	}}
	b, err := json.Marshal(update)
	if err != nil {
		return err
	}
	_, err = t.Client(client.WithTimeout(5*time.Second)).Ingest(ctx, bytes.NewReader(b), client.IngestOptions{Agent: "plandash doctor"})
	return err
}

// dedupe drops repeated paths (the project may be the home directory).
func dedupe(paths []string) []string {
	seen := map[string]bool{}
	var out []string
	for _, p := range paths {
		if !seen[p] {
			seen[p] = true
			out = append(out, p)
		}
	}
	return out
}

// limitedWriter keeps the first n bytes written and drops the rest.
type limitedWriter struct {
	w io.Writer
	n int
}

func (l *limitedWriter) Write(p []byte) (int, error) {
	if l.n > 0 {
		k := min(len(p), l.n)
		l.n -= k
		_, _ = l.w.Write(p[:k])
	}
	return len(p), nil
}
