package sharedplans

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"path/filepath"

	"github.com/plandash/plandash/internal/files"
)

// Toolset is docker-agent's eight plan tools over a Store. Each method returns docker-agent's
// result value or an error whose text is docker-agent's tool error text; Tools wraps the same
// methods for MCP-style callers. One Store may back several Toolsets with different PathPolicies
// (stdio MCP versus remote surfaces).
type Toolset struct {
	store  *Store
	files  files.Policy // where update_plan_from_file may read
	writes files.Policy // where export_plan_to_file may write
	// noWrite says why writing is off when writes is nil; "" means no policy at all.
	noWrite string
}

// NewToolset returns the tools over store. files resolves the paths of the two file tools, for
// reading and for writing; nil disables them (every call fails with ErrPathDenied), the safe
// default for a surface that has not decided which files a caller may touch. WithWrites gives
// writing a policy of its own.
func NewToolset(store *Store, files files.Policy) *Toolset {
	return &Toolset{store: store, files: files, writes: files}
}

// WithWrites returns a copy of t whose export_plan_to_file writes where writes allows; reads
// keep t's policy. A nil writes refuses every write with the message why, so a surface can
// show what is shown to people (reading roots) without letting agents overwrite it.
func (t *Toolset) WithWrites(writes files.Policy, why string) *Toolset {
	c := *t
	c.writes, c.noWrite = writes, why
	return &c
}

// WritePlanArgs are write_plan's parameters. Empty Title, Author and Status mean "keep".
type WritePlanArgs struct {
	Name              string `json:"name"`
	Content           string `json:"content"`
	Title             string `json:"title,omitempty"`
	Author            string `json:"author,omitempty"`
	Status            string `json:"status,omitempty"`
	LastKnownRevision *int   `json:"last_known_revision,omitempty"`
}

// ReadPlanArgs are read_plan's parameters.
type ReadPlanArgs struct {
	Name string `json:"name"`
}

// UpdatePlanFromFileArgs are update_plan_from_file's parameters.
type UpdatePlanFromFileArgs struct {
	Name              string `json:"name"`
	Path              string `json:"path"`
	Title             string `json:"title,omitempty"`
	Author            string `json:"author,omitempty"`
	Status            string `json:"status,omitempty"`
	LastKnownRevision *int   `json:"last_known_revision,omitempty"`
}

// ExportPlanToFileArgs are export_plan_to_file's parameters.
type ExportPlanToFileArgs struct {
	Name string `json:"name"`
	Path string `json:"path"`
}

// SetPlanStatusArgs are set_plan_status's parameters.
type SetPlanStatusArgs struct {
	Name              string `json:"name"`
	Status            string `json:"status"`
	LastKnownRevision *int   `json:"last_known_revision,omitempty"`
}

// GetPlanStatusArgs are get_plan_status's parameters.
type GetPlanStatusArgs struct {
	Name string `json:"name"`
}

// DeletePlanArgs are delete_plan's parameters.
type DeletePlanArgs struct {
	Name              string `json:"name"`
	LastKnownRevision *int   `json:"last_known_revision,omitempty"`
}

// keep maps the tools' "empty means not provided" onto UpsertRequest's nil-means-keep, which is
// why an agent can never clear title, author or status through the tools.
func keep(s string) *string {
	if s == "" {
		return nil
	}
	return &s
}

// WritePlan is write_plan: create or replace a plan's content.
func (t *Toolset) WritePlan(ctx context.Context, a WritePlanArgs) (Plan, error) {
	if a.Content == "" {
		return Plan{}, invalidf("content must not be empty")
	}
	return t.store.Upsert(ctx, UpsertRequest{Name: a.Name, Content: &a.Content, Title: keep(a.Title),
		Author: keep(a.Author), Status: keep(a.Status), ExpectedRevision: a.LastKnownRevision})
}

// ReadPlan is read_plan.
func (t *Toolset) ReadPlan(ctx context.Context, a ReadPlanArgs) (Plan, error) {
	p, ok, err := t.store.Get(ctx, a.Name)
	if err != nil {
		return Plan{}, err
	}
	if !ok {
		return Plan{}, notFound(a.Name)
	}
	return p, nil
}

// UpdatePlanFromFile is update_plan_from_file: the new content comes from a file. The source is
// read (and checked) before the name is validated, as in docker-agent.
func (t *Toolset) UpdatePlanFromFile(ctx context.Context, a UpdatePlanFromFileArgs) (Plan, error) {
	if a.Path == "" {
		return Plan{}, invalidf("path must not be empty")
	}
	content, err := t.readSource(a.Path)
	if err != nil {
		return Plan{}, err
	}
	if content == "" {
		return Plan{}, invalidf("file is empty; plan content must not be empty")
	}
	return t.store.Upsert(ctx, UpsertRequest{Name: a.Name, Content: &content, Title: keep(a.Title),
		Author: keep(a.Author), Status: keep(a.Status), ExpectedRevision: a.LastKnownRevision})
}

