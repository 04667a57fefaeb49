package notify

import (
	"crypto/hmac"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"time"
)

// outgoing is one HTTP request a target receives.
type outgoing struct {
	URL    string
	Header http.Header
	Body   []byte
}

// render builds what target t receives for m, in t's format.
func render(t Target, m message, now time.Time) (outgoing, error) {
	switch t.Kind {
	case Ntfy:
		return ntfyRequest(t, m)
	case Slack:
		return jsonRequest(t.URL, slackBody(m))
	case Discord:
		return jsonRequest(t.URL, discordBody(m))
	case Webhook:
		return webhookRequest(t, m, now)
	}
	return outgoing{}, fmt.Errorf("no message format for %q", t.Kind)
}

func jsonRequest(u string, v any) (outgoing, error) {
	b, err := json.Marshal(v)
	if err != nil {
		return outgoing{}, err
	}
	return outgoing{URL: u, Header: http.Header{"Content-Type": {"application/json"}}, Body: b}, nil
}

// ntfyPriority maps ntfy's priority names to the numbers its JSON takes.
var ntfyPriority = map[string]int{"min": 1, "low": 2, "default": 3, "high": 4, "urgent": 5}

// ntfyRequest publishes as JSON (https://docs.ntfy.sh/publish/#publish-as-json): posted to the
// server's root with the topic in the body, so titles and actions need no header encoding.
// Answer buttons are `http` actions: the ntfy app POSTs to the capability link itself.
func ntfyRequest(t Target, m message) (outgoing, error) {
	u, err := url.Parse(t.URL)
	if err != nil {
		return outgoing{}, err
	}
	topic := strings.Trim(u.Path, "/")
	root := u.Scheme + "://" + u.Host + "/"
	prio := ntfyPriority[t.Priority]
	if prio == 0 {
		prio = 4 // an agent waits: high, unless the admin chose otherwise
	}
	type action struct {
		Action  string            `json:"action"`
		Label   string            `json:"label"`
		URL     string            `json:"url"`
		Method  string            `json:"method,omitempty"`
		Headers map[string]string `json:"headers,omitempty"`
		Body    string            `json:"body,omitempty"`
		Clear   bool              `json:"clear,omitempty"`
	}
	var actions []action
	for _, b := range m.Buttons {
		actions = append(actions, action{Action: "http", Label: b.Label, URL: b.URL, Method: "POST",
			Headers: map[string]string{"Content-Type": "application/x-www-form-urlencoded"},
			Body:    "action=" + url.QueryEscape(b.Action), Clear: true})
	}
	if m.Open != "" && len(actions) < 3 { // ntfy shows three actions at most
		actions = append(actions, action{Action: "view", Label: "Open", URL: m.Open})
	}
	return jsonRequest(root, map[string]any{
		"topic": topic, "title": m.Title(), "message": m.Body(), "priority": prio,
		"click": m.Open, "tags": []string{"hourglass"}, "actions": actions,
	})
}

// slackEscape escapes what Slack's mrkdwn treats as control characters.
func slackEscape(s string) string {
	return strings.NewReplacer("&", "&amp;", "<", "&lt;", ">", "&gt;").Replace(s)
}

// slackBody is an incoming-webhook message in Block Kit: a section with the text, then an
// actions block whose buttons open the capability links' confirmation pages.
func slackBody(m message) map[string]any {
	text := "*" + slackEscape(m.Title()) + "*\n" + slackEscape(m.Body())
	blocks := []any{map[string]any{"type": "section", "text": map[string]any{"type": "mrkdwn", "text": clip(text, 2900)}}}
	var buttons []any
	for _, b := range m.Buttons {
		btn := map[string]any{"type": "button", "action_id": "plandash-" + b.Action,
			"text": map[string]any{"type": "plain_text", "text": clip(b.Label, 70)}, "url": b.URL}
		if b.Action == "approve" {
			btn["style"] = "primary"
		}
		buttons = append(buttons, btn)
	}
	if m.Open != "" {
		buttons = append(buttons, map[string]any{"type": "button", "action_id": "plandash-open",
			"text": map[string]any{"type": "plain_text", "text": "Open"}, "url": m.Open})
	}
	if len(buttons) > 0 {
		blocks = append(blocks, map[string]any{"type": "actions", "elements": buttons})
	}
	return map[string]any{"text": clip(m.Title(), 2900), "blocks": blocks}
}

// discordBody is a webhook message with one embed. Webhooks that no Discord application owns
// cannot carry buttons, so the answer links are markdown links in the embed. Mentions are off:
// a plan's text must not ping anyone.
func discordBody(m message) map[string]any {
	desc := m.Body()
	if len(m.Buttons) > 0 {
		var links []string
		for _, b := range m.Buttons {
			links = append(links, "["+b.Label+"]("+b.URL+")")
		}
		desc += "\n\n" + strings.Join(links, " · ")
	}
	embed := map[string]any{"title": clip(m.Title(), 256), "description": clip(desc, 4000)}
	if m.Open != "" {
		embed["url"] = m.Open
	}
	return map[string]any{"content": clip(m.Title(), 2000), "embeds": []any{embed}, "allowed_mentions": map[string]any{"parse": []string{}}}
}

// WebhookBody is what a generic webhook receives (JSON).
type WebhookBody struct {
	Event          string              `json:"event"` // wait.began or wait.ended
	IdempotencyKey string              `json:"idempotencyKey"`
	Title          string              `json:"title"`
	Text           string              `json:"text"`
	URL            string              `json:"url,omitempty"`
	Waits          []Wait              `json:"waits"`
	Links          map[string][]button `json:"links,omitempty"` // wait id -> answer links
}

// MarshalJSON names a button's fields for receivers.
func (b button) MarshalJSON() ([]byte, error) {
	return json.Marshal(map[string]string{"action": b.Action, "label": b.Label, "url": b.URL})
}

// webhookRequest signs the body with HMAC-SHA256 over "timestamp.body" (the timestamp binds
// the signature to the moment, against replays) and names the idempotency key in a header.
func webhookRequest(t Target, m message, now time.Time) (outgoing, error) {
	body := WebhookBody{Event: "wait." + string(m.Event), IdempotencyKey: m.Key, Title: m.Title(), Text: m.Body(), URL: m.Open, Waits: m.Waits}
	if len(m.Buttons) > 0 {
		body.Links = map[string][]button{m.Waits[0].ID: m.Buttons}
	}
	o, err := jsonRequest(t.URL, body)
	if err != nil {
		return o, err
	}
	ts := strconv.FormatInt(now.Unix(), 10)
	o.Header.Set("Idempotency-Key", m.Key)
	o.Header.Set("X-Plandash-Event", body.Event)
	o.Header.Set("X-Plandash-Timestamp", ts)
	if t.Secret != "" {
		o.Header.Set("X-Plandash-Signature", "sha256="+Sign(t.Secret, ts, o.Body))
	}
	return o, nil
}

// Sign is the webhook signature: hex HMAC-SHA256 of "timestamp.body" under secret.
func Sign(secret, timestamp string, body []byte) string {
	mac := hmac.New(sha256.New, []byte(secret))
	mac.Write([]byte(timestamp + "."))
	mac.Write(body)
	return hex.EncodeToString(mac.Sum(nil))
}
