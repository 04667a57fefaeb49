package web

import (
	"encoding/json"
	"errors"
	"net/http"

	"github.com/plandash/plandash/internal/errs"
)

// decodeJSON reads a JSON body of at most limit bytes into v: the one way handlers read JSON.
// strict refuses unknown keys (a misspelled field is a mistake worth reporting); what is wrong
// is the client's to fix, so every failure has a kind: too large, or invalid with the reason.
func decodeJSON(w http.ResponseWriter, r *http.Request, limit int64, strict bool, v any) error {
	dec := json.NewDecoder(http.MaxBytesReader(w, r.Body, limit))
	if strict {
		dec.DisallowUnknownFields()
	}
	err := dec.Decode(v)
	var mbe *http.MaxBytesError
	switch {
	case err == nil:
		return nil
	case errors.As(err, &mbe):
		return errs.Errorf(errs.TooLarge, "the body is larger than %d bytes", mbe.Limit)
	}
	return errs.Errorf(errs.Invalid, "the body is not the JSON expected: %v", err)
}
