package files

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/plandash/plandash/internal/errs"
)

// Policy decides which files update_plan_from_file and export_plan_to_file may touch. The
// tools ask it once per call, with the path exactly as the caller gave it.
type Policy interface {
	// Resolve maps a caller's path to a Location, or fails with an error matching
	// ErrDenied when the caller may not use it.
	Resolve(path string) (Location, error)
}

// Location is a resolved file path. With Root set, Name is relative to Root and every file
// operation runs inside an *os.Root opened there, so neither ".." nor a symlink met along the
// way (now or swapped in later) can leave it. With Root empty, Name is an ordinary OS path.
type Location struct {
	Root string
	Name string
}

// WorkingDir resolves relative paths against a directory and lets absolute paths through:
// docker-agent's own behaviour, right for stdio MCP where the caller is a local agent that can
// touch these files anyway. The empty WorkingDir means the process's working directory.
type WorkingDir string

// Resolve implements Policy.
func (w WorkingDir) Resolve(path string) (Location, error) {
	p := filepath.Clean(path)
	if !filepath.IsAbs(p) && w != "" {
		p = filepath.Join(string(w), p)
	}
	return Location{Name: p}, nil
}

// Roots confines the file tools to a set of directories, for remote callers (MCP over
// HTTP, the HTTP API) who must not read or write arbitrary files. Relative paths resolve against
// the first root; absolute paths must lie under one of them; ".." and symlinks may not leave
// the root (enforced by os.Root at use, not just checked here).
type Roots struct {
	roots []root
}

type root struct {
	given string // absolute, as configured
	real  string // with symlinks resolved: what os.Root opens
}

// NewRoots checks that each root is an existing directory and remembers it both as
// given and with symlinks resolved, so callers may name paths through either spelling.
func NewRoots(roots ...string) (*Roots, error) {
	if len(roots) == 0 {
		return nil, errors.New("no allowed roots given")
	}
	a := &Roots{}
	for _, r := range roots {
		abs, err := filepath.Abs(r)
		if err != nil {
			return nil, fmt.Errorf("allowed root %q: %w", r, err)
		}
		real, err := filepath.EvalSymlinks(abs)
		if err != nil {
			return nil, fmt.Errorf("allowed root %q: %w", r, err)
		}
		if fi, err := os.Stat(real); err != nil || !fi.IsDir() {
			return nil, fmt.Errorf("allowed root %q is not a directory", r)
		}
		a.roots = append(a.roots, root{given: abs, real: real})
	}
	return a, nil
}

// Roots returns the allowed directories with symlinks resolved.
func (a *Roots) Roots() []string {
	out := make([]string, len(a.roots))
	for i, r := range a.roots {
		out[i] = r.real
	}
	return out
}

// Resolve implements Policy.
func (a *Roots) Resolve(path string) (Location, error) {
	p := filepath.Clean(path)
	if !filepath.IsAbs(p) {
		if !local(p) {
			return Location{}, deniedf("path %q is outside the allowed directories", path)
		}
		return Location{Root: a.roots[0].real, Name: p}, nil
	}
	for _, r := range a.roots {
		for _, base := range []string{r.given, r.real} {
			if rel, err := filepath.Rel(base, p); err == nil && local(rel) {
				return Location{Root: r.real, Name: rel}, nil
			}
		}
	}
	return Location{}, deniedf("path %q is outside the allowed directories", path)
}

// local reports whether a cleaned relative path stays below its base.
func local(rel string) bool {
	return rel != ".." && !strings.HasPrefix(rel, ".."+string(filepath.Separator)) && !filepath.IsAbs(rel)
}

// With runs fn with the file operations for loc. os.Root refuses every absolute
// symlink, even one pointing back inside the root, so on an escape the path is resolved once by
// hand and, if it really stays inside, fn runs again on the resolved path, still within the
// os.Root. followFinal says whether the last element is followed (reads) or is itself the
// target (writes replace a link there). A real escape comes back as a clear ErrDenied error
// naming the caller's path.
func With(loc Location, shown string, followFinal bool, fn func(ops Ops, name string) error) error {
	if loc.Root == "" {
		return fn(OSOps{}, loc.Name)
	}
	r, err := os.OpenRoot(loc.Root)
	if err != nil {
		return fmt.Errorf("opening allowed root: %w", err)
	}
	defer r.Close()
	err = fn(RootOps{r}, loc.Name)
	if isEscape(err) {
		if alt, ok := resolveInside(loc.Root, loc.Name, followFinal); ok && alt != loc.Name {
			err = fn(RootOps{r}, alt)
		}
	}
	if isEscape(err) {
		return deniedf("path %q escapes the allowed directories", shown)
	}
	return err
}

func isEscape(err error) bool {
	return err != nil && strings.Contains(err.Error(), "path escapes from parent")
}

// resolveInside resolves the symlinks of root/name (the deepest part that exists) and returns
// the result relative to root if it stays inside.
func resolveInside(root, name string, followFinal bool) (string, bool) {
	full := filepath.Join(root, name)
	var tail []string
	if !followFinal {
		tail = append(tail, filepath.Base(full))
		full = filepath.Dir(full)
	}
	for {
		real, err := filepath.EvalSymlinks(full)
		if err == nil {
			parts := append([]string{real}, tail...)
			rel, err := filepath.Rel(root, filepath.Join(parts...))
			return rel, err == nil && local(rel)
		}
		parent := filepath.Dir(full)
		if parent == full {
			return "", false
		}
		tail = append([]string{filepath.Base(full)}, tail...)
		full = parent
	}
}

// ErrDenied is a path outside what a Policy allows; every refusal matches it with errors.Is.
var ErrDenied = errs.New(errs.Forbidden, "path not allowed")

// deniedError carries the refusal's own words and matches ErrDenied.
type deniedError struct{ msg string }

func (e *deniedError) Error() string        { return e.msg }
func (e *deniedError) Is(target error) bool { return target == ErrDenied }
func (e *deniedError) ErrorKind() errs.Kind { return errs.Forbidden }

func deniedf(format string, args ...any) error {
	return &deniedError{msg: fmt.Sprintf(format, args...)}
}
