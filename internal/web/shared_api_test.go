package web

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/plandash/plandash/internal/sharedplans"
)

// TestSharedAPI runs each request of the shared-plans API against a fixed directory: "release"
// at revision 2, "broken" with corrupt JSON, and a fresh name for each create. Each case says
// the status, the problem code and a part of the detail (docker-agent's texts where it has one).
func TestSharedAPI(t *testing.T) {
	big := strings.Repeat("x", sharedplans.MaxContentSize+1)
	for _, tt := range []struct {
		name         string
		method, path string
		body         string
		hdr          map[string]string
		status       int
		code         string // problem code; "" for a success
		detail       string // part of the problem detail, or of the body on success
		etag         string
		noAuth       bool
	}{
		// Reading.
		{name: "list", method: "GET", path: "", status: 200, detail: `"name": "release"`},
		{name: "list warns of a corrupt file", method: "GET", path: "", status: 200, detail: `skipped \"broken\": plan file broken.json is corrupt`},
		{name: "get", method: "GET", path: "/release", status: 200, detail: `"revision": 2`, etag: `"2"`},
		{name: "get unchanged (If-None-Match)", method: "GET", path: "/release", hdr: map[string]string{"If-None-Match": `"2"`}, status: 304, etag: `"2"`},
		{name: "get missing", method: "GET", path: "/nope", status: 404, code: "not_found", detail: `plan "nope" not found`},
		{name: "get invalid name", method: "GET", path: "/Bad.Name", status: 400, code: "invalid_argument", detail: `invalid plan name "Bad.Name"`},
		{name: "get corrupt", method: "GET", path: "/broken", status: 409, code: "corrupt", detail: "plan file broken.json is corrupt"},
		{name: "no token", method: "GET", path: "/release", status: 401, noAuth: true},

		// Writing.
		{name: "create with PUT", method: "PUT", path: "/fresh", body: `{"content":"# New"}`, status: 201, detail: `"revision": 1`, etag: `"1"`},
		{name: "update guarded by If-Match", method: "PUT", path: "/release", body: `{"content":"v3"}`, hdr: map[string]string{"If-Match": `"2"`}, status: 200, etag: `"3"`},
		{name: "update guarded in the body", method: "POST", path: "/release", body: `{"content":"v3","last_known_revision":2}`, status: 200, etag: `"3"`},
		{name: "stale If-Match is 412", method: "PUT", path: "/release", body: `{"content":"v3"}`, hdr: map[string]string{"If-Match": `"1"`}, status: 412, code: "conflict",
			detail: `version conflict on plan "release": last_known_revision 1 does not match current revision 2; re-read the plan and retry`},
		{name: "stale body guard is 409", method: "PUT", path: "/release", body: `{"content":"v3","last_known_revision":1}`, status: 409, code: "conflict", detail: "last_known_revision 1 does not match current revision 2"},
		{name: "weak ETag guard", method: "PUT", path: "/release", body: `{"content":"v3"}`, hdr: map[string]string{"If-Match": `W/"2"`}, status: 200, etag: `"3"`},
		{name: "If-Match * on a missing plan", method: "PUT", path: "/fresh", body: `{"content":"x"}`, hdr: map[string]string{"If-Match": "*"}, status: 412, code: "not_found"},
		{name: "If-None-Match * on an existing plan", method: "PUT", path: "/release", body: `{"content":"x"}`, hdr: map[string]string{"If-None-Match": "*"}, status: 412, code: "conflict"},
		{name: "If-None-Match * creates", method: "PUT", path: "/fresh", body: `{"content":"x"}`, hdr: map[string]string{"If-None-Match": "*"}, status: 201},
		{name: "header and body guards disagree", method: "PUT", path: "/release", body: `{"content":"x","last_known_revision":1}`, hdr: map[string]string{"If-Match": `"2"`}, status: 400, code: "invalid_argument", detail: "disagree"},
		{name: "If-Match list", method: "PUT", path: "/release", body: `{"content":"x"}`, hdr: map[string]string{"If-Match": `"1", "2"`}, status: 400, code: "invalid_argument"},
		{name: "empty content", method: "PUT", path: "/release", body: `{"content":""}`, status: 422, code: "invalid_argument", detail: "content must not be empty"},
		{name: "no content", method: "PUT", path: "/release", body: `{"title":"t"}`, status: 422, code: "invalid_argument", detail: "content must not be empty"},
		{name: "content over 10 MiB", method: "PUT", path: "/release", body: mustJSON(t, map[string]string{"content": big}), status: 422, code: "invalid_argument", detail: "content is too large to store (10485761 bytes; max 10485760)"},
		{name: "not JSON", method: "PUT", path: "/release", body: `content=x`, status: 400, code: "invalid_argument"},
		{name: "unknown field", method: "PUT", path: "/release", body: `{"content":"x","revison":2}`, status: 400, code: "invalid_argument", detail: "revison"},
		{name: "body names another plan", method: "PUT", path: "/release", body: `{"name":"other","content":"x"}`, status: 400, code: "invalid_argument"},
		{name: "write over a corrupt file", method: "PUT", path: "/broken", body: `{"content":"x"}`, status: 409, code: "corrupt"},
		{name: "write with an invalid name", method: "PUT", path: "/Bad", body: `{"content":"x"}`, status: 400, code: "invalid_argument", detail: "invalid plan name"},
		{name: "create with POST", method: "POST", path: "", body: `{"name":"fresh","content":"x","status":"draft"}`, status: 201, detail: `"status": "draft"`},
		{name: "create an existing plan", method: "POST", path: "", body: `{"name":"release","content":"x"}`, status: 409, code: "conflict",
			detail: `plan "release" already exists (current version 2); pick a different name, or update the existing plan`},
		{name: "create with an invalid name", method: "POST", path: "", body: `{"name":"../etc","content":"x"}`, status: 422, code: "invalid_argument", detail: "invalid plan name"},

		// Status.
		{name: "get status", method: "GET", path: "/release/status", status: 200, detail: `"status": "draft"`, etag: `"2"`},
		{name: "set status", method: "PUT", path: "/release/status", body: `{"status":"done"}`, hdr: map[string]string{"If-Match": `"2"`}, status: 200, detail: `"revision": 3`, etag: `"3"`},
		{name: "set an empty status", method: "PUT", path: "/release/status", body: `{"status":""}`, status: 422, code: "invalid_argument", detail: "status must not be empty"},
		{name: "set status of a missing plan", method: "POST", path: "/nope/status", body: `{"status":"done","last_known_revision":4}`, status: 404, code: "not_found", detail: `plan not found: "nope"`},
		{name: "set status with a stale guard", method: "PUT", path: "/release/status", body: `{"status":"done"}`, hdr: map[string]string{"If-Match": `"7"`}, status: 412, code: "conflict"},

		// Deleting.
		{name: "delete guarded", method: "DELETE", path: "/release", hdr: map[string]string{"If-Match": `"2"`}, status: 200, detail: `"deleted": "release"`},
		{name: "delete with a stale guard", method: "DELETE", path: "/release", hdr: map[string]string{"If-Match": `"1"`}, status: 412, code: "conflict"},
		{name: "delete missing", method: "DELETE", path: "/nope", status: 404, code: "not_found", detail: `plan "nope" not found`},
		{name: "delete corrupt, guarded", method: "DELETE", path: "/broken", hdr: map[string]string{"If-Match": `"1"`}, status: 409, code: "corrupt"},
		{name: "delete corrupt, unguarded (recovery)", method: "DELETE", path: "/broken", status: 200},

		// The tools, by name.
		{name: "tool read_plan", method: "POST", path: "/-/tools/read_plan", body: `{"name":"release"}`, status: 200, detail: `{"name":"release","title":"Release","content":"v2","author":"architect","status":"draft","revision":2,`},
		{name: "tool with a conflict", method: "POST", path: "/-/tools/write_plan", body: `{"name":"release","content":"x","last_known_revision":0}`, status: 409, code: "conflict"},
		{name: "tool export outside the allowed roots", method: "POST", path: "/-/tools/export_plan_to_file", body: `{"name":"release","path":"/etc/plandash-test"}`, status: 403, code: "path_denied", detail: "outside the allowed directories"},
		{name: "tool path traversal", method: "POST", path: "/-/tools/update_plan_from_file", body: `{"name":"release","path":"../../../etc/passwd"}`, status: 403, code: "path_denied"},
		{name: "unknown tool", method: "POST", path: "/-/tools/format_disk", body: `{}`, status: 404, code: "not_found"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			root := t.TempDir()
			ts := newSharedServer(t, false, testConfig{AllowRoots: []string{root}})
			ts.write(t, "release", "v1", "Release", "architect", "draft")
			ts.write(t, "release", "v2")
			if err := os.WriteFile(filepath.Join(ts.dir, "broken.json"), []byte("{nope"), 0o600); err != nil {
				t.Fatal(err)
			}
			hdr := map[string]string{}
			for k, v := range tt.hdr {
				hdr[k] = v
			}
			if tt.noAuth {
				hdr["Authorization"] = ""
			}
			code, h, body := ts.call(t, tt.method, "/api/v1/shared-plans"+tt.path, tt.body, hdr)
			if code != tt.status {
				t.Fatalf("status %d, want %d; body %s", code, tt.status, body)
			}
			if tt.etag != "" && h.Get("ETag") != tt.etag {
				t.Errorf("ETag %q, want %q", h.Get("ETag"), tt.etag)
			}
			if tt.code == "" {
				if !strings.Contains(string(body), tt.detail) {
					t.Errorf("body %s does not contain %q", body, tt.detail)
				}
				return
			}
			var p Problem
			if err := json.Unmarshal(body, &p); err != nil || h.Get("Content-Type") != "application/problem+json" {
				t.Fatalf("not a problem (%s): %s", h.Get("Content-Type"), body)
			}
			if p.Status != code || p.Code != tt.code || !strings.Contains(p.Detail, tt.detail) {
				t.Errorf("problem %+v, want code %q and detail containing %q", p, tt.code, tt.detail)
			}
			if p.Code == "conflict" && strings.Contains(p.Detail, "last_known_revision") && (p.ExpectedRevision == nil || p.CurrentRevision == nil || p.Name == "") {
				t.Errorf("a conflict problem names the plan and both revisions: %s", body)
			}
		})
	}
}

