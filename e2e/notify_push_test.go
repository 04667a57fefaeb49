package e2e

import (
	"encoding/json"
	"net"
	"net/http"
	"net/http/httptest"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/chromedp/cdproto/browser"
	"github.com/chromedp/cdproto/cdp"
	"github.com/chromedp/cdproto/serviceworker"
	"github.com/chromedp/chromedp"
	pdapp "github.com/plandash/plandash/internal/app"
	"github.com/plandash/plandash/internal/notify"
)

// pushApp serves plandash with a loopback webhook target, whose bodies carry the same answer
// links a push does: the test hands them to the service worker as a push.
type pushApp struct {
	*app
	mu    sync.Mutex
	hooks []notify.WebhookBody
}

func startPushApp(t *testing.T) *pushApp {
	pa := &pushApp{}
	rc := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		var b notify.WebhookBody
		json.NewDecoder(r.Body).Decode(&b)
		pa.mu.Lock()
		pa.hooks = append(pa.hooks, b)
		pa.mu.Unlock()
	}))
	t.Cleanup(rc.Close)
	target, err := notify.ParseFlag("webhook+"+rc.URL+"/hook", 1)
	if err != nil {
		t.Fatal(err)
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	pa.app = serveConfig(t, ln, pdapp.Config{Notify: []notify.Target{target}})
	return pa
}

// submit asks for approval of a short plan and returns its wait's push payload, as plandash's
// Web Push sender builds it, with the answer links plandash made.
func (pa *pushApp) submit(t *testing.T, title string) (string, map[string]any) {
	t.Helper()
	body := `{"title":"` + title + `","agent":"claude","timeout":"1h","plan":{"type":"markdown","markdown":"1. read\n2. write"}}`
	req, _ := http.NewRequest("POST", pa.url("/api/v1/approvals"), strings.NewReader(body))
	req.Header.Set("Authorization", "Bearer "+token)
	resp, err := pa.client.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	var r struct{ ID string }
	json.NewDecoder(resp.Body).Decode(&r)
	resp.Body.Close()
	wait := "plan-" + r.ID
	deadline := time.Now().Add(waitFor)
	for time.Now().Before(deadline) {
		pa.mu.Lock()
		for _, h := range pa.hooks {
			if h.Event == "wait.began" && len(h.Waits) == 1 && h.Waits[0].ID == wait {
				pa.mu.Unlock()
				raw, _ := json.Marshal(h.Links)
				var links map[string][]map[string]string
				json.Unmarshal(raw, &links)
				var actions []map[string]string
				for _, l := range links[wait] {
					actions = append(actions, map[string]string{"action": l["action"], "title": l["label"], "link": strings.TrimPrefix(l["url"], pa.url(""))})
				}
				return r.ID, map[string]any{"type": "began", "tag": wait, "title": h.Title, "body": h.Text, "url": h.Waits[0].URL, "actions": actions}
			}
		}
		pa.mu.Unlock()
		time.Sleep(20 * time.Millisecond)
	}
	t.Fatalf("no webhook announced %s", wait)
	return "", nil
}

