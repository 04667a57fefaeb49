package notify

import (
	"fmt"
	"net/url"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/plandash/plandash/internal/agentid"
	"github.com/plandash/plandash/internal/errs"
)

// Kind is a target's message format.
type Kind string

// Target kinds.
const (
	Ntfy    Kind = "ntfy"
	Slack   Kind = "slack"
	Discord Kind = "discord"
	Webhook Kind = "webhook" // generic JSON, signed with HMAC-SHA256
	WebPush Kind = "webpush" // a browser's push subscription
)

// coalesces reports whether waits that begin together reach the target in one request: a chat
// target's "5 plans wait", a webhook's batch. Web Push shows one notification per wait.
func (t Target) coalesces() bool { return t.Kind != WebPush }

// ownMessage reports whether each wait's end is told on its own, against its own beginning
// (Web Push closes its notification, a webhook hears "wait.ended"), rather than clearing a
// chat message once the last of the waits it announced has ended.
func (t Target) ownMessage() bool { return t.Kind == WebPush || t.Kind == Webhook }

// maxBatch is the most waits one webhook request carries: a burst's batch is split, so a
// request's body stays bounded (a wait's detail is at most 4 KiB).
const maxBatch = 25

// Kinds are the target kinds, in the order the settings page offers them.
var kinds = []Kind{Ntfy, Slack, Discord, Webhook, WebPush}

// Target is somewhere notifications go. Only admins configure targets and see them whole;
// URL and Secret are secrets (a Slack webhook URL is its own credential).
type Target struct {
	ID       string        `json:"id"`
	Kind     Kind          `json:"kind"`
	Name     string        `json:"name"`
	URL      string        `json:"url"`
	Secret   string        `json:"secret,omitempty"` // webhook: the HMAC key
	Filter   Filter        `json:"filter,omitzero"`
	Delay    time.Duration `json:"delay,omitempty"`    // announce only waits still open after this long
	Priority string        `json:"priority,omitempty"` // ntfy: min, low, default, high, urgent
	Push     *PushKeys     `json:"push,omitempty"`     // webpush: the subscription's keys
	Created  time.Time     `json:"created"`
	Static   bool          `json:"static,omitempty"` // from --notify: not stored, not editable
}

// PushKeys are a push subscription's keys, base64url as the browser gives them.
type PushKeys struct {
	P256DH string `json:"p256dh"`
	Auth   string `json:"auth"`
}

// Filter picks the waits a target announces; an empty list allows every value.
type Filter struct {
	Kinds    []string `json:"kinds,omitempty"`
	Agents   []string `json:"agents,omitempty"`
	Machines []string `json:"machines,omitempty"`
}

// Allows reports whether the filter lets w through.
func (f Filter) Allows(w Wait) bool {
	in := func(list []string, v ...string) bool {
		if len(list) == 0 {
			return true
		}
		for _, x := range v {
			if x != "" && slices.Contains(list, x) {
				return true
			}
		}
		return false
	}
	// Agents match by canonical id, not by spelling: a target written "claude-code" (as the
	// form suggests) or "Claude Code" takes Claude Code's waits whichever name they carry.
	agent := len(f.Agents) == 0 || slices.ContainsFunc(f.Agents, func(a string) bool {
		return agentid.Same(a, w.Agent) || agentid.Same(a, w.AgentName)
	})
	return in(f.Kinds, w.Kind) && agent && in(f.Machines, w.Machine)
}

// Limits on what a target may hold, so a stored target stays small.
const (
	maxURL      = 2048
	maxName     = 100
	maxList     = 32
	maxDelay    = 24 * time.Hour
	maxSecret   = 256
	maxFilterID = 200
)

