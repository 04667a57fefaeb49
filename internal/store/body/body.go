// Package body decodes the JSON bodies the stores keep (sessions, plans, tool calls, requests…).
//
// Decoding bodies is most of what a page or a live update costs the database side, so they are
// read with github.com/go-json-experiment/json (encoding/json/v2's implementation, already in the
// module graph), which validates and decodes in one pass; they are written by encoding/json.
package body

import (
	json "github.com/go-json-experiment/json"
	"github.com/go-json-experiment/json/jsontext"
)

// lenient keeps encoding/json's tolerance where a stored body may carry an agent's own JSON
// (a plan's raw object, _meta): invalid UTF-8 inside strings and a name given twice in one
// object were accepted when the value came in, so they must not make it unreadable later.
var lenient = json.JoinOptions(jsontext.AllowInvalidUTF8(true), jsontext.AllowDuplicateNames(true))

// Decode decodes a stored body into a new T.
func Decode[T any](b []byte) (T, error) {
	var v T
	err := json.Unmarshal(b, &v, lenient)
	return v, err
}
