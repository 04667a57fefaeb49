package cline

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"log/slog"
	"path/filepath"
	"strings"
	"time"

	"github.com/plandash/plandash/internal/agents/hookkit"
	"github.com/plandash/plandash/internal/files"
)

// Poster sends one hook payload to plandash (POST /api/v1/hooks/cline) and returns the answer
// body; wait is true for switch_to_act_mode, whose answer comes only once a person decided.
type Poster = hookkit.Poster

// HookOptions tunes RunHook.
type HookOptions struct {
	// Host is added to the payload as plandash_host, so a dashboard on another machine knows
	// where the agent runs. Nothing is added when empty.
	Host string
	// DataDir is Cline's data directory, where it keeps its sessions: $CLINE_DATA_DIR, else
	// $CLINE_DIR/data, else ~/.cline/data (see DataDir). The mode of a turn that ended is read
	// from the session's messages file there; when empty, no mode is added.
	DataDir string
	// CaptureTimeout bounds reading stdin and posting an event nobody waits on; 5s when zero.
	CaptureTimeout time.Duration
	// GateTimeout bounds the wait for a decision; a little under HookLimit when zero, so the
	// hook answers before Cline kills it.
	GateTimeout time.Duration
	// Log notes why nothing was printed; discarded when nil.
	Log *slog.Logger
	// Stderr is told why, when the gate reached no decision; discarded when nil.
	Stderr io.Writer
}

// DataDir is where Cline keeps its data, as @cline/shared resolveClineDataDir finds it.
func DataDir(getenv func(string) string) string {
	if d := getenv("CLINE_DATA_DIR"); d != "" {
		return d
	}
	if d := getenv("CLINE_DIR"); d != "" {
		return filepath.Join(d, "data")
	}
	if h := getenv("HOME"); h != "" {
		return filepath.Join(h, ".cline", "data")
	}
	return ""
}

// RunHook is the core of `plandash hook cline`: it reads one event from stdin, posts it, and for
// switch_to_act_mode prints the decision (nothing to go on, a cancel to stay in plan mode).
// It never fails the agent. A capture that goes wrong prints nothing and returns nil. A gate
// event that gets no decision (server down, an answer of the wrong shape) is never let through:
// the hook prints a cancel, so Cline stays in plan mode and the person at the terminal decides,
// and says why on Stderr.
func RunHook(ctx context.Context, stdin io.Reader, stdout io.Writer, post Poster, opts HookOptions) error {
	if opts.CaptureTimeout <= 0 {
		opts.CaptureTimeout = 5 * time.Second
	}
	if opts.GateTimeout <= 0 || opts.GateTimeout >= HookLimit {
		opts.GateTimeout = HookLimit - 10*time.Second
	}
	log := opts.Log
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	body, err := hookkit.ReadEvent(ctx, stdin, MaxEventBytes, opts.CaptureTimeout)
	if err != nil {
		log.Warn("plandash hook cline: no event read", "err", err)
		return nil
	}
	ev, err := Decode(body)
	if err != nil {
		log.Warn("plandash hook cline: not a hook event", "err", err)
		return nil
	}
	body = enrich(ev, opts)
	gate := IsGateEvent(ev)
	limit := opts.CaptureTimeout
	if gate {
		limit = opts.GateTimeout
	}
	pctx, cancel := context.WithTimeout(ctx, limit)
	defer cancel()
	answer, err := post.Post(pctx, body, gate)
	switch {
	case err != nil && !gate:
		log.Warn("plandash hook cline: post failed; Cline goes on", "event", ev.HookName, "err", err)
		return nil
	case !gate:
		return nil
	case err != nil:
		answer = stayInPlan(opts.Stderr, "plandash could not get a decision on this plan: "+err.Error())
	default:
		if err := CheckAnswer(answer); err != nil {
			answer = stayInPlan(opts.Stderr, "plandash's answer on this plan was unusable: "+err.Error())
		}
	}
	if _, err := stdout.Write(bytes.TrimSpace(answer)); err != nil {
		log.Warn("plandash hook cline: write answer", "err", err)
	}
	return nil
}

// stayInPlan says why on stderr and returns the answer that keeps Cline in plan mode.
func stayInPlan(stderr io.Writer, why string) []byte {
	if stderr != nil {
		fmt.Fprintf(stderr, "plandash hook cline: %s; Cline stays in plan mode\n", why)
	}
	return Answer(Decision{Cancel: true, Reason: why + ". Nobody approved this plan in plandash: Cline stays in plan mode."})
}

