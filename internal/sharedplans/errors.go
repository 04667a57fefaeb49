package sharedplans

import (
	"errors"
	"fmt"

	"github.com/plandash/plandash/internal/errs"
	"github.com/plandash/plandash/internal/files"
)

// Kind sentinels. Every error this package returns for a caller's mistake or a plan's state
// matches exactly one of them through errors.Is; anything else is a storage fault (or a context
// error). The messages stay docker-agent's: the sentinels only classify.
var (
	// ErrPlanNotFound: the named plan does not exist. Its own text, "plan not found", is
	// docker-agent's sentinel and appears in set_plan_status's `plan not found: "<name>"`.
	ErrPlanNotFound = errs.New(errs.NotFound, "plan not found")
	// ErrConflict: a last_known_revision guard did not match (see *VersionConflictError).
	ErrConflict = errs.New(errs.Conflict, "version conflict")
	// ErrCorrupt: the plan file exists but cannot be decoded (see *CorruptPlanError).
	ErrCorrupt = errs.New(errs.Conflict, "corrupt plan file")
	// ErrInvalid: the arguments are wrong (bad name, empty content, oversized file, ...).
	ErrInvalid = errs.New(errs.Unprocessable, "invalid argument")
	// ErrPathDenied: a file tool's path is outside what the files.Policy allows.
	ErrPathDenied = files.ErrDenied
)

// VersionConflictError reports a last_known_revision that does not match the stored revision.
// It matches ErrConflict.
type VersionConflictError struct {
	Name     string
	Expected int
	Current  int
}

// Error returns docker-agent's conflict text.
func (e *VersionConflictError) Error() string {
	return fmt.Sprintf("version conflict on plan %q: last_known_revision %d does not match current revision %d; re-read the plan and retry",
		e.Name, e.Expected, e.Current)
}

// Is makes errors.Is(err, ErrConflict) true.
func (e *VersionConflictError) Is(target error) bool { return target == ErrConflict }

// ErrorKind is errs.Conflict.
func (e *VersionConflictError) ErrorKind() errs.Kind { return errs.Conflict }

// CorruptPlanError reports a plan file that exists but is not a readable plan: bad JSON, a
// directory, a FIFO or device, or a file over MaxEncodedSize. It matches ErrCorrupt.
type CorruptPlanError struct {
	File string // base name, e.g. "release.json"
	Err  error
}

// Error returns docker-agent's corrupt-file text.
func (e *CorruptPlanError) Error() string {
	return fmt.Sprintf("plan file %s is corrupt: %v", e.File, e.Err)
}

// Unwrap exposes the decoder or file-type error.
func (e *CorruptPlanError) Unwrap() error { return e.Err }

// Is makes errors.Is(err, ErrCorrupt) true.
func (e *CorruptPlanError) Is(target error) bool { return target == ErrCorrupt }

// ErrorKind is errs.Conflict: the file must be repaired or rewritten before it can be used.
func (e *CorruptPlanError) ErrorKind() errs.Kind { return errs.Conflict }

// Reasons a .json entry is corrupt without being decoded. errIsDirectory is distinct so the
// watcher can skip directories, as docker-agent's listing rule does.
var (
	errIsDirectory = errors.New("is a directory, not a plan file")
	errNotRegular  = errors.New("not a regular file (e.g. a device or named pipe)")
	errSymlinkOut  = errors.New("a symlink out of the plans directory, not followed")
	errTooLarge    = fmt.Errorf("file exceeds %d bytes", MaxEncodedSize)
)

// notFoundError is the `plan "<name>" not found` text of read, status, export and delete.
type notFoundError struct{ name string }

func (e *notFoundError) Error() string        { return fmt.Sprintf("plan %q not found", e.name) }
func (e *notFoundError) Is(target error) bool { return target == ErrPlanNotFound }
func (e *notFoundError) ErrorKind() errs.Kind { return errs.NotFound }

func notFound(name string) error { return &notFoundError{name: name} }

// kindError carries a docker-agent message and a kind sentinel.
type kindError struct {
	kind *errs.Error
	msg  string
}

func (e *kindError) Error() string        { return e.msg }
func (e *kindError) Is(target error) bool { return target == e.kind }
func (e *kindError) ErrorKind() errs.Kind { return e.kind.Kind }

func invalidf(format string, args ...any) error {
	return &kindError{kind: ErrInvalid, msg: fmt.Sprintf(format, args...)}
}

func deniedf(format string, args ...any) error {
	return &kindError{kind: ErrPathDenied, msg: fmt.Sprintf(format, args...)}
}
