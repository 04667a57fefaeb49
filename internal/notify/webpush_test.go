package notify_test

import (
	"context"
	"crypto/ecdh"
	"crypto/rand"
	"encoding/base64"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/plandash/plandash/internal/notify"
)

// npmModules is where scripts/test.sh installs web-push and http_ece (PLANDASH_NPM); without
// it the test skips locally and fails in CI.
func npmModules(t *testing.T) string {
	dir := os.Getenv("PLANDASH_NPM")
	if dir == "" {
		if home, err := os.UserHomeDir(); err == nil {
			if d := filepath.Join(home, ".cache", "plandash", "npm", "node_modules"); exists(filepath.Join(d, "http_ece")) {
				dir = d
			}
		}
	}
	switch {
	case dir != "" && exists(filepath.Join(dir, "web-push")) && exists(filepath.Join(dir, "http_ece")):
		return dir
	case os.Getenv("CI") != "":
		t.Fatal("PLANDASH_NPM does not hold web-push and http_ece: scripts/test.sh installs them")
	default:
		t.Skip("web-push and http_ece are not installed; scripts/test.sh installs them into ~/.cache/plandash/npm")
	}
	return ""
}

func exists(p string) bool { _, err := os.Stat(p); return err == nil }

// subscription is a browser's side of RFC 8291: a P-256 key pair and an auth secret.
type subscription struct {
	priv *ecdh.PrivateKey
	auth []byte
}

