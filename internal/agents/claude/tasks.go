package claude

import (
	"cmp"
	"encoding/json"
	"slices"
	"strconv"
	"strings"

	"github.com/plandash/plandash/internal/plans"
)

// Plan ids of the plans a Claude Code session shows.
const (
	PlanTodos = "todos" // TodoWrite's checklist, replaced whole by each call
	PlanTasks = "tasks" // the Task tools' list, changed one task at a time
	PlanMode  = "plan"  // the plan-mode plan ExitPlanMode proposes
)

// Task is one entry of the tasks plan, as plandash keeps it between events.
type Task struct {
	ID          string   `json:"taskId"`
	Subject     string   `json:"subject,omitempty"`
	Description string   `json:"description,omitempty"`
	ActiveForm  string   `json:"activeForm,omitempty"`
	Status      string   `json:"status,omitempty"`
	BlockedBy   []string `json:"blockedBy,omitempty"`
	Owner       string   `json:"owner,omitempty"`
}

// TasksFromEntries reads the tasks back from the stored plan's entries (each entry's
// _meta.plandash carries the task). Entries without a task id are dropped: they cannot be
// matched with later updates.
func TasksFromEntries(entries []plans.Entry) []Task {
	out := make([]Task, 0, len(entries))
	for _, e := range entries {
		var m struct {
			Plandash *Task `json:"plandash"`
		}
		if json.Unmarshal(e.Meta, &m) != nil || m.Plandash == nil || m.Plandash.ID == "" {
			continue
		}
		t := *m.Plandash
		if t.Subject == "" {
			t.Subject = e.Content
		}
		if t.Status == "" {
			t.Status = e.Status
		}
		out = append(out, t)
	}
	return out
}

// applyTaskChange merges one change into tasks. Hooks run asynchronously and may arrive out of
// order, so an update for an unknown id creates the task and a late create only fills in what
// is missing. deleted removes the task. The caller's slice is left as it was.
func applyTaskChange(tasks []Task, c TaskChange) []Task {
	tasks = slices.Clone(tasks)
	if c.ID == "" {
		return tasks
	}
	i := slices.IndexFunc(tasks, func(t Task) bool { return t.ID == c.ID })
	if c.Status != nil && *c.Status == "deleted" {
		if i >= 0 {
			tasks = slices.Delete(tasks, i, i+1)
		}
		return tasks
	}
	if i < 0 {
		tasks = append(tasks, Task{ID: c.ID, Status: plans.StatusPending})
		i = len(tasks) - 1
	}
	t := &tasks[i]
	set := func(dst *string, v *string) {
		if v != nil {
			*dst = *v
		}
	}
	set(&t.Subject, c.Subject)
	set(&t.Description, c.Description)
	set(&t.ActiveForm, c.ActiveForm)
	set(&t.Status, c.Status)
	set(&t.Owner, c.Owner)
	t.BlockedBy = slices.Clone(t.BlockedBy)
	for _, b := range c.BlockedBy {
		if !slices.Contains(t.BlockedBy, b) {
			t.BlockedBy = append(t.BlockedBy, b)
		}
	}
	return tasks
}

// sortTasks orders tasks by id, numerically when ids are numbers (Claude numbers them 1, 2, …,
// and "10" must follow "9").
func sortTasks(tasks []Task) {
	slices.SortStableFunc(tasks, func(a, b Task) int {
		na, ea := strconv.ParseUint(a.ID, 10, 64)
		nb, eb := strconv.ParseUint(b.ID, 10, 64)
		switch {
		case ea == nil && eb == nil:
			return cmp.Compare(na, nb)
		case ea == nil:
			return -1
		case eb == nil:
			return 1
		}
		return strings.Compare(a.ID, b.ID)
	})
}

// taskEntries renders tasks as plan entries: the subject (or, while in progress, the
// activeForm), with the whole task in _meta.plandash.
func taskEntries(tasks []Task) []plans.Entry {
	out := make([]plans.Entry, 0, len(tasks))
	for _, t := range tasks {
		content := t.Subject
		if t.Status == plans.StatusInProgress && t.ActiveForm != "" {
			content = t.ActiveForm
		}
		if content == "" {
			content = "Task " + t.ID
		}
		meta, _ := json.Marshal(map[string]Task{"plandash": t})
		out = append(out, plans.Entry{Content: content, Priority: "medium", Status: wireStatus(t.Status), Meta: meta})
	}
	return out
}

// todoEntries renders TodoWrite's list: an in-progress todo shows its activeForm, the way the
// terminal does; content and activeForm stay in _meta.plandash.
func todoEntries(todos []Todo) []plans.Entry {
	out := make([]plans.Entry, 0, len(todos))
	for _, t := range todos {
		content := t.Content
		if t.Status == plans.StatusInProgress && t.ActiveForm != "" {
			content = t.ActiveForm
		}
		meta, _ := json.Marshal(map[string]Todo{"plandash": t})
		out = append(out, plans.Entry{Content: content, Priority: "medium", Status: wireStatus(t.Status), Meta: meta})
	}
	return out
}

// wireStatus maps Claude's statuses onto ACP's. Unknown ones become "_"-prefixed custom values,
// which ACP allows and plandash counts as "other", rather than entries the decoder would skip.
func wireStatus(s string) string {
	switch s {
	case "", plans.StatusPending:
		return plans.StatusPending
	case plans.StatusInProgress, plans.StatusCompleted, plans.StatusCancelled:
		return s
	case "in-progress", "inProgress":
		return plans.StatusInProgress
	}
	if strings.HasPrefix(s, "_") && len(s) > 1 {
		return s
	}
	return "_" + s
}
