package web

import (
	"bytes"
	"compress/gzip"
	"io"
	"net/http"
	"strings"
	"testing"
	"testing/fstest"

	"github.com/plandash/plandash/web/static"
)

// rawGet fetches path without the client's transparent gzip, so the test sees the bytes on the
// wire and the headers as sent.
func rawGet(t *testing.T, ts *testServer, path string, hdr map[string]string) (*http.Response, []byte) {
	t.Helper()
	req, err := http.NewRequest(http.MethodGet, ts.URL+path, nil)
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Accept-Encoding", "identity")
	for k, v := range hdr {
		req.Header.Set(k, v)
	}
	tr := &http.Transport{DisableCompression: true}
	defer tr.CloseIdleConnections()
	resp, err := (&http.Client{Transport: tr, Jar: ts.client.Jar}).Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatal(err)
	}
	return resp, b
}

func gunzip(t *testing.T, b []byte) []byte {
	t.Helper()
	zr, err := gzip.NewReader(bytes.NewReader(b))
	if err != nil {
		t.Fatalf("not gzip: %v", err)
	}
	out, err := io.ReadAll(zr)
	if err != nil {
		t.Fatal(err)
	}
	return out
}

// The static files answer with the right caching for their address: a versioned address is
// kept for a year, a plain one revalidated; both carry a strong ETag that a 304 honours, in
// either encoding, and gzip is sent only to clients that take it.
func TestStaticFilesAreCachedAndCompressed(t *testing.T) {
	ts := newTestServer(t, testConfig{})
	version := ts.srv.assets.version
	want, err := static.FS.ReadFile("app.css")
	if err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name, path string
		hdr        map[string]string
		status     int
		cache      string
		gzip       bool
	}{
		{"versioned", "/static/" + version + "/app.css", nil, 200, immutable, false},
		{"versioned gzip", "/static/" + version + "/app.css", map[string]string{"Accept-Encoding": "gzip, br"}, 200, immutable, true},
		{"gzip refused", "/static/" + version + "/app.css", map[string]string{"Accept-Encoding": "gzip;q=0"}, 200, immutable, false},
		{"plain", "/static/app.css", map[string]string{"Accept-Encoding": "gzip"}, 200, "no-cache", true},
		{"old version", "/static/000000000000/app.css", nil, 404, "", false},
		{"missing", "/static/nope.css", nil, 404, "", false},
		{"generated", "/static/" + version + "/dag.css", nil, 200, immutable, false},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			resp, body := rawGet(t, ts, tc.path, tc.hdr)
			if resp.StatusCode != tc.status {
				t.Fatalf("GET %s: %d, want %d", tc.path, resp.StatusCode, tc.status)
			}
			if tc.status != 200 {
				return
			}
			if got := resp.Header.Get("Cache-Control"); got != tc.cache {
				t.Errorf("Cache-Control %q, want %q", got, tc.cache)
			}
			etag := resp.Header.Get("ETag")
			if !strings.HasPrefix(etag, `"`) || len(etag) < 10 {
				t.Errorf("ETag %q, want a strong tag", etag)
			}
			if gz := resp.Header.Get("Content-Encoding") == "gzip"; gz != tc.gzip {
				t.Fatalf("Content-Encoding %q, want gzip=%v", resp.Header.Get("Content-Encoding"), tc.gzip)
			}
			if tc.gzip {
				body = gunzip(t, body)
			}
			if strings.HasSuffix(tc.path, "app.css") && !bytes.Equal(body, want) {
				t.Errorf("body is not app.css (%d bytes, want %d)", len(body), len(want))
			}
			if strings.HasSuffix(tc.path, "dag.css") && !bytes.Contains(body, []byte("--dag-bg")) {
				t.Errorf("dag.css lacks the theme variables")
			}
			again, rest := rawGet(t, ts, tc.path, map[string]string{"If-None-Match": etag, "Accept-Encoding": "gzip"})
			if again.StatusCode != http.StatusNotModified || len(rest) != 0 {
				t.Errorf("revalidation with %s: %d and %d bytes, want 304 and none", etag, again.StatusCode, len(rest))
			}
		})
	}
}

// Every page references its static files under the current version, so they are the ones kept.
func TestPagesReferenceVersionedAssets(t *testing.T) {
	ts := newTestServer(t, testConfig{})
	base := ts.srv.assets.base()
	for _, p := range []string{"/", "/sessions", "/approvals", "/shared", "/embed"} {
		_, doc := ts.page(t, p)
		for _, sel := range []string{`link[rel=stylesheet]`, `link[rel=icon]`, `script`} {
			for _, n := range all(doc, sel) {
				u := attr(n, "href") + attr(n, "src")
				if !strings.HasPrefix(u, base) {
					t.Errorf("%s: %s references %q, want it under %s", p, sel, u, base)
				}
				if resp, _ := rawGet(t, ts, u, nil); resp.StatusCode != 200 || resp.Header.Get("Cache-Control") != immutable {
					t.Errorf("%s: GET %s: %d %q", p, u, resp.StatusCode, resp.Header.Get("Cache-Control"))
				}
			}
		}
	}
}

// The version names the content: any change to any file gives a new one.
func TestAssetVersionFollowsContent(t *testing.T) {
	build := func(css string) string {
		a, err := newAssets(fstest.MapFS{"app.css": {Data: []byte(css)}, "js/main.js": {Data: []byte("x")}}, nil, nil)
		if err != nil {
			t.Fatal(err)
		}
		return a.version
	}
	if one, again := build("a{}"), build("a{}"); one != again {
		t.Error("the same files gave two versions")
	}
	if build("a{}") == build("b{}") {
		t.Error("different files gave the same version")
	}
}

// Pages and JSON are compressed for a client that takes gzip, never for one that does not nor
// when they are small, and the answer says it varies with Accept-Encoding.
func TestPagesAreCompressed(t *testing.T) {
	ts := newTestServer(t, testConfig{})
	ts.page(t, "/") // signs the client in
	tests := []struct {
		name, path, enc string
		hdr             map[string]string
		gzip            bool
	}{
		{"page gzip", "/", "gzip", nil, true},
		{"page identity", "/", "identity", nil, false},
		{"json gzip", "/api/v1/plans", "gzip", map[string]string{"Authorization": "Bearer " + testToken}, true},
		{"error page gzip", "/no/such/page", "gzip", map[string]string{"Accept": "text/html"}, true},
		// An answer under a kilobyte that says its length costs more to compress than it saves.
		{"small json as it is", "/api/v1/approvals/count", "gzip", map[string]string{"Authorization": "Bearer " + testToken}, false},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			hdr := map[string]string{"Accept-Encoding": tc.enc}
			for k, v := range tc.hdr {
				hdr[k] = v
			}
			resp, body := rawGet(t, ts, tc.path, hdr)
			if got := resp.Header.Get("Content-Encoding") == "gzip"; got != tc.gzip {
				t.Fatalf("Content-Encoding %q, want gzip=%v", resp.Header.Get("Content-Encoding"), tc.gzip)
			}
			if !strings.Contains(resp.Header.Get("Vary"), "Accept-Encoding") {
				t.Errorf("Vary %q lacks Accept-Encoding", resp.Header.Get("Vary"))
			}
			if tc.gzip {
				body = gunzip(t, body)
			}
			if len(body) == 0 {
				t.Error("empty body")
			}
		})
	}
}