// TestSharedAPIWritesLandOnDisk checks the file itself and the history after API writes: the
// API is only useful if docker-agent then reads what it wrote.
func TestSharedAPIWritesLandOnDisk(t *testing.T) {
	ts := newSharedServer(t, false, testConfig{})
	code, _, body := ts.call(t, "PUT", "/api/v1/shared-plans/release", `{"content":"step 1","title":"Release","author":"me","status":"draft"}`, nil)
	if code != 201 {
		t.Fatalf("%d %s", code, body)
	}
	// An explicit "" clears a field (docker-agent's host semantics); an omitted one is kept.
	code, _, body = ts.call(t, "PUT", "/api/v1/shared-plans/release", `{"content":"step 2","status":""}`, map[string]string{"If-Match": `"1"`})
	if code != 200 {
		t.Fatalf("%d %s", code, body)
	}
	raw, err := os.ReadFile(filepath.Join(ts.dir, "release.json"))
	if err != nil {
		t.Fatal(err)
	}
	p, err := sharedplans.DecodePlan(raw)
	if err != nil || p.Content != "step 2" || p.Title != "Release" || p.Author != "me" || p.Status != "" || p.Revision != 2 {
		t.Fatalf("file = %s (%v)", raw, err)
	}
	if enc, _ := sharedplans.EncodePlan(p); string(enc) != string(raw) {
		t.Fatalf("the file is not in docker-agent's exact encoding:\n%s\nwant\n%s", raw, enc)
	}
	// The writes were recorded as the API's at once, without waiting for a watcher.
	code, _, body = ts.call(t, "GET", "/api/v1/shared-plans/release/history", "", nil)
	var h struct {
		Entries []struct {
			Seq      int64  `json:"seq"`
			Revision int    `json:"revision"`
			Source   string `json:"source"`
		} `json:"entries"`
	}
	if code != 200 || json.Unmarshal(body, &h) != nil || len(h.Entries) != 2 || h.Entries[0].Revision != 2 || h.Entries[0].Source != "api" {
		t.Fatalf("history %d %s", code, body)
	}
	code, _, body = ts.call(t, "GET", "/api/v1/shared-plans/release/history?seq="+itoa(uint64(h.Entries[1].Seq)), "", nil)
	if code != 200 || !strings.Contains(string(body), `"content": "step 1"`) {
		t.Fatalf("history entry %d %s", code, body)
	}
}
