package web

import (
	"net/http"
	"net/http/httptest"
	"testing"
)

// Strict-Transport-Security is sent over TLS only: over plain HTTP it means nothing, and a
// browser told it for localhost would force HTTPS on every other local server.
func TestHSTSOnlyUnderTLS(t *testing.T) {
	ts := newTestServer(t, testConfig{Hosts: []string{"plandash.example"}})
	tlsSrv := httptest.NewTLSServer(ts.srv.Handler())
	t.Cleanup(tlsSrv.Close)
	get := func(c *http.Client, url, host string) http.Header {
		t.Helper()
		req, _ := http.NewRequest("GET", url+"/healthz", nil)
		if host != "" {
			req.Host = host
		}
		resp, err := c.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		if resp.StatusCode != 200 {
			t.Fatalf("GET %s (Host %q): %d", url, host, resp.StatusCode)
		}
		return resp.Header
	}
	if got := get(tlsSrv.Client(), tlsSrv.URL, "").Get("Strict-Transport-Security"); got != "max-age=31536000" {
		t.Errorf("over TLS: Strict-Transport-Security %q, want max-age=31536000", got)
	}
	if got := get(tlsSrv.Client(), tlsSrv.URL, "plandash.example").Get("Strict-Transport-Security"); got == "" {
		t.Error("over TLS to a named host: no Strict-Transport-Security")
	}
	if got := get(tlsSrv.Client(), tlsSrv.URL, "localhost").Get("Strict-Transport-Security"); got != "" {
		t.Errorf("over TLS to localhost: Strict-Transport-Security %q, want none", got)
	}
	if got := get(http.DefaultClient, ts.URL, "").Get("Strict-Transport-Security"); got != "" {
		t.Errorf("over plain HTTP: Strict-Transport-Security %q, want none", got)
	}
}