// TestServiceWorkerShowsAndAnswersPushes: in real headless Chromium, the service worker the
// settings page registers shows a pushed wait as a notification with its actions; the approve
// action decides the wait through its capability link; the "ended" push clears a notification.
func TestServiceWorkerShowsAndAnswersPushes(t *testing.T) {
	pa := startPushApp(t)
	p := openPage(t, pa.app, "/")
	origin := pa.url("")
	bctx := chromedp.FromContext(p.ctx).BrowserContextID
	if _, err := chromedp.CallBrowser(p.ctx, browser.SetPermission, browser.SetPermissionParams{
		Permission: &browser.PermissionDescriptor{Name: "notifications"}, Setting: browser.PermissionSettingGranted, Origin: origin, BrowserContextID: bctx}); err != nil {
		t.Fatal(err)
	}
	var mu sync.Mutex
	var regID serviceworker.RegistrationID
	go func() {
		for ev, err := range chromedp.Events(p.ctx, serviceworker.WorkerRegistrationUpdated) {
			if err != nil {
				return
			}
			for _, r := range ev.Registrations {
				if r.ScopeURL == origin+"/" && !r.IsDeleted {
					mu.Lock()
					regID = r.RegistrationID
					mu.Unlock()
				}
			}
		}
	}()
	if _, err := chromedp.Call(p.ctx, serviceworker.Enable, cdp.Empty{}); err != nil {
		t.Fatal(err)
	}
	p.do(chromedp.Navigate(pa.url("/settings/notifications")))
	p.wait("the service worker to be active", `document.querySelector('[data-testid="push-subscribe"]') && !document.querySelector('[data-testid="push-subscribe"]').hidden`)
	deadline := time.Now().Add(waitFor)
	for {
		mu.Lock()
		id := regID
		mu.Unlock()
		if id != "" {
			break
		}
		if time.Now().After(deadline) {
			t.Fatal("the service worker's registration never showed")
		}
		time.Sleep(20 * time.Millisecond)
	}
	push := func(payload map[string]any) {
		t.Helper()
		b, _ := json.Marshal(payload)
		mu.Lock()
		id := regID
		mu.Unlock()
		if _, err := chromedp.Call(p.ctx, serviceworker.DeliverPushMessage, serviceworker.DeliverPushMessageParams{Origin: origin, RegistrationID: id, Data: string(b)}); err != nil {
			t.Fatal(err)
		}
	}
	// shown(tag, n) is true once the worker's registration shows n notifications with tag; each
	// poll asks anew and reads the previous poll's answer.
	shown := func(tag string, n int) string {
		return `(navigator.serviceWorker.ready.then(r => r.getNotifications({tag: ` + js(tag) + `})).then(ns => { (window.__shown ||= {})[` + js(tag) + `] = ns.map(n => ({title: n.title, body: n.body, actions: n.actions.map(a => a.action)})); }), ` +
			`!!window.__shown && !!window.__shown[` + js(tag) + `] && window.__shown[` + js(tag) + `].length === ` + strconv.Itoa(n) + `)`
	}

	// showPush delivers a began push until the worker shows it: DevTools' delivery to a worker
	// that is still starting up can be dropped (a real push service delivers again); the tag
	// makes a second delivery replace the first.
	showPush := func(payload map[string]any) {
		t.Helper()
		tag := payload["tag"].(string)
		for range 4 {
			push(payload)
			for range 25 {
				if evalAs[bool](p, shown(tag, 1)) {
					return
				}
				time.Sleep(200 * time.Millisecond)
			}
		}
		p.wait("the notification "+tag, shown(tag, 1))
	}

	id, payload := pa.submit(t, "Refactor the parser")
	showPush(payload)
	tag := payload["tag"].(string)
	got := p.eval(`JSON.stringify(window.__shown[` + js(tag) + `][0])`)
	if !strings.Contains(got, "Refactor the parser") || !strings.Contains(got, `"actions":["approve","reject"]`) || !strings.Contains(got, "1. read") {
		t.Fatalf("notification = %s", got)
	}

	// What a click on "Approve" does: the worker posts the action's link.
	p.eval(`(navigator.serviceWorker.ready.then(r => r.active.postMessage({type: "plandash-click", tag: ` + js(tag) + `, action: "approve"})), "sent")`)
	deadline = time.Now().Add(waitFor)
	for {
		var r struct{ Status string }
		pa.getJSON("/api/v1/approvals/"+id, &r)
		if r.Status == "approved" {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("the request is %q after the approve action; want approved", r.Status)
		}
		time.Sleep(50 * time.Millisecond)
	}

	// A wait that ends elsewhere: its "ended" push clears the notification.
	_, second := pa.submit(t, "Second plan")
	showPush(second)
	tag2 := second["tag"].(string)
	push(map[string]any{"type": "ended", "tag": tag2})
	p.wait("the notification to clear", shown(tag2, 0))
}

// TestNotifyPagesFitAPhone: at 375 px the settings page (with a target and its deliveries) and
// an answer link's confirmation page scroll no wider than the screen.
func TestNotifyPagesFitAPhone(t *testing.T) {
	pa := startPushApp(t)
	_, payload := pa.submit(t, "A plan whose title is long enough to wrap on a phone screen, as titles from agents often are")
	actions := payload["actions"].([]map[string]string)
	p := openPage(t, pa.app, "/settings/notifications")
	for _, path := range []string{"/settings/notifications", actions[0]["link"]} {
		p.do(chromedp.EmulateViewport(375, 800), chromedp.Navigate(pa.url(path)))
		p.wait("the page", `document.readyState === "complete"`)
		if sw, cw := evalAs[int](p, `document.documentElement.scrollWidth`), evalAs[int](p, `document.documentElement.clientWidth`); sw > cw {
			t.Errorf("%s at 375 px scrolls sideways: %d > %d", path, sw, cw)
		}
	}
	if got := p.eval(`document.querySelector('[data-testid="answer-link"]').dataset.state`); got != "confirm" {
		t.Fatalf("the link's page is %q; want the confirmation", got)
	}
}
