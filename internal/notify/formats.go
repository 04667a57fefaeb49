package notify

import (
	"crypto/hmac"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"net/http"
	"net/url"
	"slices"
	"strconv"
	"strings"
	"time"
)

// outgoing is one HTTP request a target receives.
type outgoing struct {
	Method string // POST when ""
	URL    string
	Header http.Header
	Body   []byte
	// Reply, when set, reads what the target calls the message posted from its answer's
	// first replyLimit bytes.
	Reply func([]byte) (string, error)
}

// render builds what target t receives for m, in t's format.
func render(t Target, m message, now time.Time) (outgoing, error) {
	switch {
	case t.Kind == Ntfy && m.Event == Ended:
		return ntfyClear(t, m)
	case t.Kind == Ntfy:
		return ntfyRequest(t, m)
	case t.Kind == Slack && m.Event == Ended:
		return jsonRequest(t.URL, slackEnded(m))
	case t.Kind == Slack:
		return jsonRequest(t.URL, slackBody(m))
	case t.Kind == Discord && m.Event == Ended:
		return discordEdit(t, m)
	case t.Kind == Discord:
		return discordPost(t, m)
	case t.Kind == Webhook:
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
		"click": m.Open, "tags": []string{"hourglass"}, "actions": actions, "sequence_id": m.Remote,
	})
}

// ntfyClear clears the notification a beginning posted, by the sequence id plandash gave it
// (https://docs.ntfy.sh/publish/#clearing-notifications, ntfy 2.16 and later): PUT
// /TOPIC/SEQUENCE_ID/clear marks it read and dismisses it on every subscribed device.
func ntfyClear(t Target, m message) (outgoing, error) {
	u, err := url.Parse(t.URL)
	if err != nil {
		return outgoing{}, err
	}
	if !ntfySequenceID(m.Remote) {
		return outgoing{}, fmt.Errorf("%q is not an ntfy sequence id", clip(m.Remote, 80))
	}
	topic := strings.Trim(u.Path, "/")
	return outgoing{Method: http.MethodPut, URL: u.Scheme + "://" + u.Host + "/" + url.PathEscape(topic) + "/" + m.Remote + "/clear"}, nil
}

// ntfySequenceID reports whether s is a sequence id ntfy takes in a path: letters, digits,
// '-' and '_', at most 64.
func ntfySequenceID(s string) bool {
	if s == "" || len(s) > 64 {
		return false
	}
	for _, c := range s {
		if !(c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '-' || c == '_') {
			return false
		}
	}
	return true
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

// slackEnded follows a message up once its waits ended: an incoming webhook cannot edit or
// delete what it posted (that takes a Slack app's chat.update), so a short reply says so.
func slackEnded(m message) map[string]any {
	text := "✅ " + m.Title()
	return map[string]any{"text": clip(text, 2900), "blocks": []any{map[string]any{"type": "context",
		"elements": []any{map[string]any{"type": "mrkdwn", "text": clip(slackEscape(text), 2900)}}}}}
}

// discordPost executes the webhook with ?wait=true, so Discord answers with the message it
// posted, whose id an end edits.
func discordPost(t Target, m message) (outgoing, error) {
	u, err := url.Parse(t.URL)
	if err != nil {
		return outgoing{}, err
	}
	q := u.Query()
	q.Set("wait", "true")
	u.RawQuery = q.Encode()
	o, err := jsonRequest(u.String(), discordBody(m))
	o.Reply = DiscordMessageID
	return o, err
}

// discordEdit edits the message a beginning posted (PATCH /webhooks/ID/TOKEN/messages/MSG):
// the answer links go, and it says the waits were answered.
func discordEdit(t Target, m message) (outgoing, error) {
	u, err := url.Parse(t.URL)
	if err != nil {
		return outgoing{}, err
	}
	if !snowflake(m.Remote) {
		return outgoing{}, fmt.Errorf("%q is not a Discord message id", clip(m.Remote, 80))
	}
	u.Path = strings.TrimRight(u.Path, "/") + "/messages/" + m.Remote
	u.RawPath = ""
	q := u.Query()
	q.Del("wait") // a thread_id stays: the message is in that thread
	u.RawQuery = q.Encode()
	o, err := jsonRequest(u.String(), map[string]any{"content": "✅ " + clip(m.Title(), 1990), "embeds": []any{},
		"allowed_mentions": map[string]any{"parse": []string{}}})
	o.Method = http.MethodPatch
	return o, err
}

// DiscordMessageID reads the id of the message Discord's webhook answered with (?wait=true):
// a snowflake, up to 20 digits.
func DiscordMessageID(reply []byte) (string, error) {
	var msg struct {
		ID string `json:"id"`
	}
	if err := json.Unmarshal(reply, &msg); err != nil {
		return "", fmt.Errorf("discord's reply is not a message: %w", err)
	}
	if !snowflake(msg.ID) {
		return "", fmt.Errorf("discord's reply names no message id (%q)", clip(msg.ID, 40))
	}
	return msg.ID, nil
}

// snowflake reports whether s is a Discord id: 1 to 20 decimal digits.
func snowflake(s string) bool {
	if s == "" || len(s) > 20 {
		return false
	}
	for _, c := range s {
		if c < '0' || c > '9' {
			return false
		}
	}
	return true
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

// WebhookBody is what a generic webhook receives (JSON): the waits that began (or ended)
// together, at most maxBatch.
type WebhookBody struct {
	Event string `json:"event"` // wait.began or wait.ended
	// IdempotencyKey is the request's: the one wait's key, or, for several, one made from
	// theirs. A batch sent again may be split or joined differently, so a receiver that must
	// act once per wait deduplicates by Keys.
	IdempotencyKey string              `json:"idempotencyKey"`
	Keys           map[string]string   `json:"keys"` // wait id -> that wait's own idempotency key
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
	body := WebhookBody{Event: "wait." + string(m.Event), IdempotencyKey: batchKey(m.Keys), Keys: make(map[string]string, len(m.Waits)),
		Title: m.Title(), Text: m.Body(), URL: m.Open, Waits: m.Waits, Links: m.Links}
	for i, w := range m.Waits {
		body.Keys[w.ID] = m.Keys[i]
	}
	if len(m.Buttons) > 0 {
		body.Links = map[string][]button{m.Waits[0].ID: m.Buttons}
	}
	o, err := jsonRequest(t.URL, body)
	if err != nil {
		return o, err
	}
	ts := strconv.FormatInt(now.Unix(), 10)
	o.Header.Set("Idempotency-Key", body.IdempotencyKey)
	o.Header.Set("X-Plandash-Event", body.Event)
	o.Header.Set("X-Plandash-Timestamp", ts)
	if t.Secret != "" {
		o.Header.Set("X-Plandash-Signature", "sha256="+Sign(t.Secret, ts, o.Body))
	}
	return o, nil
}

// batchKey is a request's idempotency key: its one delivery's, or, for several, a digest of
// theirs, whatever their order (the same batch sent again has the same key).
func batchKey(keys []string) string {
	if len(keys) == 1 {
		return keys[0]
	}
	sorted := slices.Sorted(slices.Values(keys))
	return "batch|" + HashToken(strings.Join(sorted, "\n"))[:32]
}

// Sign is the webhook signature: hex HMAC-SHA256 of "timestamp.body" under secret.
func Sign(secret, timestamp string, body []byte) string {
	mac := hmac.New(sha256.New, []byte(secret))
	mac.Write([]byte(timestamp + "."))
	mac.Write(body)
	return hex.EncodeToString(mac.Sum(nil))
}
