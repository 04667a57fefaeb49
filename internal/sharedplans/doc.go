// Package sharedplans reads, writes and watches docker-agent's shared named plans: one JSON file
// per plan in a plans directory (default ~/.cagent/plans), byte-compatible with docker-agent's
// `plan` toolset so both programs can work on one store at the same time.
//
// The package has three layers:
//
//   - Store: the on-disk format, atomic writes, the cross-process flock on .plans.lock, lock-free
//     reads and revision bumps (store.go, list.go, fileio.go, lock_*.go).
//   - Toolset: the eight docker-agent tools as typed Go methods, plus a Tool table whose Call
//     produces the exact tool output text, so MCP, HTTP and the CLI share one behaviour
//     (tools.go, tooltable.go, schemas.go, pathpolicy.go).
//   - Watcher: fsnotify on the directory, so writes by any process are reported (watch.go).
//
// Error texts are docker-agent's, word for word (see shared/spec/docker-agent-plans.md §11.3);
// every domain error also matches one of the kind sentinels (ErrInvalid, ErrPlanNotFound,
// ErrConflict, ErrCorrupt, ErrPathDenied) through errors.Is, so surfaces map kinds to status
// codes without parsing messages.
package sharedplans
