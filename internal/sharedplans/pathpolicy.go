package sharedplans

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
)

// PathPolicy decides which files update_plan_from_file and export_plan_to_file may touch. The
// tools ask it once per call, with the path exactly as the caller gave it.
type PathPolicy interface {
	// Resolve maps a caller's path to a Location, or fails with an error matching
	// ErrPathDenied when the caller may not use it.
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

// Resolve implements PathPolicy.
func (w WorkingDir) Resolve(path string) (Location, error) {
	p := filepath.Clean(path)
	if !filepath.IsAbs(p) && w != "" {
		p = filepath.Join(string(w), p)
	}
	return Location{Name: p}, nil
}

// AllowedRoots confines the file tools to a set of directories, for remote callers (MCP over
// HTTP, the HTTP API) who must not read or write arbitrary files. Relative paths resolve against
// the first root; absolute paths must lie under one of them; ".." and symlinks may not leave
// the root (enforced by os.Root at use, not just checked here).
type AllowedRoots struct {
	roots []allowedRoot
}

type allowedRoot struct {
	given string // absolute, as configured
	real  string // with symlinks resolved: what os.Root opens
}

// NewAllowedRoots checks that each root is an existing directory and remembers it both as
// given and with symlinks resolved, so callers may name paths through either spelling.
func NewAllowedRoots(roots ...string) (*AllowedRoots, error) {
	if len(roots) == 0 {
		return nil, errors.New("no allowed roots given")
	}
	a := &AllowedRoots{}
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
		a.roots = append(a.roots, allowedRoot{given: abs, real: real})
	}
	return a, nil
}

// Roots returns the allowed directories with symlinks resolved.
func (a *AllowedRoots) Roots() []string {
	out := make([]string, len(a.roots))
	for i, r := range a.roots {
		out[i] = r.real
	}
	return out
}

// Resolve implements PathPolicy.
func (a *AllowedRoots) Resolve(path string) (Location, error) {
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

// withLocation runs fn with the file operations for loc. os.Root refuses every absolute
// symlink, even one pointing back inside the root, so on an escape the path is resolved once by
// hand and, if it really stays inside, fn runs again on the resolved path, still within the
// os.Root. followFinal says whether the last element is followed (reads) or is itself the
// target (writes replace a link there). A real escape comes back as a clear ErrPathDenied error
// naming the caller's path.
func withLocation(loc Location, shown string, followFinal bool, fn func(ops fileOps, name string) error) error {
	if loc.Root == "" {
		return fn(osOps{}, loc.Name)
	}
	r, err := os.OpenRoot(loc.Root)
	if err != nil {
		return fmt.Errorf("opening allowed root: %w", err)
	}
	defer r.Close()
	err = fn(rootOps{r}, loc.Name)
	if isEscape(err) {
		if alt, ok := resolveInside(loc.Root, loc.Name, followFinal); ok && alt != loc.Name {
			err = fn(rootOps{r}, alt)
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
