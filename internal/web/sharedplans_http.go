package web

import (
	"errors"
	"fmt"
	"log/slog"
	"net/http"
	"strconv"
	"strings"

	"github.com/plandash/plandash/internal/errs"
	"github.com/plandash/plandash/internal/sharedplans"
)

// Errors of the shared-plan pages and API, their HTTP statuses and problem bodies, and the
// revision guards of HTTP requests.

// writeSharedProblem answers with err as a problem. headerGuard says the request's guard came
// from If-Match / If-None-Match, which turns a conflict into 412 Precondition Failed.
func writeSharedProblem(w http.ResponseWriter, r *http.Request, log *slog.Logger, err error, headerGuard bool) {
	code := status(err)
	// With a header guard, a failed precondition is 412: a stale revision, If-None-Match: * on
	// an existing plan, If-Match: * on a missing one.
	if headerGuard && (errors.Is(err, sharedplans.ErrConflict) || errors.Is(err, sharedplans.ErrPlanNotFound)) {
		code = http.StatusPreconditionFailed
	}
	writeProblemStatus(w, r, log, err, code)
}

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
				return g, badRequest(fmt.Sprintf("If-Match must be one revision ETag such as \"3\", or *; got %s", v))
			}
			g.expected = &n
		}
	}
	if v := strings.TrimSpace(r.Header.Get("If-None-Match")); v != "" && r.Method != http.MethodGet {
		if v != "*" {
			return g, badRequest("on a write, If-None-Match may only be *: create the plan only if it does not exist")
		}
		g.header, g.mustNotExist = true, true
	}
	if body != nil {
		if g.expected != nil && *g.expected != *body {
			return g, badRequest(fmt.Sprintf("If-Match (%d) and last_known_revision (%d) disagree", *g.expected, *body))
		}
		if g.expected == nil {
			g.expected = body
		}
	}
	return g, nil
}

// badRequest is a request that could not be read at all (400, not 422).
func badRequest(msg string) error { return errs.New(errs.Invalid, msg) }

// existsError is a create over an existing plan, in docker-agent's host-service words.
type existsError struct {
	*sharedplans.VersionConflictError
}

func (e *existsError) Error() string {
	return fmt.Sprintf("plan %q already exists (current version %d); pick a different name, or update the existing plan", e.Name, e.Current)
}

func (e *existsError) Unwrap() error { return e.VersionConflictError }

// invalid is a form mistake found before the store is asked, refused like the store's own.
func invalid(msg string) error { return errs.New(errs.Unprocessable, msg) }
