package web

import (
	"encoding/json"
	"errors"
	"log/slog"
	"net/http"

	"github.com/plandash/plandash/internal/plans"
)

// Problem is an RFC 9457 problem details body: every JSON error has this shape.
type Problem struct {
	Type   string `json:"type,omitempty"`
	Title  string `json:"title"`
	Status int    `json:"status"`
	Detail string `json:"detail,omitempty"`
}

// status maps a domain error to its HTTP status, the one place that does.
func status(err error) int {
	var mbe *http.MaxBytesError
	if errors.As(err, &mbe) {
		return http.StatusRequestEntityTooLarge
	}
	if code, ok := sharedStatus(err); ok {
		return code
	}
	switch plans.KindOf(err) {
	case plans.Invalid:
		return http.StatusBadRequest
	case plans.NotFound:
		return http.StatusNotFound
	case plans.Conflict:
		return http.StatusConflict
	case plans.Unauthorized:
		return http.StatusUnauthorized
	case plans.TooLarge:
		return http.StatusRequestEntityTooLarge
	}
	return http.StatusInternalServerError
}

// writeProblem answers with a problem body; internal errors are logged and not shown.
func writeProblem(w http.ResponseWriter, r *http.Request, log *slog.Logger, err error) {
	code := status(err)
	detail := err.Error()
	if code == http.StatusInternalServerError {
		log.Error("request failed", "method", r.Method, "path", r.URL.Path, "err", err)
		detail = "internal error; the server log has the details"
	}
	writeJSONStatus(w, code, "application/problem+json", Problem{Title: http.StatusText(code), Status: code, Detail: detail})
}

func writeJSON(w http.ResponseWriter, code int, v any) {
	writeJSONStatus(w, code, "application/json", v)
}

func writeJSONStatus(w http.ResponseWriter, code int, ctype string, v any) {
	w.Header().Set("Content-Type", ctype)
	w.WriteHeader(code)
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	_ = enc.Encode(v)
}
