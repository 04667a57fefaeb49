package web

import (
	"encoding/json"
	"errors"
	"log/slog"
	"net/http"
	"strconv"
	"time"

	"github.com/plandash/plandash/internal/errs"
	"github.com/plandash/plandash/internal/plans"
	"github.com/plandash/plandash/internal/sharedplans"
)

// This file is the one place where errors become HTTP answers: every handler, page or API,
// hands its error to writeProblem or errorPage, which ask status and code. A browser that asked
// for a page gets the error as a page (errorpages.go); everything else gets problem+json.

// Problem is an RFC 9457 problem details body: every JSON error has this shape. Code is the
// error's kind in words scripts can match; the shared-plan members say which revision lost.
type Problem struct {
	Type             string `json:"type,omitempty"`
	Title            string `json:"title"`
	Status           int    `json:"status"`
	Detail           string `json:"detail,omitempty"`
	Code             string `json:"code,omitempty"`
	Name             string `json:"name,omitempty"`
	ExpectedRevision *int   `json:"expected_revision,omitempty"`
	CurrentRevision  *int   `json:"current_revision,omitempty"`
}

var kindStatus = map[errs.Kind]int{
	errs.Invalid:       http.StatusBadRequest,
	errs.NotFound:      http.StatusNotFound,
	errs.Conflict:      http.StatusConflict,
	errs.Unauthorized:  http.StatusUnauthorized,
	errs.Forbidden:     http.StatusForbidden,
	errs.TooLarge:      http.StatusRequestEntityTooLarge,
	errs.Unprocessable: http.StatusUnprocessableEntity,
	errs.Unavailable:   http.StatusServiceUnavailable,
}

// status maps an error to its HTTP status by its kind.
func status(err error) int {
	var mbe *http.MaxBytesError
	if errors.As(err, &mbe) {
		return http.StatusRequestEntityTooLarge
	}
	if code, ok := kindStatus[errs.KindOf(err)]; ok {
		return code
	}
	return http.StatusInternalServerError
}

// code is the machine-readable kind in problem bodies, the same words the CLI's --json errors
// use for shared plans.
func code(err error) string {
	switch k := errs.KindOf(err); {
	case errors.Is(err, sharedplans.ErrCorrupt):
		return "corrupt"
	case k == errs.Forbidden:
		return "path_denied"
	case k == errs.Invalid || k == errs.Unprocessable:
		return "invalid_argument"
	default:
		return k.String()
	}
}

// writeProblem answers with a problem body; internal errors are logged and not shown.
func writeProblem(w http.ResponseWriter, r *http.Request, log *slog.Logger, err error) {
	writeProblemStatus(w, r, log, err, status(err))
}

// writeProblemStatus is writeProblem with the status decided by the caller (a failed
// precondition header turns a conflict into 412).
func writeProblemStatus(w http.ResponseWriter, r *http.Request, log *slog.Logger, err error, status int) {
	detail := err.Error()
	switch status {
	case http.StatusInternalServerError:
		log.Error("request failed", "method", r.Method, "path", r.URL.Path, "err", err)
		detail = "internal error; the server log has the details"
	case http.StatusServiceUnavailable:
		// Every "try again later" says when: the clients (hooks, proxy, CLI) retry a 503 only
		// with Retry-After, as a sign the server did not take the request.
		if w.Header().Get("Retry-After") == "" {
			w.Header().Set("Retry-After", strconv.Itoa(retryAfterSeconds(err)))
		}
		if cause := errors.Unwrap(err); cause != nil {
			log.Warn("request not taken; the client may retry", "method", r.Method, "path", r.URL.Path, "err", err, "cause", cause)
		}
	}
	if wantsHTML(r) {
		writeErrorPage(w, r, status, pageMessage(status, detail))
		return
	}
	p := Problem{Title: http.StatusText(status), Status: status, Detail: detail, Code: code(err)}
	var vc *sharedplans.VersionConflictError
	if errors.As(err, &vc) {
		p.Name, p.ExpectedRevision, p.CurrentRevision = vc.Name, &vc.Expected, &vc.Current
	}
	writeJSONStatus(w, status, "application/problem+json", p)
}

func writeJSON(w http.ResponseWriter, code int, v any) {
	writeJSONStatus(w, code, "application/json", v)
}

func writeJSONStatus(w http.ResponseWriter, code int, ctype string, v any) {
	// Encoded compact first, then indented only as deep as plans.MaxShownDepth: an agent's value
	// nested 9,000 deep indents to hundreds of megabytes (indentation is quadratic in depth),
	// while its compact form is what the agent sent.
	b, err := json.Marshal(v)
	if err != nil {
		http.Error(w, "the answer could not be encoded", http.StatusInternalServerError)
		return
	}
	out := append(plans.IndentShallow(b, plans.MaxShownDepth), '\n')
	w.Header().Set("Content-Type", ctype)
	// Said up front, so the compressor can leave a small answer as it is (see compressPages).
	w.Header().Set("Content-Length", strconv.Itoa(len(out)))
	w.WriteHeader(code)
	_, _ = w.Write(out)
}

// pageMessage is what an error page says: the error's own words, except where they are meant
// for a program.
func pageMessage(status int, detail string) string {
	switch status {
	case http.StatusInternalServerError:
		return "Something went wrong on the server; its log has the details."
	case http.StatusNotFound:
		return "There is nothing at this address (" + detail + "): the session, plan or request does not exist, or no longer does."
	}
	return detail
}

// retryAfterSeconds is how long a client waits before it asks again: what the error says
// (a full disk takes longer to clear than a database restart), else a second.
func retryAfterSeconds(err error) int {
	var ra interface{ RetryAfter() time.Duration }
	if errors.As(err, &ra) {
		return max(1, int(ra.RetryAfter().Round(time.Second)/time.Second))
	}
	return 1
}

// errNoRoute is the answer to a path no route serves.
func errNoRoute(path string) error { return errs.Errorf(errs.NotFound, "no such route: %s", path) }
