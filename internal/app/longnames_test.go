package app

import (
	"context"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"strings"
	"testing"

	"github.com/plandash/plandash/internal/web"
)

// TestLongNamesAreRefusedClearly sends names and ids of 300 characters (and more) wherever a
// route or a body takes one, as a careless or hostile client would: each gets a 4xx that says
// what is wrong, never a 500 (a file name over the file system's limit was one), and the
// refusal of a shared-plan name does not echo the name back.
func TestLongNamesAreRefusedClearly(t *testing.T) {
	const MaxEcho = 241
	data := t.TempDir()
	a, err := Open(context.Background(), Config{Config: web.Config{Log: slog.New(slog.DiscardHandler)},
		DataDir: data, Token: "tok", PlansDir: filepath.Join(data, "plans")})
	if err != nil {
		t.Fatal(err)
	}
	defer a.Close()
	hs := httptest.NewServer(a.Server.Handler())
	defer hs.Close()
	for _, n := range []int{241, 300, 5000} {
		long := strings.Repeat("a", n)
		for _, c := range []struct {
			method, path, body string
			want               string // in the answer, when set
		}{
			{"GET", "/api/v1/shared-plans/" + long, "", "at most 240"},
			{"PUT", "/api/v1/shared-plans/" + long, `{"content":"x"}`, "at most 240"},
			{"POST", "/api/v1/shared-plans", `{"name":"` + long + `","content":"x"}`, "at most 240"},
			{"GET", "/api/v1/shared-plans/" + long + "/status", "", "at most 240"},
			{"PUT", "/api/v1/shared-plans/" + long + "/status", `{"status":"x"}`, "at most 240"},
			{"DELETE", "/api/v1/shared-plans/" + long, "", "at most 240"},
			{"GET", "/api/v1/shared-plans/" + long + "/history", "", ""},
			{"POST", "/api/v1/shared-plans/-/tools/write_plan", `{"name":"` + long + `","content":"x"}`, "at most 240"},
			{"GET", "/shared/" + long, "", ""},
			{"POST", "/api/v1/tokens", `{"name":"` + long + `","scope":"ingest"}`, ""},
			{"DELETE", "/api/v1/tokens/" + long, "", ""},
			{"GET", "/api/v1/sessions/" + long, "", ""},
			{"GET", "/api/v1/sessions/" + long + "/tool-calls", "", ""},
			{"POST", "/api/v1/sessions/" + long + "/end", "", ""},
			{"GET", "/api/v1/sessions/s/plans/" + long + "/history", "", ""},
			{"GET", "/api/v1/approvals/" + long, "", ""},
			{"POST", "/api/v1/approvals/" + long + "/decision", `{"outcome":"approve"}`, ""},
			{"GET", "/sessions/" + long, "", ""},
			{"GET", "/approvals/" + long, "", ""},
		} {
			req, _ := http.NewRequest(c.method, hs.URL+c.path, strings.NewReader(c.body))
			req.Header.Set("Authorization", "Bearer tok")
			req.Header.Set("Content-Type", "application/json")
			res, err := http.DefaultClient.Do(req)
			if err != nil {
				t.Fatal(err)
			}
			b, _ := io.ReadAll(res.Body)
			res.Body.Close()
			where := c.method + " " + strings.Replace(c.path, long, "<"+string(rune('0'+n%10))+"…>", 1)
			if res.StatusCode >= 500 || res.StatusCode < 400 && c.method != "GET" {
				t.Errorf("%s with a %d-character name: %d %.300s", where, n, res.StatusCode, b)
				continue
			}
			// A name in the path is a bad request (400); one in a JSON body is an invalid
			// argument, which the house answers 422 as for any bad field.
			wantStatus := 400
			if c.body != "" && strings.Contains(c.body, long) {
				wantStatus = 422
			}
			if c.want == "" {
				continue
			}
			if res.StatusCode != wantStatus || !strings.Contains(string(b), c.want) {
				t.Errorf("%s with a %d-character name: %d %.300s; want %d saying %q", where, n, res.StatusCode, b, wantStatus, c.want)
			}
			if strings.Contains(string(b), strings.Repeat("a", MaxEcho)) {
				t.Errorf("%s echoes the %d-character name back", where, n)
			}
		}
	}
}
