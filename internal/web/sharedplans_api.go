package web

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"net/url"
	"strconv"
	"strings"

	"github.com/plandash/plandash/internal/paging"
	"github.com/plandash/plandash/internal/sharedplans"
)

// sharedName reads and validates the {name} of the route.
func sharedName(w http.ResponseWriter, r *http.Request, log *slog.Logger) (string, bool) {
	name := param(r, "name")
	if err := sharedplans.ValidateName(name); err != nil {
		writeSharedProblem(w, r, log, badRequest(err.Error()), false)
		return "", false
	}
	return name, true
}

// apiSharedList serves GET /api/v1/shared-plans?cursor=&limit=: list_plans's result (plans by
// name, warnings on the first page) a page at a time, with the total and the next cursor.
func (s *Server) apiSharedList(w http.ResponseWriter, r *http.Request) {
	pr, err := pageRequest(r)
	if err != nil {
		writeSharedProblem(w, r, s.log, err, false)
		return
	}
	lp, err := s.shared.ListPage(r.Context(), pr.After.ID, pr.Limit)
	if err != nil {
		writeSharedProblem(w, r, s.log, err, false)
		return
	}
	writePage(w, r, lp.Plans, sharedCursor(lp.Next), func(p sharedplans.Summary) paging.Cursor { return sharedCursor(p.Name) },
		func(rows []sharedplans.Summary, next string) any {
			return struct {
				Plans    []sharedplans.Summary `json:"plans"`
				Warnings []string              `json:"warnings,omitempty"`
				Total    int                   `json:"total"`
				Next     string                `json:"next"`
			}{rows, lp.Warnings, lp.Total, next}
		})
}

// sharedCursor is the position after the plan named name in the list by name.
func sharedCursor(name string) paging.Cursor { return paging.Cursor{ID: name} }

// apiSharedGet serves GET /api/v1/shared-plans/{name}: read_plan's result, with the revision
// as ETag (If-None-Match with it answers 304).
func (s *Server) apiSharedGet(w http.ResponseWriter, r *http.Request) {
	name, ok := sharedName(w, r, s.log)
	if !ok {
		return
	}
	p, err := s.sharedTools.ReadPlan(r.Context(), sharedplans.ReadPlanArgs{Name: name})
	if err != nil {
		writeSharedProblem(w, r, s.log, err, false)
		return
	}
	w.Header().Set("ETag", etag(p.Revision))
	if inm := r.Header.Get("If-None-Match"); inm != "" && strings.Trim(strings.TrimPrefix(inm, "W/"), `" `) == strconv.Itoa(p.Revision) {
		w.WriteHeader(http.StatusNotModified)
		return
	}
	writeJSON(w, http.StatusOK, p)
}

// sharedWriteBody is the body of a write. Omitted metadata keeps its value and an explicit ""
// clears it (the tools cannot clear; people editing a plan can).
type sharedWriteBody struct {
	Name              string  `json:"name,omitempty"` // only when creating through POST /shared-plans
	Content           *string `json:"content"`
	Title             *string `json:"title,omitempty"`
	Author            *string `json:"author,omitempty"`
	Status            *string `json:"status,omitempty"`
	LastKnownRevision *int    `json:"last_known_revision,omitempty"`
}

// apiSharedWrite serves PUT (or POST) /api/v1/shared-plans/{name}: create or replace, guarded
// by If-Match / If-None-Match: * or last_known_revision.
func (s *Server) apiSharedWrite(w http.ResponseWriter, r *http.Request) {
	name, ok := sharedName(w, r, s.log)
	if !ok {
		return
	}
	var b sharedWriteBody
	if err := decodeJSON(w, r, sharedplans.MaxEncodedSize, true, &b); err != nil {
		writeSharedProblem(w, r, s.log, err, false)
		return
	}
	if b.Name != "" && b.Name != name {
		writeSharedProblem(w, r, s.log, badRequest(fmt.Sprintf("the body names plan %q but the address names %q", b.Name, name)), false)
		return
	}
	g, err := parseSharedGuard(r, b.LastKnownRevision)
	if err != nil {
		writeSharedProblem(w, r, s.log, err, false)
		return
	}
	sharedUpsert(w, r, s.log, s.shared, name, b, g)
}

