package web

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"net/url"
	"strconv"
	"strings"

	"github.com/plandash/plandash/internal/errs"
	"github.com/plandash/plandash/internal/sharedplans"
	"github.com/plandash/plandash/web/templates"
)

// sharedListPage serves GET /shared?cursor=&limit=: one page of the plans by name, from the
// watcher's index, each read from disk for its excerpt.
func (s *Server) sharedListPage(w http.ResponseWriter, r *http.Request) {
	v, err := s.views.SharedList(r.Context(), r.URL)
	if err != nil {
		writePageError(w, r, s.log, err)
		return
	}
	writeHTML(w, r, s.log, templates.SharedListPage(v))
}

// sharedPlanPage serves GET /shared/{name}?from=&to=: the plan, its editor, its history and
// the changes between two recorded states (by default the newest two).
func (s *Server) sharedPlanPage(w http.ResponseWriter, r *http.Request) {
	name := param(r, "name")
	v, err := s.views.SharedPlan(r.Context(), name, r.URL.Query())
	if err != nil {
		writeSharedErrorPage(w, r, s.log, err)
		return
	}
	if n := r.URL.Query().Get("saved"); n != "" {
		v.Notice = "Saved revision " + n + "."
	}
	writeHTML(w, r, s.log, templates.SharedPlanPageView(v))
}

// writeSharedErrorPage answers a shared plan's page that failed: a plan that is not there, or
// whose name is not one, is a 404.
func writeSharedErrorPage(w http.ResponseWriter, r *http.Request, log *slog.Logger, err error) {
	if errs.KindOf(err) == errs.NotFound || errs.KindOf(err) == errs.Unprocessable {
		w.Header().Set("Content-Type", "text/html; charset=utf-8")
		w.WriteHeader(http.StatusNotFound)
		_ = templates.ErrorPage(http.StatusNotFound, err.Error()).Render(r.Context(), w)
		return
	}
	writePageError(w, r, log, err)
}

// sharedForm reads the editor's form. Browsers send textarea line breaks as CRLF; plans are
// written with the LF line breaks agents write, so a browser edit does not rewrite every line.
func sharedForm(w http.ResponseWriter, r *http.Request) (templates.SharedEditor, error) {
	r.Body = http.MaxBytesReader(w, r.Body, sharedplans.MaxContentSize+64<<10)
	if err := r.ParseForm(); err != nil {
		return templates.SharedEditor{}, err
	}
	f := r.PostForm
	e := templates.SharedEditor{Name: f.Get("name"), Title: f.Get("title"), Author: f.Get("author"),
		Status: f.Get("status"), Content: strings.ReplaceAll(f.Get("content"), "\r\n", "\n")}
	if rev := f.Get("revision"); rev != "" {
		n, err := strconv.Atoi(rev)
		if err != nil || n < 0 {
			return e, errs.Errorf(errs.Invalid, "revision must be a revision number")
		}
		e.Revision = n
	}
	return e, nil
}

// sharedSaveForm serves POST /shared/{name}: the editor saves, guarded by the revision it was
// opened at. If someone saved first, nothing is written and the page shows both versions.
func (s *Server) sharedSaveForm(w http.ResponseWriter, r *http.Request) {
	name := param(r, "name")
	draft, err := sharedForm(w, r)
	if err != nil {
		writePageError(w, r, s.log, err)
		return
	}
	draft.Name = name
	p, err := sharedWrite(r.Context(), s.shared, draft, false)
	if err != nil {
		s.pages.sharedEditorFailed(w, r, draft, err)
		return
	}
	http.Redirect(w, r, "/shared/"+url.PathEscape(name)+"?saved="+strconv.Itoa(p.Revision), http.StatusSeeOther)
}

