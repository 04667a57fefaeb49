package web

import (
	"crypto/ecdh"
	"crypto/rand"
	"encoding/base64"
	"encoding/json"
	"io"
	"net/http"
	"net/url"
	"slices"
	"strings"
	"testing"

	"golang.org/x/net/html"
)

// TestNotifySettingsPage: an admin adds a target with the page's form and sees it listed,
// without its secret or its URL's path (a Slack webhook URL is a credential); a bad target is
// refused with what is wrong; a browser without the token never reaches the page or the API.
func TestNotifySettingsPage(t *testing.T) {
	ts := newTestServer(t, testConfig{})
	ts.page(t, "/?token="+testToken) // the cookie
	resp := ts.form(t, "/settings/notifications/targets", url.Values{"kind": {"slack"}, "url": {"https://hooks.slack.com/services/T1/B2/SECRETPATH"},
		"name": {"team"}, "secret": {"hmac-secret"}, "kinds": {"plan, question"}, "delay": {"30"}})
	if resp.StatusCode != http.StatusSeeOther {
		t.Fatalf("add = %d", resp.StatusCode)
	}
	code, doc := ts.page(t, "/settings/notifications")
	if code != 200 {
		t.Fatalf("page = %d", code)
	}
	targets := all(doc, `[data-testid="target"]`)
	if len(targets) != 1 || attr(targets[0], "data-kind") != "slack" || !strings.Contains(text(targets[0]), "team") || !strings.Contains(text(targets[0]), "after 30s") {
		t.Fatalf("targets = %d: %q", len(targets), text(doc))
	}
	if page := text(doc); strings.Contains(page, "SECRETPATH") || strings.Contains(page, "hmac-secret") {
		t.Fatal("the page shows a secret")
	}
	if key := attr(one(t, doc, `[data-testid="push-panel"]`), "data-vapid"); len(key) != 87 {
		t.Fatalf("VAPID key %q: want 65 bytes, base64url", key)
	}

	resp = ts.form(t, "/settings/notifications/targets", url.Values{"kind": {"ntfy"}, "url": {"ftp://example.com/x"}})
	b, _ := io.ReadAll(resp.Body)
	if resp.StatusCode != 400 || !strings.Contains(string(b), "target url") {
		t.Fatalf("bad target = %d", resp.StatusCode)
	}

	for _, path := range []string{"/settings/notifications", "/api/v1/notify/targets"} {
		resp, err := http.Get(ts.URL + path)
		if err != nil {
			t.Fatal(err)
		}
		b, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		if resp.StatusCode != 401 || strings.Contains(string(b), "SECRETPATH") {
			t.Fatalf("%s without the token = %d", path, resp.StatusCode)
		}
	}
}

// TestServiceWorkerAndManifest: the worker is served from the root with its scope allowed, and
// the manifest names the icons, which are served.
func TestServiceWorkerAndManifest(t *testing.T) {
	ts := newTestServer(t, testConfig{})
	resp, err := http.Get(ts.URL + "/sw.js")
	if err != nil {
		t.Fatal(err)
	}
	b, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if resp.StatusCode != 200 || resp.Header.Get("Service-Worker-Allowed") != "/" || !strings.Contains(string(b), `addEventListener("push"`) {
		t.Fatalf("/sw.js = %d %v", resp.StatusCode, resp.Header)
	}
	for _, p := range []string{"/manifest.webmanifest", "/static/icon-192.png", "/static/icon-512.png"} {
		resp, err := http.Get(ts.URL + p)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		if resp.StatusCode != 200 {
			t.Fatalf("%s = %d", p, resp.StatusCode)
		}
	}
}

// TestTargetKindsForm: a browser subscribed to Web Push can stop being told of sessions that
// only wait for the next prompt: its row's kinds form, with "input" unticked, stores a filter
// of the other kinds; ticking every kind again allows all; nothing ticked, or a kind that does
// not exist, is refused with what is wrong.
func TestTargetKindsForm(t *testing.T) {
	ts := newTestServer(t, testConfig{})
	ts.page(t, "/?token="+testToken) // the cookie
	key, err := ecdh.P256().GenerateKey(rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	code, raw := ts.api(t, "POST", "/api/v1/notify/push", `{"endpoint":"https://push.example.com/sub","keys":{"p256dh":"`+
		base64.RawURLEncoding.EncodeToString(key.PublicKey().Bytes())+`","auth":"AAAAAAAAAAAAAAAAAAAAAA"}}`)
	var sub struct{ ID string }
	if code != 201 || json.Unmarshal(raw, &sub) != nil || sub.ID == "" {
		t.Fatalf("subscribe = %d %s", code, raw)
	}
	kinds := func() map[string]bool {
		_, doc := ts.page(t, "/settings/notifications")
		got := map[string]bool{}
		for _, in := range all(doc, `[data-testid="target-kinds"] input[type="checkbox"]`) {
			got[attr(in, "value")] = slices.ContainsFunc(in.Attr, func(a html.Attribute) bool { return a.Key == "checked" })
		}
		return got
	}
	if got := kinds(); len(got) != 4 || !got["plan"] || !got["input"] {
		t.Fatalf("kinds at first = %v; want all four ticked", got)
	}
	path := "/settings/notifications/targets/" + sub.ID + "/kinds"
	if resp := ts.form(t, path, url.Values{"kind": {"plan", "permission", "question"}}); resp.StatusCode != http.StatusSeeOther {
		t.Fatalf("save = %d", resp.StatusCode)
	}
	if got := kinds(); got["input"] || !got["plan"] || !got["question"] {
		t.Fatalf("kinds after unticking input = %v", got)
	}
	for _, tt := range []struct {
		kinds []string
		want  string
	}{{nil, "at least one"}, {[]string{"plan", "lunch"}, "lunch"}} {
		resp := ts.form(t, path, url.Values{"kind": tt.kinds})
		b, _ := io.ReadAll(resp.Body)
		if resp.StatusCode != 400 || !strings.Contains(string(b), tt.want) {
			t.Fatalf("kinds %v = %d; want 400 saying %q", tt.kinds, resp.StatusCode, tt.want)
		}
	}
	if got := kinds(); got["input"] || !got["plan"] {
		t.Fatalf("a refused form changed the kinds: %v", got)
	}
	if resp := ts.form(t, path, url.Values{"kind": {"plan", "permission", "question", "input"}}); resp.StatusCode != http.StatusSeeOther {
		t.Fatalf("save all = %d", resp.StatusCode)
	}
	_, raw = ts.api(t, "GET", "/api/v1/notify/targets", nil)
	if strings.Contains(string(raw), `"kinds"`) {
		t.Fatalf("every kind ticked should store no filter: %s", raw)
	}
}