// apiSharedCreate serves POST /api/v1/shared-plans: create only; an existing name conflicts.
func (s *Server) apiSharedCreate(w http.ResponseWriter, r *http.Request) {
	var b sharedWriteBody
	if err := decodeJSON(w, r, sharedplans.MaxEncodedSize, true, &b); err != nil {
		writeSharedProblem(w, r, s.log, err, false)
		return
	}
	sharedUpsert(w, r, s.log, s.shared, b.Name, b, sharedGuard{mustNotExist: true})
}

// sharedUpsert writes plan name from an API body through svc, guarded by g, and answers with
// the plan (201 when it is new).
func sharedUpsert(w http.ResponseWriter, r *http.Request, log *slog.Logger, svc *sharedplans.Service, name string, b sharedWriteBody, g sharedGuard) {
	if b.Content == nil || *b.Content == "" {
		writeSharedProblem(w, r, log, invalid("content must not be empty"), false)
		return
	}
	p, err := svc.Write(r.Context(), sharedplans.UpsertRequest{Name: name, Content: b.Content, Title: b.Title,
		Author: b.Author, Status: b.Status, ExpectedRevision: g.expected, MustExist: g.mustExist, MustNotExist: g.mustNotExist}, apiSource(r))
	if err != nil {
		var vc *sharedplans.VersionConflictError
		if g.mustNotExist && errors.As(err, &vc) && !g.header {
			err = &existsError{vc}
		}
		writeSharedProblem(w, r, log, err, g.header)
		return
	}
	w.Header().Set("ETag", etag(p.Revision))
	code := http.StatusOK
	if p.Revision == 1 {
		w.Header().Set("Location", "/api/v1/shared-plans/"+url.PathEscape(name))
		code = http.StatusCreated
	}
	writeJSON(w, code, p)
}

// apiSharedStatus serves GET /api/v1/shared-plans/{name}/status: get_plan_status's result.
func (s *Server) apiSharedStatus(w http.ResponseWriter, r *http.Request) {
	name, ok := sharedName(w, r, s.log)
	if !ok {
		return
	}
	v, err := s.sharedTools.GetPlanStatus(r.Context(), sharedplans.GetPlanStatusArgs{Name: name})
	if err != nil {
		writeSharedProblem(w, r, s.log, err, false)
		return
	}
	w.Header().Set("ETag", etag(v.Revision))
	writeJSON(w, http.StatusOK, v)
}

// apiSharedSetStatus serves PUT (or POST) /api/v1/shared-plans/{name}/status: set_plan_status,
// guarded like a write.
func (s *Server) apiSharedSetStatus(w http.ResponseWriter, r *http.Request) {
	name, ok := sharedName(w, r, s.log)
	if !ok {
		return
	}
	var b struct {
		Status            string `json:"status"`
		LastKnownRevision *int   `json:"last_known_revision,omitempty"`
	}
	if err := decodeJSON(w, r, sharedplans.MaxEncodedSize, true, &b); err != nil {
		writeSharedProblem(w, r, s.log, err, false)
		return
	}
	g, err := parseSharedGuard(r, b.LastKnownRevision)
	if err != nil {
		writeSharedProblem(w, r, s.log, err, false)
		return
	}
	var v sharedplans.StatusView
	err = s.shared.Attributed(r.Context(), name, apiSource(r), func(ctx context.Context) (err error) {
		v, err = s.sharedTools.SetPlanStatus(ctx, sharedplans.SetPlanStatusArgs{Name: name, Status: b.Status, LastKnownRevision: g.expected})
		return err
	})
	if err != nil {
		writeSharedProblem(w, r, s.log, err, g.header)
		return
	}
	w.Header().Set("ETag", etag(v.Revision))
	writeJSON(w, http.StatusOK, v)
}

