package views

import (
	"errors"
	"fmt"
	"net/url"
	"path/filepath"
	"strings"
	"unicode/utf8"

	"github.com/plandash/plandash/internal/files"
	"github.com/plandash/plandash/web/templates"
)

// maxFileShown bounds how much of a file plan is read and shown.
const maxFileShown = 1 << 20

// fileView is what a file plan may show for uri: only a file under roots, as a plan's URI comes
// from an agent and the page must never become a way to read arbitrary files. nil roots show
// nothing.
func fileView(roots *files.Roots, uri string) *templates.FileView {
	v := &templates.FileView{}
	path, err := filePath(uri)
	if err != nil {
		v.Err = "Content not shown: " + err.Error() + "."
		return v
	}
	v.Path = path
	if roots == nil {
		v.Err = "Content not shown: start plandash with --allow-root DIR to show plan files under DIR."
		return v
	}
	b, err := roots.Read(path, maxFileShown)
	switch {
	case errors.Is(err, files.ErrNotRegular):
		v.Err = "Content not shown: not a regular file."
	case errors.Is(err, files.ErrTooLarge):
		v.Err = "Content not shown: the file is over 1 MiB."
	case err != nil:
		// The same words whether the file is missing or forbidden: they must not reveal which.
		v.Err = "Content not shown: the file is not readable under the allowed roots (--allow-root)."
	case !utf8.Valid(b):
		v.Err = "Content not shown: the file is not UTF-8 text."
	default:
		v.Content = string(b)
		ext := strings.ToLower(filepath.Ext(path))
		v.Markdown = ext == ".md" || ext == ".markdown"
	}
	return v
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
