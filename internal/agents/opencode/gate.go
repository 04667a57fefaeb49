package opencode

import (
	"context"
	"errors"
	"path/filepath"
	"strings"
	"time"

	"github.com/plandash/plandash/internal/agents/hookkit"
	"github.com/plandash/plandash/internal/approval"
)

// MaxPlanFile bounds how much of a plan file is read.
const MaxPlanFile = 512 << 10

// errAnsweredElsewhere ends a gate wait when OpenCode reports the request answered by another
// client (its TUI, or the web UI).
var errAnsweredElsewhere = errors.New("answered in OpenCode")

// answeredElsewhere is errAnsweredElsewhere with what OpenCode's reply said (Replied.Outcome),
// so the record says what the person answered there, not a rejection they never gave.
type answeredElsewhere struct{ outcome string }

func (e answeredElsewhere) Error() string        { return errAnsweredElsewhere.Error() }
func (e answeredElsewhere) Is(target error) bool { return target == errAnsweredElsewhere }

// holdPlanExit puts plan_exit's plan at the gate and answers the question with the decision.
func (w *Watcher) holdPlanExit(ctx context.Context, q QuestionAsked, path string) {
	answer, done, ok := w.planExit(ctx, q, path, PlanText{})
	if !ok {
		return
	}
	w.unregister(q.ID)
	ctx, cancel := replyContext(ctx)
	defer cancel()
	if err := w.post(ctx, "/question/"+q.ID+"/reply", map[string]any{"answers": [][]string{{answer}}}); err != nil {
		w.log.Warn("opencode: answer question", "question", q.ID, "err", err)
		return
	}
	done(ctx)
}

// holdPermission puts a permission request at the gate and replies once with the decision.
func (w *Watcher) holdPermission(ctx context.Context, p PermissionAsked) {
	body, ok := w.permission(ctx, p)
	if !ok {
		return
	}
	w.unregister(p.ID)
	ctx, cancel := replyContext(ctx)
	defer cancel()
	if err := w.post(ctx, "/permission/"+p.ID+"/reply", body); err != nil {
		w.log.Warn("opencode: answer permission", "permission", p.ID, "err", err)
	}
}

// replyContext gives a reply a context of its own: the wait that decided it may be ending.
func replyContext(ctx context.Context) (context.Context, context.CancelFunc) {
	return context.WithTimeout(context.WithoutCancel(ctx), 30*time.Second)
}

// readPlan reads the plan file plan_exit names. OpenCode names it relative to the project's
// worktree ("/" for a directory outside git) or absolutely; it is read only under the
// configured plan roots (the session's directory, which the event reports, never widens
// them), through files.PlanDirs. A refusal is logged and shown in place of the plan.
func (c *core) readPlan(sessionID, path string) (md, file, why string) {
	if path == "" {
		return "", "", "the question names no plan file"
	}
	c.mu.Lock()
	var dir string
	if s := c.sessions[sessionID]; s != nil {
		dir = s.Directory
	}
	c.mu.Unlock()
	var cands []string
	if filepath.IsAbs(path) {
		cands = append(cands, path)
	} else {
		if filepath.IsAbs(dir) {
			cands = append(cands, filepath.Join(dir, path))
		}
		cands = append(cands, filepath.Join("/", path))
	}
	for _, p := range cands {
		b, err := c.planRoots.Read(p, MaxPlanFile)
		if err == nil {
			return string(b), p, ""
		}
		why = err.Error()
	}
	c.log.Warn("opencode: plan file refused", "session", sessionID, "path", hookkit.Truncate(path, 1024), "err", why)
	return "", cands[len(cands)-1], why
}

// planTitle is the plan's first heading, or a generic title.
func planTitle(md string) string {
	for _, line := range strings.Split(md, "\n") {
		if t := strings.TrimSpace(strings.TrimLeft(line, "#")); strings.HasPrefix(line, "#") && t != "" {
			return hookkit.Truncate("Plan: "+t, approval.MaxTitle-10)
		}
	}
	return "OpenCode plan"
}