// ExportPlanToFile is export_plan_to_file: the content goes to a file (replaced atomically,
// parents created 0700, result 0600) and is not returned.
func (t *Toolset) ExportPlanToFile(ctx context.Context, a ExportPlanToFileArgs) (ExportResult, error) {
	if a.Path == "" {
		return ExportResult{}, invalidf("path must not be empty")
	}
	p, err := t.ReadPlan(ctx, ReadPlanArgs{Name: a.Name})
	if err != nil {
		return ExportResult{}, err
	}
	if err := t.writeDest(a.Path, p.Content); err != nil {
		return ExportResult{}, err
	}
	return ExportResult{Name: a.Name, Path: a.Path, Title: p.Title, Status: p.Status,
		Revision: p.Revision, BytesWritten: len(p.Content)}, nil
}

// SetPlanStatus is set_plan_status. It never creates a plan, and a missing plan is reported as
// not found even when a revision guard was given.
func (t *Toolset) SetPlanStatus(ctx context.Context, a SetPlanStatusArgs) (StatusView, error) {
	if a.Status == "" {
		return StatusView{}, invalidf("status must not be empty")
	}
	p, err := t.store.Upsert(ctx, UpsertRequest{Name: a.Name, Status: &a.Status, MustExist: true,
		ExpectedRevision: a.LastKnownRevision})
	if err != nil {
		return StatusView{}, err
	}
	return StatusView{Name: p.Name, Status: p.Status, Revision: p.Revision}, nil
}

// GetPlanStatus is get_plan_status.
func (t *Toolset) GetPlanStatus(ctx context.Context, a GetPlanStatusArgs) (StatusView, error) {
	p, err := t.ReadPlan(ctx, ReadPlanArgs(a))
	if err != nil {
		return StatusView{}, err
	}
	return StatusView{Name: a.Name, Status: p.Status, Revision: p.Revision}, nil
}

// ListPlans is list_plans.
func (t *Toolset) ListPlans(ctx context.Context) (ListResult, error) {
	return t.store.List(ctx)
}

// DeletePlan is delete_plan. Without a guard a corrupt plan is removed; with one it is an error.
func (t *Toolset) DeletePlan(ctx context.Context, a DeletePlanArgs) (DeleteResult, error) {
	deleted, err := t.store.Delete(ctx, a.Name, a.LastKnownRevision)
	if err != nil {
		return DeleteResult{}, err
	}
	if !deleted {
		return DeleteResult{}, notFound(a.Name)
	}
	return DeleteResult{Deleted: a.Name}, nil
}

func (t *Toolset) resolve(path string) (files.Location, error) {
	if t.files == nil {
		return files.Location{}, deniedf("file tools are disabled: no path policy is configured")
	}
	return t.files.Resolve(path)
}

func (t *Toolset) resolveWrite(path string) (files.Location, error) {
	if t.writes == nil {
		if t.noWrite != "" {
			return files.Location{}, deniedf("%s", t.noWrite)
		}
		return files.Location{}, deniedf("file tools are disabled: no path policy is configured")
	}
	return t.writes.Resolve(path)
}

// readSource reads update_plan_from_file's source. Every check is made on the opened
// descriptor, so the file checked is the file read, and the read is bounded because the file
// may grow after the size check.
func (t *Toolset) readSource(path string) (string, error) {
	loc, err := t.resolve(path)
	if err != nil {
		return "", err
	}
	var content string
	err = files.With(loc, path, true, func(ops files.Ops, name string) error {
		f, err := files.OpenNoHang(ops, filepath.Clean(name))
		if errors.Is(err, fs.ErrNotExist) {
			return invalidf("file %q does not exist", path)
		}
		if err != nil {
			return fmt.Errorf("reading plan file: %w", err)
		}
		defer f.Close()
		info, err := f.Stat()
		switch {
		case err != nil:
			return fmt.Errorf("reading plan file: %w", err)
		case info.IsDir():
			return invalidf("path %q is a directory, not a file", path)
		case !info.Mode().IsRegular():
			return invalidf("path %q is not a regular file (e.g. a device or named pipe)", path)
		case info.Size() > MaxContentSize:
			return invalidf("file %q is too large (%d bytes; max %d)", path, info.Size(), MaxContentSize)
		}
		data, err := files.ReadBounded(f, info.Size(), MaxContentSize)
		if errors.Is(err, files.ErrTooLarge) {
			return invalidf("file %q is too large (max %d bytes)", path, MaxContentSize)
		}
		if err != nil {
			return fmt.Errorf("reading plan file: %w", err)
		}
		content = string(data)
		return nil
	})
	return content, err
}

// writeDest writes export_plan_to_file's destination.
func (t *Toolset) writeDest(path, content string) error {
	loc, err := t.resolveWrite(path)
	if err != nil {
		return err
	}
	return files.With(loc, path, false, func(ops files.Ops, name string) error {
		name = filepath.Clean(name)
		if info, err := ops.Stat(name); err == nil && info.IsDir() {
			return invalidf("path %q is a directory, not a file", path)
		}
		if err := ops.MkdirAll(filepath.Dir(name), 0o700); err != nil {
			return fmt.Errorf("creating directory for plan file: %w", err)
		}
		if err := files.WriteAtomic(ops, name, []byte(content)); err != nil {
			return fmt.Errorf("writing plan file: %w", err)
		}
		return nil
	})
}