// enrich adds what only the agent's machine knows: its name, and for a turn's end the mode of
// the session's last prompt and whether the session is interactive (read from Cline's files).
func enrich(ev Event, opts HookOptions) []byte {
	add := map[string]any{}
	if opts.Host != "" && ev.Host == "" {
		add["plandash_host"] = opts.Host
	}
	if IsGateEvent(ev) && opts.DataDir != "" && ev.Plan == "" {
		if plan := LastPlan(opts.DataDir, ev.SessionID()); plan != "" {
			add["plandash_plan"] = plan
		}
	}
	if ev.HookName == HookTaskComplete && opts.DataDir != "" {
		text := ""
		if ev.Turn != nil {
			text = ev.Turn.OutputText
		}
		if m := SessionMode(opts.DataDir, ev.SessionID(), text, modeWait); m != "" && ev.Mode == "" {
			add["plandash_mode"] = m
		}
		if i, ok := Interactive(opts.DataDir, ev.SessionID()); ok && ev.Interactive == nil {
			add["plandash_interactive"] = i
		}
	}
	if len(add) == 0 {
		return ev.Raw
	}
	var m map[string]json.RawMessage
	if json.Unmarshal(ev.Raw, &m) != nil {
		return ev.Raw // Decode accepted it as an object: cannot happen
	}
	for k, v := range add {
		m[k], _ = json.Marshal(v)
	}
	out, err := json.Marshal(m)
	if err != nil {
		return ev.Raw
	}
	return out
}

// maxSessionFile bounds the read of a session's metadata file (a few hundred bytes).
const maxSessionFile = 64 << 10

// Interactive reads whether a session runs in Cline's terminal UI (which then waits for the
// next prompt) or headless (which exits after the task), from <DataDir>/sessions/<id>/<id>.json;
// ok is false when it cannot be told.
func Interactive(dataDir, sessionID string) (interactive, ok bool) {
	if sessionID == "" || !filepath.IsLocal(sessionID) || filepath.Base(sessionID) != sessionID {
		return false, false
	}
	f, err := files.OpenNoHang(files.OSOps{}, filepath.Join(dataDir, "sessions", sessionID, sessionID+".json"))
	if err != nil {
		return false, false
	}
	defer f.Close()
	st, err := f.Stat()
	if err != nil || !st.Mode().IsRegular() {
		return false, false
	}
	b, err := files.ReadBounded(f, st.Size(), maxSessionFile)
	if err != nil {
		return false, false
	}
	var v struct {
		Interactive *bool `json:"interactive"`
	}
	if json.Unmarshal(b, &v) != nil || v.Interactive == nil {
		return false, false
	}
	return *v.Interactive, true
}

// modeTail is how much of a messages file's end is searched for the last prompt's mode.
const modeTail = 256 << 10

// modeWait is how long the hook waits for Cline to write the turn into its messages file:
// TaskComplete hooks run detached, beside the write. Cline does not wait for them.
const modeWait = 3 * time.Second

// SessionMode is the mode ("plan" or "act") of the session's last prompt, as Cline wrote it
// into the session's messages file (<DataDir>/sessions/<id>/<id>.messages.json, each prompt
// wrapped in <user_input mode="…">); "" when it cannot be told. Only the file's last 256 KiB
// are read, a FIFO or other non-regular file is never opened for reading, and an id that would
// leave the sessions directory is refused. Cline may not have written the turn yet: until the
// tail holds the turn's answer (answer, as JSON), it is read again every 100ms, for up to wait.
func SessionMode(dataDir, sessionID, answer string, wait time.Duration) string {
	path, ok := messagesPath(dataDir, sessionID)
	if !ok {
		return ""
	}
	var want []byte
	if answer != "" {
		var b bytes.Buffer
		enc := json.NewEncoder(&b)
		enc.SetEscapeHTML(false) // Cline writes with JSON.stringify, which leaves <, > and & alone
		_ = enc.Encode(answer)
		want = bytes.TrimSpace(b.Bytes())
	}
	for end := time.Now().Add(wait); ; time.Sleep(100 * time.Millisecond) {
		tail := readTail(path, modeTail)
		if len(want) == 0 || bytes.Contains(tail, want) || time.Now().After(end) {
			return LastMode(tail)
		}
	}
}

