package web

import (
	"io"
	"io/fs"
	"mime"
	"net/http"
	"path"
	"regexp"
	"strings"
	"testing"

	"github.com/plandash/plandash/web/static"
	"golang.org/x/net/html"
)

// importRe finds the static imports of a module ("import … from './x.js'"); the page script
// uses no dynamic imports.
var importRe = regexp.MustCompile(`(?m)^\s*import\s[^;]*?from\s+"(\./[^"]+)"`)

// versioned is the content-named static directory pages load their files from.
var versioned = regexp.MustCompile(`^/static/[0-9a-f]{12}/`)

// Every page loads its script as ES modules from /static; each module and everything it imports
// is served as JavaScript (browsers refuse modules of any other type), and every module in
// web/static/js is reached from some page.
func TestPageModulesAreServed(t *testing.T) {
	ts := newTestServer(t, testConfig{})
	tests := []struct {
		name, path string
		login      bool
		want       string // the module the page loads, under the versioned static directory
	}{
		{"overview", "/", true, "js/main.js"},
		{"approvals", "/approvals", true, "js/main.js"},
		{"shared", "/shared", true, "js/main.js"},
		{"embed", "/embed", true, "js/main.js"},
		{"embed boot", "/embed", false, "js/boot.js"},
	}
	reached := map[string]bool{}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			var doc *html.Node
			if tc.login {
				_, doc = ts.page(t, tc.path)
			} else {
				resp, err := http.Get(ts.URL + tc.path) // no cookie: the boot page
				if err != nil {
					t.Fatal(err)
				}
				defer resp.Body.Close()
				if doc, err = html.Parse(resp.Body); err != nil {
					t.Fatal(err)
				}
			}
			var srcs []string
			for _, s := range all(doc, "script") {
				if attr(s, "type") != "module" {
					t.Errorf("%s has a classic script %q: every script is a module", tc.path, attr(s, "src"))
				}
				srcs = append(srcs, attr(s, "src"))
			}
			if len(srcs) != 1 || !versioned.MatchString(srcs[0]) || !strings.HasSuffix(srcs[0], "/"+tc.want) {
				t.Fatalf("%s loads %q, want only /static/<version>/%s", tc.path, srcs, tc.want)
			}
			walkModules(t, ts, srcs[0], reached)
		})
	}
	files, err := fs.Glob(static.FS, "js/*.js")
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range files {
		if !reached[f] {
			t.Errorf("web/static/%s is not loaded by any page: delete it or import it", f)
		}
	}
}

// walkModules fetches the module at p and, once each, everything it imports.
func walkModules(t *testing.T, ts *testServer, p string, seen map[string]bool) {
	t.Helper()
	if seen[versioned.ReplaceAllString(p, "")] {
		return
	}
	seen[versioned.ReplaceAllString(p, "")] = true
	resp, err := ts.client.Get(ts.URL + p)
	if err != nil {
		t.Fatal(err)
	}
	body, err := io.ReadAll(resp.Body)
	resp.Body.Close()
	if err != nil {
		t.Fatal(err)
	}
	ct, _, _ := mime.ParseMediaType(resp.Header.Get("Content-Type"))
	if resp.StatusCode != http.StatusOK || ct != "text/javascript" {
		t.Fatalf("GET %s: %d %q, want 200 text/javascript", p, resp.StatusCode, resp.Header.Get("Content-Type"))
	}
	if csp := resp.Header.Get("Content-Security-Policy"); !strings.Contains(csp, "script-src 'self'") {
		t.Errorf("GET %s: CSP %q", p, csp)
	}
	for _, m := range importRe.FindAllStringSubmatch(string(body), -1) {
		walkModules(t, ts, path.Join(path.Dir(p), m[1]), seen)
	}
}

// Browsers and tools ask for /favicon.ico on their own, without a token: they get the icon the
// pages link to, not a 404.
func TestFaviconICO(t *testing.T) {
	ts := newTestServer(t, testConfig{})
	resp, err := http.Get(ts.URL + "/favicon.ico")
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	body, _ := io.ReadAll(resp.Body)
	if resp.StatusCode != http.StatusOK || resp.Header.Get("Content-Type") != "image/svg+xml" || !versioned.MatchString(resp.Request.URL.Path) || !strings.Contains(string(body), "<svg") {
		t.Fatalf("/favicon.ico: %d %q at %s", resp.StatusCode, resp.Header.Get("Content-Type"), resp.Request.URL.Path)
	}
}
