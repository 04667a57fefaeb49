package web

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"strconv"
	"strings"

	"github.com/plandash/plandash/internal/sharedplans"
)

// Errors of the shared-plan pages and API, their HTTP statuses and problem bodies, and the
// revision guards of HTTP requests.

// sharedStatus maps shared-plan errors to HTTP statuses; status() asks it first, so pages and
// the API agree. A version conflict is 409 here; handlers answer 412 instead when the guard
// came from an If-Match or If-None-Match header.
func sharedStatus(err error) (int, bool) {
	var lt *sharedLockTimeout
	switch {
	case errors.As(err, &lt):
		return http.StatusServiceUnavailable, true
	case errors.Is(err, sharedplans.ErrPathDenied):
		return http.StatusForbidden, true
	case errors.Is(err, sharedplans.ErrConflict), errors.Is(err, sharedplans.ErrCorrupt):
		return http.StatusConflict, true
	case errors.Is(err, sharedplans.ErrPlanNotFound), errors.Is(err, errSharedUnknown):
		return http.StatusNotFound, true
	case errors.Is(err, sharedplans.ErrInvalid):
		return http.StatusUnprocessableEntity, true
	}
	return 0, false
}

// sharedErrorCode is the machine-readable kind in problem bodies, the same words the CLI's
// --json errors use.
func sharedErrorCode(err error) string {
	var lt *sharedLockTimeout
	switch {
	case errors.As(err, &lt):
		return "unavailable"
	case errors.Is(err, sharedplans.ErrPathDenied):
		return "path_denied"
	case errors.Is(err, sharedplans.ErrConflict):
		return "conflict"
	case errors.Is(err, sharedplans.ErrCorrupt):
		return "corrupt"
	case errors.Is(err, sharedplans.ErrPlanNotFound):
		return "not_found"
	case errors.Is(err, sharedplans.ErrInvalid):
		return "invalid_argument"
	}
	return "error"
}

// sharedProblem is a problem body with the shared-plan extension members.
type sharedProblem struct {
	Problem
	Code             string `json:"code"`
	Name             string `json:"name,omitempty"`
	ExpectedRevision *int   `json:"expected_revision,omitempty"`
	CurrentRevision  *int   `json:"current_revision,omitempty"`
}

// writeSharedProblem answers with err as a problem. headerGuard says the request's guard came
// from If-Match / If-None-Match, which turns a conflict into 412 Precondition Failed.
func (s *Server) writeSharedProblem(w http.ResponseWriter, r *http.Request, err error, headerGuard bool) {
	code := status(err)
	if code == http.StatusInternalServerError {
		writeProblem(w, r, s.log, err)
		return
	}
	// With a header guard, a failed precondition is 412: a stale revision, If-None-Match: * on
	// an existing plan, If-Match: * on a missing one.
	if headerGuard && (errors.Is(err, sharedplans.ErrConflict) || errors.Is(err, sharedplans.ErrPlanNotFound)) {
		code = http.StatusPreconditionFailed
	}
	p := sharedProblem{Problem: Problem{Title: http.StatusText(code), Status: code, Detail: err.Error()}, Code: sharedErrorCode(err)}
	var vc *sharedplans.VersionConflictError
	if errors.As(err, &vc) {
		p.Name, p.ExpectedRevision, p.CurrentRevision = vc.Name, &vc.Expected, &vc.Current
	}
	writeJSONStatus(w, code, "application/problem+json", p)
}

// sharedLockTimeout is a write that gave up waiting for another process's plans lock.
type sharedLockTimeout struct{ err error }

func (e *sharedLockTimeout) Error() string {
	return "the plans directory stayed locked by another process; try again"
}
func (e *sharedLockTimeout) Unwrap() error { return e.err }

func etag(revision int) string { return `"` + strconv.Itoa(revision) + `"` }

// sharedGuard is a write's precondition, from the headers or the body.
type sharedGuard struct {
	expected     *int
	mustExist    bool // If-Match: *
	mustNotExist bool // If-None-Match: *
	header       bool // it came from a header
}

// parseSharedGuard reads If-Match ("N", W/"N" or *) and, for writes, If-None-Match: *. A body's
// last_known_revision is the same guard; if both are given they must agree.
func parseSharedGuard(r *http.Request, body *int) (sharedGuard, error) {
	var g sharedGuard
	if v := strings.TrimSpace(r.Header.Get("If-Match")); v != "" {
		g.header = true
		if v == "*" {
			g.mustExist = true
		} else {
			n, err := strconv.Atoi(strings.Trim(strings.TrimPrefix(v, "W/"), `"`))
			if err != nil || n < 0 {
				return g, &sharedBadRequest{fmt.Sprintf("If-Match must be one revision ETag such as \"3\", or *; got %s", v)}
			}
			g.expected = &n
		}
	}
	if v := strings.TrimSpace(r.Header.Get("If-None-Match")); v != "" && r.Method != http.MethodGet {
		if v != "*" {
			return g, &sharedBadRequest{"on a write, If-None-Match may only be *: create the plan only if it does not exist"}
		}
		g.header, g.mustNotExist = true, true
	}
	if body != nil {
		if g.expected != nil && *g.expected != *body {
			return g, &sharedBadRequest{fmt.Sprintf("If-Match (%d) and last_known_revision (%d) disagree", *g.expected, *body)}
		}
		if g.expected == nil {
			g.expected = body
		}
	}
	return g, nil
}

// sharedBadRequest is a request that could not be read at all (400, not 422).
type sharedBadRequest struct{ msg string }

func (e *sharedBadRequest) Error() string { return e.msg }

func (s *Server) badRequest(w http.ResponseWriter, r *http.Request, err error) {
	var br *sharedBadRequest
	if errors.As(err, &br) {
		writeJSONStatus(w, http.StatusBadRequest, "application/problem+json", sharedProblem{
			Problem: Problem{Title: "Bad Request", Status: http.StatusBadRequest, Detail: br.msg}, Code: "invalid_argument"})
		return
	}
	s.writeSharedProblem(w, r, err, false)
}

// existsError is a create over an existing plan, in docker-agent's host-service words.
type existsError struct {
	*sharedplans.VersionConflictError
}

func (e *existsError) Error() string {
	return fmt.Sprintf("plan %q already exists (current version %d); pick a different name, or update the existing plan", e.Name, e.Current)
}

func (e *existsError) Unwrap() error { return e.VersionConflictError }

func sharedTimeout(err error) error {
	if errors.Is(err, context.DeadlineExceeded) {
		return &sharedLockTimeout{err}
	}
	return err
}

// sharedInvalid is a form mistake found before the store is asked; it matches ErrInvalid.
type sharedInvalid struct{ msg string }

func (e *sharedInvalid) Error() string        { return e.msg }
func (e *sharedInvalid) Is(target error) bool { return target == sharedplans.ErrInvalid }