// messagesPath is the session's messages file; ok is false for an id that would leave the
// sessions directory.
func messagesPath(dataDir, sessionID string) (string, bool) {
	if sessionID == "" || !filepath.IsLocal(sessionID) || filepath.Base(sessionID) != sessionID {
		return "", false
	}
	return filepath.Join(dataDir, "sessions", sessionID, sessionID+".messages.json"), true
}

// readTail reads at most n bytes from the end of the regular file at path; nil when it cannot.
func readTail(path string, n int64) []byte {
	f, err := files.OpenNoHang(files.OSOps{}, path)
	if err != nil {
		return nil
	}
	defer f.Close()
	st, err := f.Stat()
	if err != nil || !st.Mode().IsRegular() {
		return nil
	}
	buf := make([]byte, min(st.Size(), n))
	k, _ := f.ReadAt(buf, max(st.Size()-n, 0))
	return buf[:k]
}

// maxMessagesFile bounds the messages file LastPlan parses whole.
const maxMessagesFile = 8 << 20

// LastPlan is the text of the last assistant message before the session's last prompt, from
// Cline's messages file: the plan a plan-mode turn presented, which the person's "go ahead"
// then approves and switch_to_act_mode would implement. "" when it cannot be told (no file, a
// file over 8 MiB, no such message).
func LastPlan(dataDir, sessionID string) string {
	path, ok := messagesPath(dataDir, sessionID)
	if !ok {
		return ""
	}
	f, err := files.OpenNoHang(files.OSOps{}, path)
	if err != nil {
		return ""
	}
	defer f.Close()
	st, err := f.Stat()
	if err != nil || !st.Mode().IsRegular() || st.Size() > maxMessagesFile {
		return ""
	}
	b, err := files.ReadBounded(f, st.Size(), maxMessagesFile)
	if err != nil {
		return ""
	}
	return PlanFromMessages(b)
}

// PlanFromMessages finds, in a messages file's JSON, the text of the last assistant message
// before the last user message; "" when there is none.
func PlanFromMessages(b []byte) string {
	var file struct {
		Messages []struct {
			Role    string `json:"role"`
			Content []struct {
				Type string `json:"type"`
				Text string `json:"text"`
			} `json:"content"`
		} `json:"messages"`
	}
	if json.Unmarshal(b, &file) != nil {
		return ""
	}
	ms := file.Messages
	last := -1
	for i := len(ms) - 1; i >= 0; i-- {
		if ms[i].Role == "user" && !toolResultsOnly(ms[i].Content) {
			last = i
			break
		}
	}
	for i := last - 1; i >= 0; i-- {
		if ms[i].Role != "assistant" {
			continue
		}
		var parts []string
		for _, c := range ms[i].Content {
			if c.Type == "text" && strings.TrimSpace(c.Text) != "" {
				parts = append(parts, c.Text)
			}
		}
		if len(parts) > 0 {
			return hookkit.Truncate(strings.Join(parts, "\n"), maxPlan)
		}
	}
	return ""
}

// toolResultsOnly reports whether a user message only carries tool results (no prompt).
func toolResultsOnly(content []struct {
	Type string `json:"type"`
	Text string `json:"text"`
}) bool {
	for _, c := range content {
		if c.Type == "text" {
			return false
		}
	}
	return len(content) > 0
}

// LastMode finds the mode of the session's last turn in b, a piece of a messages file (JSON, so
// the quotes are escaped there): the mode of the last <user_input mode="…"> that says plan or
// act (the file also keeps the system prompt, which explains the tag with mode="..."), except
// that a plan-mode turn that called switch_to_act_mode after it ended in act mode.
func LastMode(b []byte) string {
	const tag = `<user_input mode=\"`
	for rest := b; ; {
		i := bytes.LastIndex(rest, []byte(tag))
		if i < 0 {
			return ""
		}
		after := rest[i+len(tag):]
		if end := bytes.Index(after, []byte(`\"`)); end > 0 && end <= 16 {
			switch m := string(after[:end]); m {
			case "act":
				return m
			case "plan":
				if bytes.Contains(after, []byte(`"name": "`+ToolSwitchToAct+`"`)) || bytes.Contains(after, []byte(`"name":"`+ToolSwitchToAct+`"`)) {
					return "act"
				}
				return m
			}
		}
		rest = rest[:i]
	}
}
