// Package errs is plandash's one error model: every domain error carries a Kind, and the edges
// (HTTP problem details, JSON-RPC error codes, CLI exit codes) map kinds to their own codes in one
// place each. Messages are written for users; causes are kept for logs.
package errs

import (
	"errors"
	"fmt"
)

// Kind classifies an error by what the caller can do about it.
type Kind int

// Error kinds.
const (
	Internal      Kind = iota // a fault of plandash or its storage: logged, not shown
	Invalid                   // the request is malformed
	NotFound                  // the thing named does not exist
	Conflict                  // the state changed under the caller (a decision already made, a stale revision)
	Unauthorized              // no or wrong credentials
	Forbidden                 // credentials fine, but this is not allowed (a path outside the allowed roots)
	TooLarge                  // over a size limit
	Unprocessable             // well-formed but refused by the domain's rules
	Unavailable               // try again later (a lock held elsewhere, shutting down)
)

var kindNames = [...]string{"internal", "invalid", "not_found", "conflict", "unauthorized", "forbidden", "too_large", "unprocessable", "unavailable"}

// String is the kind's machine-readable name.
func (k Kind) String() string {
	if int(k) < len(kindNames) {
		return kindNames[k]
	}
	return fmt.Sprintf("kind(%d)", int(k))
}

// Error is a domain error with a kind and a message fit for users.
type Error struct {
	Kind Kind
	Msg  string
	Err  error // the cause, for logs
}

func (e *Error) Error() string {
	switch {
	case e.Msg == "" && e.Err != nil:
		return e.Err.Error()
	case e.Msg == "":
		return e.Kind.String()
	}
	return e.Msg
}

// Unwrap exposes the cause.
func (e *Error) Unwrap() error { return e.Err }

// ErrorKind reports the kind; every error type of plandash's rooms that has a kind implements it.
func (e *Error) ErrorKind() Kind { return e.Kind }

// New makes a domain error with a fixed message (a sentinel, compared with errors.Is).
func New(kind Kind, msg string) *Error { return &Error{Kind: kind, Msg: msg} }

// Errorf makes a domain error of the given kind. A %w verb keeps the cause.
func Errorf(kind Kind, format string, args ...any) error {
	err := fmt.Errorf(format, args...)
	return &Error{Kind: kind, Msg: err.Error(), Err: errors.Unwrap(err)}
}

// Wrap gives err a kind and a message; the message defaults to err's.
func Wrap(kind Kind, err error, msg string) error {
	if err == nil {
		return nil
	}
	return &Error{Kind: kind, Msg: msg, Err: err}
}

// kinded is any error that knows its kind.
type kinded interface{ ErrorKind() Kind }

// KindOf returns the kind of the first error in err's chain that has one, Internal when none
// does.
func KindOf(err error) Kind {
	var k kinded
	if errors.As(err, &k) {
		return k.ErrorKind()
	}
	return Internal
}
