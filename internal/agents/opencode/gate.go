package opencode

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/plandash/plandash/internal/approval"
)

// MaxPlanFile bounds how much of a plan file is read.
const MaxPlanFile = 512 << 10

// errAnsweredElsewhere ends a gate wait when OpenCode reports the request answered by another
// client (its TUI, or the web UI).
var errAnsweredElsewhere = errors.New("answered in OpenCode")

// holdPlanExit puts plan_exit's plan at the gate and answers the question with the decision:
// "Yes" switches OpenCode to the build agent, "No" keeps it planning.
func (w *Watcher) holdPlanExit(ctx context.Context, q QuestionAsked, path string) {
	md, file, why := w.readPlan(q.SessionID, path)
	shown := md
	if strings.TrimSpace(shown) == "" {
		shown = q.Questions[0].Question
		if why != "" {
			shown += "\n\n_The plan file could not be read: " + why + "._"
		}
	}
	b := w.batch(q.SessionID)
	b.planMode(shown, file, "proposed")
	w.applyBatch(ctx, b)
	var c strings.Builder
	fmt.Fprintf(&c, "OpenCode finished a plan in session `%s` and asks whether to switch to the build agent.\n\n", q.SessionID)
	if file != "" {
		fmt.Fprintf(&c, "Plan file: `%s`\n\n", file)
	}
	c.WriteString("- **Approve** answers Yes: OpenCode switches to the build agent and implements the plan.\n")
	c.WriteString("- **Reject** answers No: OpenCode stays with the plan agent.\n\n")
	c.WriteString("OpenCode's own prompt stays open meanwhile: the first answer wins.")
	r, ok := w.decide(ctx, approval.Submission{SessionID: SessionKey(q.SessionID), Agent: AgentTitle, Title: planTitle(md),
		Context: c.String(), Plan: approval.PlanBody{Type: approval.TypeMarkdown, Markdown: shown},
		Options: []approval.Action{approval.Approve, approval.Reject}, Timeout: approval.Duration(w.opts.Deadline), Default: approval.Reject})
	if !ok {
		return
	}
	ctx, cancel := w.answering(ctx, q.ID)
	defer cancel()
	answer, state := "No", "rejected"
	if r.Status == approval.Approved {
		answer, state = "Yes", "approved"
	}
	if err := w.post(ctx, "/question/"+q.ID+"/reply", map[string]any{"answers": [][]string{{answer}}}); err != nil {
		w.opts.Log.Warn("opencode: answer question", "question", q.ID, "err", err)
		return
	}
	b = w.batch(q.SessionID)
	b.planMode(shown, file, state)
	w.applyBatch(ctx, b)
}

// holdPermission puts a permission request at the gate and replies once, always (an approval
// whose comment says "always") or reject (with the comment as the message).
func (w *Watcher) holdPermission(ctx context.Context, p PermissionAsked) {
	var md strings.Builder
	fmt.Fprintf(&md, "OpenCode asks permission for **%s**", truncate(p.Permission, 256))
	if len(p.Patterns) > 0 {
		md.WriteString(":\n\n")
		for i, pat := range p.Patterns {
			if i == 32 {
				md.WriteString("- …\n")
				break
			}
			fmt.Fprintf(&md, "- `%s`\n", strings.ReplaceAll(truncate(pat, 2048), "`", "'"))
		}
	} else {
		md.WriteString(".\n")
	}
	ctxText := fmt.Sprintf("OpenCode session `%s` waits for this permission (it has no timeout).\n\n"+
		"- **Approve** allows it once; write `always` in your comment to allow %s from now on.\n"+
		"- **Reject** refuses it; your comment is sent to the agent.\n\nOpenCode's own prompt stays open meanwhile: the first answer wins.",
		p.SessionID, strings.Join(p.Always, ", "))
	r, ok := w.decide(ctx, approval.Submission{SessionID: SessionKey(p.SessionID), Agent: AgentTitle,
		Title: truncate("Permission: "+p.Permission, approval.MaxTitle-10), Context: ctxText,
		Plan:    approval.PlanBody{Type: approval.TypeMarkdown, Markdown: md.String()},
		Options: []approval.Action{approval.Approve, approval.Reject}, Timeout: approval.Duration(w.opts.Deadline), Default: approval.Reject})
	if !ok {
		return
	}
	ctx, cancel := w.answering(ctx, p.ID)
	defer cancel()
	body := map[string]any{"reply": "reject"}
	if r.Status == approval.Approved {
		body["reply"] = "once"
		if strings.EqualFold(strings.TrimSpace(r.Decision.Comment), "always") {
			body["reply"] = "always"
		}
	} else if c := strings.TrimSpace(r.Decision.Comment); c != "" {
		body["message"] = c
	}
	if err := w.post(ctx, "/permission/"+p.ID+"/reply", body); err != nil {
		w.opts.Log.Warn("opencode: answer permission", "permission", p.ID, "err", err)
	}
}