// sharedWrite stores an editor's draft through svc and records it as the browser's. create
// refuses any existing plan; otherwise the draft's revision guards the write.
func sharedWrite(ctx context.Context, svc *sharedplans.Service, d templates.SharedEditor, create bool) (sharedplans.Plan, error) {
	if d.Content == "" {
		return sharedplans.Plan{}, invalid("content must not be empty")
	}
	req := sharedplans.UpsertRequest{Name: d.Name, Content: &d.Content, Title: &d.Title, Author: &d.Author,
		Status: &d.Status, MustNotExist: create}
	if !create {
		req.ExpectedRevision = &d.Revision
	}
	return svc.Write(ctx, req, "browser")
}

// sharedNewPage serves GET /shared/-/new.
func (s *Server) sharedNewPage(w http.ResponseWriter, r *http.Request) {
	writeHTML(w, r, s.log, templates.SharedNewPageView(templates.SharedEditor{New: true, Author: s.cfg.User, Status: "draft"}, int64(s.live.Seq())))
}

// sharedCreateForm serves POST /shared/-/new: create only, never over an existing plan.
func (s *Server) sharedCreateForm(w http.ResponseWriter, r *http.Request) {
	draft, err := sharedForm(w, r)
	if err != nil {
		writePageError(w, r, s.log, err)
		return
	}
	draft.New = true
	p, err := sharedWrite(r.Context(), s.shared, draft, true)
	if err != nil {
		var vc *sharedplans.VersionConflictError
		if errors.As(err, &vc) {
			draft.Error = fmt.Sprintf("A plan named %q already exists (revision %d): pick another name, or open that plan to edit it.", draft.Name, vc.Current)
		} else if status(err) == http.StatusInternalServerError {
			s.log.Error("shared plans: create failed", "plan", draft.Name, "err", err)
			draft.Error = "Not created: something went wrong; the server log has the details."
		} else {
			draft.Error = "Not created: " + err.Error()
		}
		w.Header().Set("Content-Type", "text/html; charset=utf-8")
		w.WriteHeader(status(err))
		seq := int64(s.live.Seq())
		_ = templates.SharedNewPageView(draft, seq).Render(r.Context(), w)
		return
	}
	http.Redirect(w, r, "/shared/"+url.PathEscape(p.Name)+"?saved="+strconv.Itoa(p.Revision), http.StatusSeeOther)
}

// sharedDeleteForm serves POST /shared/{name}/delete, guarded by the revision shown (a plan
// whose file is broken is shown without one, and is removed unguarded).
func (s *Server) sharedDeleteForm(w http.ResponseWriter, r *http.Request) {
	name := param(r, "name")
	d, err := sharedForm(w, r)
	if err != nil {
		writePageError(w, r, s.log, err)
		return
	}
	var guard *int
	if r.PostForm.Get("revision") != "" {
		guard = &d.Revision
	}
	deleted, err := s.shared.Delete(r.Context(), name, guard, "browser")
	if err == nil && !deleted {
		err = fmt.Errorf("%w: %q", sharedplans.ErrPlanNotFound, name)
	}
	if err != nil {
		v, verr := s.views.SharedPlan(r.Context(), name, nil)
		if verr != nil {
			writeSharedErrorPage(w, r, s.log, verr)
			return
		}
		v.Notice = "Not deleted: " + err.Error()
		w.Header().Set("Content-Type", "text/html; charset=utf-8")
		w.WriteHeader(status(err))
		_ = templates.SharedPlanPageView(v).Render(r.Context(), w)
		return
	}
	http.Redirect(w, r, "/shared", http.StatusSeeOther)
}

// sharedPreview serves POST /shared/-/preview: the editor's markdown rendered exactly as the
// page will render it, so the preview needs no markdown code in the browser.
func (s *Server) sharedPreview(w http.ResponseWriter, r *http.Request) {
	src, err := io.ReadAll(http.MaxBytesReader(w, r.Body, sharedplans.MaxContentSize+1))
	if err != nil {
		writeProblem(w, r, s.log, err)
		return
	}
	w.Header().Set("Content-Type", "text/html; charset=utf-8")
	w.Header().Set("Cache-Control", "no-store")
	_ = templates.Markdown(string(src)).Render(r.Context(), w)
}
