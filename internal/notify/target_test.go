package notify_test

import (
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/plandash/plandash/internal/errs"
	"github.com/plandash/plandash/internal/notify"
)

func TestParseFlag(t *testing.T) {
	for _, c := range []struct {
		in   string
		kind notify.Kind
		url  string
	}{
		{"ntfy://ntfy.sh/topic", notify.Ntfy, "https://ntfy.sh/topic"},
		{"ntfy+http://127.0.0.1:8090/t#priority=low", notify.Ntfy, "http://127.0.0.1:8090/t"},
		{"https://hooks.slack.com/services/T/B/X", notify.Slack, "https://hooks.slack.com/services/T/B/X"},
		{"https://discord.com/api/webhooks/1/abc", notify.Discord, "https://discord.com/api/webhooks/1/abc"},
		{"https://example.com/hook?x=1#secret=s&delay=5s&kinds=plan,question", notify.Webhook, "https://example.com/hook?x=1"},
	} {
		tg, err := notify.ParseFlag(c.in, 1)
		if err != nil || tg.Kind != c.kind || tg.URL != c.url || !tg.Static {
			t.Errorf("ParseFlag(%q) = %+v, %v; want %s at %s", c.in, tg, err, c.kind, c.url)
		}
	}
	tg, _ := notify.ParseFlag("https://example.com/hook#secret=s&delay=5s&kinds=plan,question", 2)
	if tg.Secret != "s" || tg.Delay != 5*time.Second || len(tg.Filter.Kinds) != 2 || tg.ID != "flag-2" {
		t.Errorf("options = %+v", tg)
	}
	for _, bad := range []string{"", "nope", "ftp://x/y", "webhook+https://x/#delay=soon", "ntfy://h/t#priority=loud", "webpush+https://x/y", "https://u:p@x/y", "slack+https:///nohost"} {
		if _, err := notify.ParseFlag(bad, 1); errs.KindOf(err) != errs.Invalid || !strings.Contains(err.Error(), "--notify") {
			t.Errorf("ParseFlag(%q) = %v; want an invalid error naming --notify", bad, err)
		}
	}
}

// FuzzParseFlag: whatever a --notify value holds, it parses to a target that passes Check, or
// to an error saying what is wrong; never to a URL with the options' fragment in it.
func FuzzParseFlag(f *testing.F) {
	for _, s := range []string{"ntfy://ntfy.sh/t#priority=high", "https://hooks.slack.com/services/a", "webhook+http://x/#secret=%zz", "discord+https://d/#delay=-1s"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		tg, err := notify.ParseFlag(s, 1)
		if err != nil {
			if errs.KindOf(err) != errs.Invalid {
				t.Fatalf("ParseFlag(%q): %v is not an invalid-input error", s, err)
			}
			return
		}
		if cerr := tg.Check(); cerr != nil || strings.Contains(tg.URL, "#") {
			t.Fatalf("ParseFlag(%q) = %+v, which fails Check (%v) or keeps the fragment", s, tg, cerr)
		}
	})
}

// FuzzTargetJSON: a target or push subscription as an admin's client sends it (JSON) is either
// refused by Check with an invalid-input error, or usable: a push target's keys encrypt.
func FuzzTargetJSON(f *testing.F) {
	f.Add(`{"kind":"webhook","url":"https://example.com/h","secret":"s","filter":{"kinds":["plan"]},"delay":1000000000}`)
	f.Add(`{"kind":"webpush","url":"https://push.example.com/x","push":{"p256dh":"BAAA","auth":"AAAAAAAAAAAAAAAAAAAAAA"}}`)
	f.Add(`{"kind":"ntfy","url":"http://127.0.0.1:1/t","priority":"urgent"}`)
	f.Fuzz(func(t *testing.T, s string) {
		var tg notify.Target
		if json.Unmarshal([]byte(s), &tg) != nil {
			return
		}
		if err := tg.Check(); err != nil {
			if errs.KindOf(err) != errs.Invalid {
				t.Fatalf("Check(%s): %v is not an invalid-input error", s, err)
			}
			return
		}
		if tg.Kind == notify.WebPush {
			if _, err := notify.Encrypt(*tg.Push, []byte("x")); err != nil {
				t.Fatalf("a checked push target's keys do not encrypt: %v", err)
			}
		}
	})
}
