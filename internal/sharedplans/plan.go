package sharedplans

import (
	"encoding/json"
	"errors"
)

// MaxContentSize caps a plan's content and the source file of update_plan_from_file: 10 MiB,
// inclusive, as in docker-agent.
const MaxContentSize = 10 << 20

// MaxEncodedSize caps a stored plan file. It leaves room for worst-case JSON escaping of
// full-size content (6 bytes per byte) plus 10 MiB of metadata; a larger file on disk is
// reported as corrupt instead of being read into memory.
const MaxEncodedSize = 6*MaxContentSize + 10<<20

// Plan is one shared plan, both as stored in <name>.json and as returned by the tools. Field
// order, tags and types are docker-agent's: encoding this struct is what makes our files
// byte-identical to theirs, so never add fields here.
type Plan struct {
	Name      string `json:"name"`
	Title     string `json:"title,omitempty"`
	Content   string `json:"content"`
	Author    string `json:"author,omitempty"`
	Status    string `json:"status,omitempty"`
	Revision  int    `json:"revision"`
	UpdatedAt string `json:"updatedAt"`
}

// Summary is a plan without its content, as listed by list_plans.
type Summary struct {
	Name      string `json:"name"`
	Title     string `json:"title,omitempty"`
	Author    string `json:"author,omitempty"`
	Status    string `json:"status,omitempty"`
	Revision  int    `json:"revision"`
	UpdatedAt string `json:"updatedAt"`
}

// Summary returns p without its content.
func (p Plan) Summary() Summary {
	return Summary{Name: p.Name, Title: p.Title, Author: p.Author, Status: p.Status,
		Revision: p.Revision, UpdatedAt: p.UpdatedAt}
}

// ListResult is the output of list_plans. Plans is never nil, so it encodes as [] rather than
// null; Warnings names files that exist but could not be read, so a caller never mistakes an
// unreadable plan for a missing one and recreates it over the top.
type ListResult struct {
	Plans    []Summary `json:"plans"`
	Warnings []string  `json:"warnings,omitempty"`
}

// StatusView is the output of set_plan_status and get_plan_status. Status is not omitempty: an
// unset status reads as "".
type StatusView struct {
	Name     string `json:"name"`
	Status   string `json:"status"`
	Revision int    `json:"revision"`
}

// ExportResult is the output of export_plan_to_file. It never carries the content: exporting
// exists so an agent can edit a plan on disk without paying for its body in tokens.
type ExportResult struct {
	Name         string `json:"name"`
	Path         string `json:"path"`
	Title        string `json:"title,omitempty"`
	Status       string `json:"status,omitempty"`
	Revision     int    `json:"revision"`
	BytesWritten int    `json:"bytesWritten"`
}

// DeleteResult is the output of delete_plan.
type DeleteResult struct {
	Deleted string `json:"deleted"`
}

// ValidateName reports whether name may address a plan: ^[a-z0-9][a-z0-9_-]*$. Names are
// validated, never rewritten, so two inputs cannot map to one file and no name can leave the
// plans directory. There is no length limit; the file system sets one.
func ValidateName(name string) error {
	if len(name) > MaxNameLen {
		// Not quoted back: the name may be any length, and the answer must stay bounded.
		return invalidf("invalid plan name: %d characters long, at most %d", len(name), MaxNameLen)
	}
	if !validName(name) {
		return invalidf("invalid plan name %q: use only lowercase letters, digits, '-' and '_', starting with a letter or digit", name)
	}
	return nil
}

// MaxNameLen bounds a plan name so its file name fits every file system's 255-byte limit with
// the ".json" extension and an atomic write's temp suffix (up to 10 digits). docker-agent has
// no such check and fails on longer names with the file system's error.
const MaxNameLen = 255 - len(".json") - 10

// validName is the name rule as a byte loop: it runs on every call and List-sized batches, and
// the fuzz target checks it against the regular expression.
func validName(name string) bool {
	if name == "" {
		return false
	}
	for i := 0; i < len(name); i++ {
		c := name[i]
		switch {
		case 'a' <= c && c <= 'z', '0' <= c && c <= '9':
		case (c == '-' || c == '_') && i > 0:
		default:
			return false
		}
	}
	return true
}

// EncodePlan returns the exact bytes docker-agent stores for p: json.MarshalIndent with a
// two-space indent, HTML escaping on and no trailing newline. It never fails; the error is
// kept so callers stay written for an encoder that can.
func EncodePlan(p Plan) ([]byte, error) {
	return encodePlan(&p, true), nil
}

// DecodePlan decodes a plan file the way docker-agent does (encoding/json v1: unknown keys
// ignored, keys matched case-insensitively, null as zero). The error is the decoder's own, so
// callers can quote it in docker-agent's "plan file X is corrupt: ..." text.
func DecodePlan(data []byte) (Plan, error) {
	var p Plan
	err := json.Unmarshal(data, &p)
	return p, err
}

// summaryDoc mirrors Plan but skips the content string, so listing thousands of large plans
// does not allocate every body. Its fields must stay in step with Plan.
type summaryDoc struct {
	Name      string        `json:"name"`
	Title     string        `json:"title,omitempty"`
	Content   skippedString `json:"content"`
	Author    string        `json:"author,omitempty"`
	Status    string        `json:"status,omitempty"`
	Revision  int           `json:"revision"`
	UpdatedAt string        `json:"updatedAt"`
}

// skippedString accepts exactly what a string field accepts (a string or null) without
// unescaping it; the scanner has already validated the literal's syntax.
type skippedString struct{}

var errNotString = errors.New("content is not a string")

// UnmarshalJSON implements json.Unmarshaler.
func (*skippedString) UnmarshalJSON(b []byte) error {
	if len(b) > 0 && (b[0] == '"' || string(b) == "null") {
		return nil
	}
	return errNotString
}

// decodeSummary decodes the listing view of a plan file. On any failure it re-decodes with the
// full Plan type, so the error text (and the verdict) is always exactly DecodePlan's.
func decodeSummary(data []byte) (Summary, error) {
	var d summaryDoc
	if err := json.Unmarshal(data, &d); err != nil {
		p, err := DecodePlan(data)
		return p.Summary(), err
	}
	return Summary{Name: d.Name, Title: d.Title, Author: d.Author, Status: d.Status,
		Revision: d.Revision, UpdatedAt: d.UpdatedAt}, nil
}
