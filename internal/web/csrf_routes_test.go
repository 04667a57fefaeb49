package web

import (
	"net/http"
	"os"
	"regexp"
	"strings"
	"testing"
)

// stateRoute finds every state-changing route in routes.go: r.Post/Put/Delete/Patch("/path", …),
// also after r.With(…).
var stateRoute = regexp.MustCompile(`\.(Post|Put|Delete|Patch)\("(/[^"]*)"`)

// Every state-changing route refuses a cross-site request that carries the browser's cookie, with
// 403 before any handler runs: a route added to routes.go is covered the day it is added.
func TestEveryStateChangingRouteRefusesCrossSite(t *testing.T) {
	ts := newTestServer(t, testConfig{})
	ts.page(t, "/") // the browser's session cookie, which a forged request would carry
	table, err := os.ReadFile("routes.go")
	if err != nil {
		t.Fatal(err)
	}
	routes := stateRoute.FindAllStringSubmatch(string(table), -1)
	if len(routes) < 30 {
		t.Fatalf("found %d state-changing routes in routes.go; the pattern no longer reads the table", len(routes))
	}
	param := regexp.MustCompile(`\{[^}]+\}`)
	for _, m := range routes {
		method, path := strings.ToUpper(m[1]), param.ReplaceAllString(m[2], "x")
		req, err := http.NewRequest(method, ts.URL+path, strings.NewReader("action=approve"))
		if err != nil {
			t.Fatal(err)
		}
		req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
		req.Header.Set("Sec-Fetch-Site", "cross-site")
		req.Header.Set("Origin", "https://evil.example")
		resp, err := ts.client.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		if resp.StatusCode != http.StatusForbidden {
			t.Errorf("cross-site %s %s: %d, want 403", method, m[2], resp.StatusCode)
		}
	}
}