// apiSharedDelete serves DELETE /api/v1/shared-plans/{name}, guarded by If-Match when given.
// Unguarded, it also removes a corrupt plan file (docker-agent's recovery path).
func (s *Server) apiSharedDelete(w http.ResponseWriter, r *http.Request) {
	name, ok := sharedName(w, r, s.log)
	if !ok {
		return
	}
	g, err := parseSharedGuard(r, nil)
	if err != nil {
		writeSharedProblem(w, r, s.log, err, false)
		return
	}
	var res sharedplans.DeleteResult
	err = s.shared.Attributed(r.Context(), name, apiSource(r), func(ctx context.Context) (err error) {
		res, err = s.sharedTools.DeletePlan(ctx, sharedplans.DeletePlanArgs{Name: name, LastKnownRevision: g.expected})
		return err
	})
	if err != nil {
		writeSharedProblem(w, r, s.log, err, g.header)
		return
	}
	writeJSON(w, http.StatusOK, res)
}

// apiSharedHistory serves GET /api/v1/shared-plans/{name}/history?cursor=&limit=: the states
// plandash has recorded, newest first, without content, a page at a time; ?seq=N returns that
// one state with its content.
func (s *Server) apiSharedHistory(w http.ResponseWriter, r *http.Request) {
	name, ok := sharedName(w, r, s.log)
	if !ok {
		return
	}
	if v := r.URL.Query().Get("seq"); v != "" {
		seq, err := strconv.ParseInt(v, 10, 64)
		if err != nil {
			writeSharedProblem(w, r, s.log, badRequest("seq must be a history sequence number"), false)
			return
		}
		e, found, err := s.shared.History().Entry(r.Context(), name, seq)
		if err == nil && !found {
			err = fmt.Errorf("%w: no history entry %d for plan %q", sharedplans.ErrPlanNotFound, seq, name)
		}
		if err != nil {
			writeSharedProblem(w, r, s.log, err, false)
			return
		}
		writeJSON(w, http.StatusOK, e)
		return
	}
	pr, err := pageRequest(r)
	if err != nil {
		writeSharedProblem(w, r, s.log, err, false)
		return
	}
	hist, err := s.shared.History().HistoryBefore(r.Context(), name, pr.After.Key, pr.Fetch())
	if err != nil {
		writeSharedProblem(w, r, s.log, err, false)
		return
	}
	key := func(e sharedplans.HistoryEntry) paging.Cursor { return paging.Cursor{Key: e.Seq} }
	hist, next := paging.Trim(pr, hist, key)
	writePage(w, r, emptyIfNil(hist), next, key, func(rows []sharedplans.HistoryEntry, next string) any {
		return struct {
			Name    string                     `json:"name"`
			Entries []sharedplans.HistoryEntry `json:"entries"`
			Next    string                     `json:"next"`
		}{name, rows, next}
	})
}

func emptyIfNil[T any](s []T) []T {
	if s == nil {
		return []T{}
	}
	return s
}

// apiSharedTool serves POST /api/v1/shared-plans/-/tools/{tool}: any of the eight tools, with
// its arguments as the body and its exact result as the answer, file tools confined to the
// allowed roots. Errors are problems whose detail is the tool's error text.
func (s *Server) apiSharedTool(w http.ResponseWriter, r *http.Request) {
	tool, ok := s.sharedTools.Tool(param(r, "tool"))
	if !ok {
		writeSharedProblem(w, r, s.log, fmt.Errorf("%w: no tool %q", sharedplans.ErrPlanNotFound, param(r, "tool")), false)
		return
	}
	args, err := io.ReadAll(http.MaxBytesReader(w, r.Body, sharedplans.MaxEncodedSize))
	if err != nil {
		writeProblem(w, r, s.log, err)
		return
	}
	var named struct {
		Name string `json:"name"`
	}
	var text string
	call := func(ctx context.Context) (err error) {
		text, err = tool.Call(ctx, args)
		return err
	}
	if json.Unmarshal(args, &named); !tool.ReadOnlyHint && named.Name != "" {
		err = s.shared.Attributed(r.Context(), named.Name, apiSource(r), call)
	} else {
		err = s.shared.Attributed(r.Context(), "", apiSource(r), call) // a read: nothing to record
	}
	if err != nil {
		writeSharedProblem(w, r, s.log, err, false)
		return
	}
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(http.StatusOK)
	_, _ = io.WriteString(w, text)
}