// Check validates a target as an admin supplied it, saying what is wrong and where.
func (t Target) Check() error {
	bad := func(field, format string, a ...any) error {
		return errs.Errorf(errs.Invalid, "target %s: %s", field, fmt.Sprintf(format, a...))
	}
	if !slices.Contains(kinds, t.Kind) {
		return bad("kind", "%q is not one of ntfy, slack, discord, webhook, webpush", t.Kind)
	}
	if len(t.Name) > maxName {
		return bad("name", "longer than %d bytes", maxName)
	}
	if len(t.URL) > maxURL {
		return bad("url", "longer than %d bytes", maxURL)
	}
	u, err := url.Parse(t.URL)
	if err != nil || (u.Scheme != "https" && u.Scheme != "http") || u.Host == "" {
		return bad("url", "want an absolute http:// or https:// URL")
	}
	if u.User != nil {
		return bad("url", "credentials in the URL are not supported")
	}
	if len(t.Secret) > maxSecret {
		return bad("secret", "longer than %d bytes", maxSecret)
	}
	if t.Delay < 0 || t.Delay > maxDelay {
		return bad("delay", "want between 0 and %s", maxDelay)
	}
	switch t.Priority {
	case "", "min", "low", "default", "high", "urgent":
	default:
		return bad("priority", "%q is not one of min, low, default, high, urgent", t.Priority)
	}
	for name, list := range map[string][]string{"filter.kinds": t.Filter.Kinds, "filter.agents": t.Filter.Agents, "filter.machines": t.Filter.Machines} {
		if len(list) > maxList {
			return bad(name, "more than %d values", maxList)
		}
		for _, v := range list {
			if v == "" || len(v) > maxFilterID {
				return bad(name, "values must be 1 to %d bytes", maxFilterID)
			}
		}
	}
	if t.Kind == WebPush {
		if t.Push == nil {
			return bad("push", "a push subscription needs its keys")
		}
		if _, err := decodeSubscriberKey(t.Push.P256DH); err != nil {
			return bad("push.p256dh", "%v", err)
		}
		if a, err := b64(t.Push.Auth); err != nil || len(a) != 16 {
			return bad("push.auth", "want 16 bytes, base64url")
		}
	}
	return nil
}

// Redacted is the target as anyone but an admin may see it: kind, name and filters only.
func (t Target) Redacted() Target {
	t.URL, t.Secret, t.Push = redactURL(t.URL), "", nil
	return t
}

// redactURL keeps a URL's host, which says where a target is, and drops what may be a secret.
func redactURL(s string) string {
	u, err := url.Parse(s)
	if err != nil {
		return ""
	}
	return u.Scheme + "://" + u.Host + "/…"
}

// ParseFlag reads a --notify value: a URL whose scheme or host says the kind, with options in
// its fragment (never sent), e.g.
//
//	ntfy://ntfy.sh/my-topic#priority=high&delay=30s
//	ntfy+http://127.0.0.1:8090/topic
//	https://hooks.slack.com/services/T/B/X        (slack, by its host)
//	https://discord.com/api/webhooks/1/abc        (discord, by its host)
//	webhook+https://example.com/hook#secret=s3cret&kinds=plan,question&agents=claude
//
// n numbers the flag, for the target's ID.
func ParseFlag(s string, n int) (Target, error) {
	t := Target{ID: "flag-" + strconv.Itoa(n), Static: true}
	raw, frag, _ := strings.Cut(s, "#")
	scheme, rest, ok := strings.Cut(raw, "://")
	if !ok {
		return t, errs.Errorf(errs.Invalid, "--notify %q: want a URL such as ntfy://ntfy.sh/topic or https://hooks.slack.com/services/…", s)
	}
	kind, inner, plus := strings.Cut(scheme, "+")
	switch {
	case plus:
		t.Kind, scheme = Kind(kind), inner
	case scheme == "ntfy":
		t.Kind, scheme = Ntfy, "https"
	default:
		t.Kind = kindByHost(rest)
	}
	t.URL = scheme + "://" + rest
	opts, err := url.ParseQuery(frag)
	if err != nil {
		return t, errs.Errorf(errs.Invalid, "--notify %q: options after #: %v", s, err)
	}
	list := func(k string) []string {
		if v := opts.Get(k); v != "" {
			return strings.Split(v, ",")
		}
		return nil
	}
	t.Name = opts.Get("name")
	if t.Name == "" {
		t.Name = string(t.Kind) + " " + redactURL(t.URL)
	}
	t.Secret, t.Priority = opts.Get("secret"), opts.Get("priority")
	t.Filter = Filter{Kinds: list("kinds"), Agents: list("agents"), Machines: list("machines")}
	if d := opts.Get("delay"); d != "" {
		if t.Delay, err = time.ParseDuration(d); err != nil {
			return t, errs.Errorf(errs.Invalid, "--notify %q: delay=%q: want a duration such as 30s", s, d)
		}
	}
	if t.Kind == WebPush {
		return t, errs.Errorf(errs.Invalid, "--notify %q: browsers subscribe to Web Push on /settings/notifications", s)
	}
	if err := t.Check(); err != nil {
		return t, fmt.Errorf("--notify %q: %w", s, err)
	}
	return t, nil
}

// kindByHost recognises the services whose webhook URLs are plain https.
func kindByHost(rest string) Kind {
	host, _, _ := strings.Cut(rest, "/")
	switch host {
	case "hooks.slack.com":
		return Slack
	case "discord.com", "discordapp.com", "ptb.discord.com", "canary.discord.com":
		return Discord
	case "ntfy.sh":
		return Ntfy
	}
	return Webhook
}
