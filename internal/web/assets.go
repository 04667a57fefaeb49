package web

import (
	"bytes"
	"compress/gzip"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"io/fs"
	"log/slog"
	"mime"
	"net/http"
	"path"
	"slices"
	"strings"

	"github.com/plandash/plandash/web/templates"
	"github.com/plandash/plandash/web/templates/dagview"
)

// assets serves the static files from memory, each compressed once at start-up. Pages load them
// under a directory named after the content of all of them (/static/<version>/js/main.js), so a
// browser keeps them for a year and never asks again, and a release changes every address at
// once: the page script's relative imports stay inside the same version. The plain addresses
// (/static/app.css) still answer, revalidated by ETag, for anything that kept an old link.
type assets struct {
	version string
	log     *slog.Logger
	files   map[string]*asset // by name relative to the static root: "app.css", "js/main.js"
}

// asset is one file and its gzip form (nil when compressing does not make it smaller).
type asset struct {
	body, gz    []byte
	etag, ctype string
}

// immutable is how long a versioned address may be kept: it never changes content.
const immutable = "public, max-age=31536000, immutable"

// newAssets reads every file of fsys, adds extra (generated files, by name), and compresses
// each. It fails only when the embedded files cannot be read, which is a build fault.
func newAssets(fsys fs.FS, extra map[string][]byte, log *slog.Logger) (*assets, error) {
	a := &assets{log: log, files: map[string]*asset{}}
	err := fs.WalkDir(fsys, ".", func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() || path.Ext(p) == ".go" {
			return err
		}
		b, err := fs.ReadFile(fsys, p)
		if err != nil {
			return err
		}
		return a.add(p, b)
	})
	if err != nil {
		return nil, fmt.Errorf("static files: %w", err)
	}
	for name, b := range extra {
		if err := a.add(name, b); err != nil {
			return nil, err
		}
	}
	// The version covers every name and body, in a fixed order.
	names := make([]string, 0, len(a.files))
	for n := range a.files {
		names = append(names, n)
	}
	slices.Sort(names)
	h := sha256.New()
	for _, n := range names {
		fmt.Fprintf(h, "%s\x00%s\x00", n, a.files[n].etag)
	}
	a.version = hex.EncodeToString(h.Sum(nil))[:12]
	return a, nil
}

func (a *assets) add(name string, body []byte) error {
	sum := sha256.Sum256(body)
	ctype := mime.TypeByExtension(path.Ext(name))
	if ctype == "" {
		ctype = "application/octet-stream"
	}
	f := &asset{body: body, etag: `"` + hex.EncodeToString(sum[:8]) + `"`, ctype: ctype}
	var buf bytes.Buffer
	zw, err := gzip.NewWriterLevel(&buf, gzip.BestCompression)
	if err != nil {
		return err
	}
	if _, err := zw.Write(body); err != nil {
		return err
	}
	if err := zw.Close(); err != nil {
		return err
	}
	if buf.Len() < len(body) {
		f.gz = buf.Bytes()
	}
	a.files[name] = f
	return nil
}

// base is the versioned directory pages reference, with its trailing slash.
func (a *assets) base() string { return "/static/" + a.version + "/" }

// withBase tells the templates where the static files are, for every request.
func (a *assets) withBase(next http.Handler) http.Handler {
	base := a.base()
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		next.ServeHTTP(w, r.WithContext(templates.WithAssetBase(r.Context(), base)))
	})
}

// favicon answers the /favicon.ico browsers and tools ask for on their own with the icon the
// pages link to, instead of a 404 in every log.
func (a *assets) favicon(w http.ResponseWriter, r *http.Request) {
	http.Redirect(w, r, a.base()+"favicon.svg", http.StatusMovedPermanently)
}

// ServeHTTP answers GET and HEAD of /static/<version>/NAME (kept for a year) and /static/NAME
// (revalidated). A version other than the current one is not found: its content is gone, and
// serving today's file under yesterday's address would let a browser keep the wrong one.
func (a *assets) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	name := strings.TrimPrefix(r.URL.Path, "/static/")
	cache := "no-cache"
	if v, rest, ok := strings.Cut(name, "/"); ok && v == a.version {
		name, cache = rest, immutable
	}
	f := a.files[name]
	if f == nil {
		writeProblem(w, r, a.log, errNoRoute(r.URL.Path))
		return
	}
	h := w.Header()
	h.Set("Cache-Control", cache)
	h.Set("Content-Type", f.ctype)
	h.Add("Vary", "Accept-Encoding")
	body, etag := f.body, f.etag
	// A strong ETag names one representation, so the gzip form has its own.
	if f.gz != nil && acceptsGzip(r) {
		body, etag = f.gz, strings.TrimSuffix(f.etag, `"`)+`.gz"`
		h.Set("Content-Encoding", "gzip")
	}
	h.Set("ETag", etag)
	if inm := r.Header.Get("If-None-Match"); inm != "" && etagMatches(inm, f.etag) {
		h.Del("Content-Type")
		h.Del("Content-Encoding")
		w.WriteHeader(http.StatusNotModified)
		return
	}
	h.Set("Content-Length", fmt.Sprint(len(body)))
	w.WriteHeader(http.StatusOK)
	if r.Method != http.MethodHead {
		_, _ = w.Write(body)
	}
}

// etagMatches reports whether an If-None-Match list names the file, in either representation
// (the content is the same; only the encoding differs).
func etagMatches(header, etag string) bool {
	gz := strings.TrimSuffix(etag, `"`) + `.gz"`
	for _, t := range strings.Split(header, ",") {
		t = strings.TrimPrefix(strings.TrimSpace(t), "W/")
		if t == "*" || t == etag || t == gz {
			return true
		}
	}
	return false
}

// acceptsGzip reports whether the client takes gzip (and has not refused it with q=0).
func acceptsGzip(r *http.Request) bool {
	for _, part := range strings.Split(r.Header.Get("Accept-Encoding"), ",") {
		coding, params, _ := strings.Cut(strings.TrimSpace(part), ";")
		if !strings.EqualFold(strings.TrimSpace(coding), "gzip") && strings.TrimSpace(coding) != "*" {
			continue
		}
		q := strings.ReplaceAll(strings.TrimSpace(params), " ", "")
		return q != "q=0" && q != "q=0.0" && q != "q=0.00" && q != "q=0.000"
	}
	return false
}

// dagCSS is the diagram stylesheet, its colours tied to the page's theme (served as
// /static/dag.css with the other static files).
func dagCSS() []byte {
	return append([]byte(":root { --dag-bg: var(--panel); --dag-border: var(--border); --dag-node-fill: var(--panel); "+
		"--dag-node-stroke: var(--border); --dag-text: var(--text); }\n"), dagview.CSS...)
}
