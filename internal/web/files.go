package web

import (
	"fmt"
	"io"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"unicode/utf8"

	"github.com/plandash/plandash/web/templates"
)

// maxFileShown bounds how much of a file plan is read and shown.
const maxFileShown = 1 << 20

// FileRoots reads file plans, but only files under the configured roots: a plan's URI comes
// from an agent, and the page must never become a way to read arbitrary files.
type FileRoots struct {
	roots []string // absolute, symlinks resolved
}

// NewFileRoots resolves the allowed roots once.
func NewFileRoots(dirs []string) (*FileRoots, error) {
	f := &FileRoots{}
	for _, d := range dirs {
		abs, err := filepath.Abs(d)
		if err != nil {
			return nil, fmt.Errorf("--allow-root %q: %w", d, err)
		}
		real, err := filepath.EvalSymlinks(abs)
		if err != nil {
			return nil, fmt.Errorf("--allow-root %q: %w", d, err)
		}
		f.roots = append(f.roots, real)
	}
	return f, nil
}

// View returns what a file plan may show for uri.
func (f *FileRoots) View(uri string) *templates.FileView {
	v := &templates.FileView{}
	path, err := filePath(uri)
	if err != nil {
		v.Err = "Content not shown: " + err.Error() + "."
		return v
	}
	v.Path = path
	if len(f.roots) == 0 {
		v.Err = "Content not shown: start plandash with --allow-root DIR to show plan files under DIR."
		return v
	}
	real, err := filepath.EvalSymlinks(path)
	if err != nil || !f.allowed(real) {
		// The same words whether the file is missing or forbidden: they must not reveal which.
		v.Err = "Content not shown: the file is not readable under the allowed roots (--allow-root)."
		return v
	}
	fh, err := os.Open(real)
	if err != nil {
		v.Err = "Content not shown: the file could not be opened."
		return v
	}
	defer fh.Close()
	if st, err := fh.Stat(); err != nil || !st.Mode().IsRegular() {
		v.Err = "Content not shown: not a regular file."
		return v
	}
	b, err := io.ReadAll(io.LimitReader(fh, maxFileShown+1))
	switch {
	case err != nil:
		v.Err = "Content not shown: the file could not be read."
	case len(b) > maxFileShown:
		v.Err = "Content not shown: the file is over 1 MiB."
	case !utf8.Valid(b):
		v.Err = "Content not shown: the file is not UTF-8 text."
	default:
		v.Content = string(b)
		ext := strings.ToLower(filepath.Ext(real))
		v.Markdown = ext == ".md" || ext == ".markdown"
	}
	return v
}

func (f *FileRoots) allowed(path string) bool {
	for _, r := range f.roots {
		if rel, err := filepath.Rel(r, path); err == nil && rel != ".." && !strings.HasPrefix(rel, ".."+string(filepath.Separator)) && !filepath.IsAbs(rel) {
			return true
		}
	}
	return false
}

// filePath turns a plan's uri (file:///abs/path, or a bare absolute path) into a clean path.
func filePath(uri string) (string, error) {
	if strings.HasPrefix(uri, "/") {
		return filepath.Clean(uri), nil
	}
	u, err := url.Parse(uri)
	if err != nil || u.Scheme != "file" {
		return "", fmt.Errorf("only file: URIs are read")
	}
	if u.Host != "" && u.Host != "localhost" {
		return "", fmt.Errorf("the file is on another host (%s)", u.Host)
	}
	if !filepath.IsAbs(u.Path) {
		return "", fmt.Errorf("the file path is not absolute")
	}
	return filepath.Clean(u.Path), nil
}