// answering stops treating OpenCode's news of request id as an answer from elsewhere (the
// reply plandash is about to send causes it) and gives the reply a context of its own.
func (w *Watcher) answering(ctx context.Context, id string) (context.Context, context.CancelFunc) {
	w.mu.Lock()
	delete(w.waiting, id)
	w.mu.Unlock()
	return context.WithTimeout(context.WithoutCancel(ctx), 30*time.Second)
}

// decide submits sub and waits for a person's decision. ok is false when there is nothing to
// send OpenCode: the request expired (OpenCode's prompt stays the way to answer), OpenCode was
// answered elsewhere (the request is closed as such), or the watcher stops.
func (w *Watcher) decide(ctx context.Context, sub approval.Submission) (approval.Request, bool) {
	r, _, err := w.gate.Submit(ctx, sub)
	if err != nil {
		w.opts.Log.Warn("opencode: submit to the gate", "err", err)
		return r, false
	}
	id := r.ID
	for !r.Decided() {
		r, err = w.gate.Wait(ctx, id, time.Minute)
		if ctx.Err() != nil {
			why := "the watcher stopped; answer in OpenCode"
			if errors.Is(context.Cause(ctx), errAnsweredElsewhere) {
				why = "answered in OpenCode"
			}
			_, err := w.gate.Decide(context.WithoutCancel(ctx), id, approval.DecisionInput{Action: approval.Reject, By: TerminalDecider, Comment: why})
			var de *approval.DecidedError
			if err != nil && !errors.As(err, &de) {
				w.opts.Log.Warn("opencode: close request", "request", id, "err", err)
			}
			return r, false
		}
		if err != nil {
			w.opts.Log.Warn("opencode: wait for a decision", "request", id, "err", err)
			return r, false
		}
	}
	if r.Decision == nil || r.Decision.Expired || r.Decision.By == TerminalDecider {
		return r, false
	}
	return r, true
}

// readPlan reads the plan file plan_exit names. OpenCode names it relative to the project's
// worktree ("/" for a directory outside git) or absolutely; it is read only under the session's
// directory or Options.PlanRoots, through os.Root.
func (w *Watcher) readPlan(sessionID, path string) (md, file, why string) {
	if path == "" {
		return "", "", "the question names no plan file"
	}
	w.mu.Lock()
	var dir string
	if s := w.sessions[sessionID]; s != nil {
		dir = s.Directory
	}
	w.mu.Unlock()
	var cands []string
	if filepath.IsAbs(path) {
		cands = append(cands, path)
	} else {
		if dir != "" {
			cands = append(cands, filepath.Join(dir, path))
		}
		cands = append(cands, filepath.Join("/", path))
	}
	roots := append([]string{dir}, w.opts.PlanRoots...)
	why = "it is outside the session's directory and the plan roots"
	for _, c := range cands {
		md, err := ReadPlanFile(c, roots, MaxPlanFile)
		if err == nil {
			return md, c, ""
		}
		why = err.Error()
	}
	return "", cands[len(cands)-1], why
}

// ReadPlanFile reads at most max bytes of path, which must be absolute and lie under one of
// roots, through os.Root, so neither ".." nor a symlink leads outside the root.
func ReadPlanFile(path string, roots []string, max int64) (string, error) {
	if !filepath.IsAbs(path) {
		return "", fmt.Errorf("%q is not an absolute path", path)
	}
	path = filepath.Clean(path)
	for _, root := range roots {
		if root == "" || !filepath.IsAbs(root) {
			continue
		}
		rel, err := filepath.Rel(filepath.Clean(root), path)
		if err != nil || rel == ".." || strings.HasPrefix(rel, ".."+string(filepath.Separator)) {
			continue
		}
		r, err := os.OpenRoot(root)
		if err != nil {
			return "", err
		}
		defer r.Close()
		f, err := r.Open(rel)
		if err != nil {
			return "", err
		}
		defer f.Close()
		b, err := io.ReadAll(io.LimitReader(f, max+1))
		if err != nil {
			return "", err
		}
		if int64(len(b)) > max {
			return "", fmt.Errorf("%s is over the %d KiB limit", path, max>>10)
		}
		return string(b), nil
	}
	return "", fmt.Errorf("%s is outside the directories plandash may read", path)
}

// planTitle is the plan's first heading, or a generic title.
func planTitle(md string) string {
	for _, line := range strings.Split(md, "\n") {
		if t := strings.TrimSpace(strings.TrimLeft(line, "#")); strings.HasPrefix(line, "#") && t != "" {
			return truncate("Plan: "+t, approval.MaxTitle-10)
		}
	}
	return "OpenCode plan"
}

// truncate cuts s to at most max bytes on a rune boundary, marking the cut.
func truncate(s string, max int) string {
	if len(s) <= max {
		return s
	}
	cut := max
	for cut > 0 && s[cut]&0xC0 == 0x80 {
		cut--
	}
	return s[:cut] + "…"
}