func newSubscription(t *testing.T) subscription {
	k, err := ecdh.P256().GenerateKey(rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	auth := make([]byte, 16)
	rand.Read(auth)
	return subscription{priv: k, auth: auth}
}

func (s subscription) keys() *notify.PushKeys {
	enc := base64.RawURLEncoding
	return &notify.PushKeys{P256DH: enc.EncodeToString(s.priv.PublicKey().Bytes()), Auth: enc.EncodeToString(s.auth)}
}

// checked is what the node script found in a push.
type checked struct {
	Payload string            `json:"payload"`
	Header  map[string]string `json:"header"`
	Claims  struct {
		Aud string `json:"aud"`
		Exp int64  `json:"exp"`
		Sub string `json:"sub"`
	} `json:"claims"`
	K string `json:"k"`
}

// nodeCheck decrypts and verifies a received push with npm's http_ece and jws.
func nodeCheck(t *testing.T, mods string, sub subscription, r received) checked {
	t.Helper()
	enc := base64.RawURLEncoding
	in, _ := json.Marshal(map[string]string{"body": base64.StdEncoding.EncodeToString(r.Body), "authorization": r.Header.Get("Authorization"),
		"privateKey": enc.EncodeToString(sub.priv.Bytes()), "publicKey": enc.EncodeToString(sub.priv.PublicKey().Bytes()), "auth": enc.EncodeToString(sub.auth)})
	cmd := exec.Command("node", "testdata/webpush-check.js")
	cmd.Env = append(os.Environ(), "PLANDASH_NPM="+mods)
	cmd.Stdin = strings.NewReader(string(in))
	out, err := cmd.Output()
	if err != nil {
		var stderr string
		if ee, ok := err.(*exec.ExitError); ok {
			stderr = string(ee.Stderr)
		}
		t.Fatalf("node could not decrypt or verify the push: %v\n%s", err, stderr)
	}
	var c checked
	if err := json.Unmarshal(out, &c); err != nil {
		t.Fatalf("node's answer %q: %v", out, err)
	}
	return c
}

// TestWebPushDecryptsWithHTTPECE sends a wait's push to a loopback push endpoint and has
// npm's http_ece decrypt it and jws verify its VAPID JWT: what begins shows, what ends clears.
func TestWebPushDecryptsWithHTTPECE(t *testing.T) {
	mods := npmModules(t)
	endpoint := newReceiver(t)
	endpoint.status = 201 // push services answer Created
	st, src := store(t), newList()
	n := notify.New(st, src, notify.Config{BaseURL: "http://127.0.0.1:7420"})
	sub := newSubscription(t)
	if _, err := n.AddTarget(context.Background(), notify.Target{Kind: notify.WebPush, URL: endpoint.URL + "/push/sub-1", Push: sub.keys()}); err != nil {
		t.Fatal(err)
	}
	run(t, n)
	w := plan("plan-1")
	w.Deadline = time.Now().Add(time.Hour)
	src.set(w)

	r := endpoint.next(t)
	if r.Path != "/push/sub-1" || r.Header.Get("Content-Encoding") != "aes128gcm" || r.Header.Get("Urgency") != "high" || r.Header.Get("Ttl") == "" || r.Header.Get("Topic") == "" {
		t.Fatalf("push request: path %q, headers %v", r.Path, r.Header)
	}
	c := nodeCheck(t, mods, sub, r)
	v, err := n.VAPID(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	if c.K != v.PublicKey() || c.Header["alg"] != "ES256" || c.Claims.Aud != endpoint.URL || !strings.HasPrefix(c.Claims.Sub, "mailto:") {
		t.Fatalf("VAPID: k %q (want %q), header %v, claims %+v", c.K, v.PublicKey(), c.Header, c.Claims)
	}
	if exp := time.Unix(c.Claims.Exp, 0); exp.Before(time.Now()) || exp.After(time.Now().Add(24*time.Hour)) {
		t.Fatalf("exp %v: want within the next 24 h", exp)
	}
	var p struct {
		Type, Tag, Title, Body, URL string
		Actions                     []struct{ Action, Title, Link string }
	}
	if err := json.Unmarshal([]byte(c.Payload), &p); err != nil {
		t.Fatalf("payload %q: %v", c.Payload, err)
	}
	if p.Type != "began" || p.Tag != "plan-1" || p.URL != "/approvals/plan-1" || !strings.Contains(p.Title, "Claude Code") ||
		!strings.Contains(p.Body, "1. read") || len(p.Actions) != 2 || p.Actions[0].Action != "approve" || !strings.HasPrefix(p.Actions[0].Link, notify.LinkPath) {
		t.Fatalf("payload = %+v", p)
	}
	if strings.Contains(c.Payload, "token") {
		t.Fatalf("the payload names a token: %s", c.Payload)
	}

	src.set() // the wait ends: a push that clears its notification
	c = nodeCheck(t, mods, sub, endpoint.next(t))
	if err := json.Unmarshal([]byte(c.Payload), &p); err != nil || p.Type != "ended" || p.Tag != "plan-1" {
		t.Fatalf("second payload = %s, %v; want ended for plan-1", c.Payload, err)
	}
}

// TestWebPushGoneSubscriptionIsDropped: a push service that says 410 Gone ends the target.
func TestWebPushGoneSubscriptionIsDropped(t *testing.T) {
	endpoint := newReceiver(t)
	endpoint.status = 410
	st, src := store(t), newList()
	n := notify.New(st, src, notify.Config{BaseURL: "http://127.0.0.1:7420"})
	tg, err := n.AddTarget(context.Background(), notify.Target{Kind: notify.WebPush, URL: endpoint.URL + "/push/gone", Push: newSubscription(t).keys()})
	if err != nil {
		t.Fatal(err)
	}
	run(t, n)
	src.set(plan("plan-2"))
	endpoint.next(t)
	waitFor(t, func() bool {
		ts, _ := n.Targets(context.Background())
		return len(ts) == 0
	})
	var ds []notify.Delivery
	waitFor(t, func() bool { // the outcome is recorded once the recorder has gathered
		ds, _ = n.Deliveries(context.Background(), tg.ID, 5)
		return len(ds) == 1 && ds[0].Status != notify.Pending
	})
	if ds[0].Status != notify.Failed || !strings.Contains(ds[0].Error, "410") {
		t.Fatalf("deliveries = %+v", ds)
	}
}

// waitFor polls cond until it holds (a condition, not a time, is what the test asserts).
func waitFor(t *testing.T, cond func() bool) {
	t.Helper()
	for range 500 {
		if cond() {
			return
		}
		time.Sleep(20 * time.Millisecond)
	}
	t.Fatal("the condition never held")
}
