package acpproxy

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"net/url"
	"strings"
	"sync"
	"time"

	"github.com/plandash/plandash/internal/acp"
)

// RemoteBroker is the PermissionBroker of `plandash acp --approvals=both|dashboard`: it offers
// requests to a plandash server (POST /api/v1/proxy/permissions) and long-polls it for the
// dashboard's answers (GET /api/v1/proxy/answers). The server keeps offers in memory, so after
// any failure to reach it the broker offers every open request again.
type RemoteBroker struct {
	Server string
	Token  func() string
	Stream string
	Client *http.Client // for offers and resolutions; default 5 s timeout
	Log    *slog.Logger

	mu     sync.Mutex
	open   map[string]remoteOffer // by the request id's JSON text
	resend bool                   // the server may have lost the offers
	wake   chan struct{}
}

type remoteOffer struct {
	req    PermissionRequest
	answer func(acp.PermissionOutcome) error
}

func (b *RemoteBroker) init() {
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.open == nil {
		b.open = map[string]remoteOffer{}
		b.wake = make(chan struct{}, 1)
	}
	if b.Client == nil {
		b.Client = &http.Client{Timeout: 5 * time.Second}
	}
	if b.Log == nil {
		b.Log = slog.New(slog.DiscardHandler)
	}
	if b.Token == nil {
		b.Token = func() string { return "" }
	}
}

// Offer sends the request to the server; the proxy calls it from its broker goroutine, so the
// round trip delays nothing but other broker calls. A failed offer is sent again later.
func (b *RemoteBroker) Offer(req PermissionRequest, answer func(acp.PermissionOutcome) error) {
	b.init()
	b.mu.Lock()
	b.open[string(req.ID)] = remoteOffer{req, answer}
	b.mu.Unlock()
	if err := b.offer(req); err != nil {
		b.Log.Warn("plandash: could not show a permission request on the dashboard; will retry", "err", err)
		b.mu.Lock()
		b.resend = true
		b.mu.Unlock()
	}
	b.poke()
}

// Resolved tells the server who ended the request, so the dashboard closes it.
func (b *RemoteBroker) Resolved(id json.RawMessage, r Resolution) {
	b.init()
	b.mu.Lock()
	delete(b.open, string(id))
	b.mu.Unlock()
	body := map[string]any{"stream": b.Stream, "id": id, "by": r.By}
	if r.Outcome.Outcome != "" {
		body["outcome"] = outcomeBody(r.Outcome)
	}
	if err := b.post("/api/v1/proxy/permissions/resolved", body); err != nil {
		b.Log.Warn("plandash: could not tell the dashboard a permission request ended", "err", err)
	}
}

func outcomeBody(o acp.PermissionOutcome) map[string]string {
	m := map[string]string{"outcome": o.Outcome}
	if o.OptionID != "" {
		m["optionId"] = o.OptionID
	}
	return m
}

func (b *RemoteBroker) offer(req PermissionRequest) error {
	return b.post("/api/v1/proxy/permissions", map[string]any{
		"stream": b.Stream, "id": req.ID, "sessionId": req.SessionID, "params": req.Params, "inIde": req.InIDE,
	})
}

func (b *RemoteBroker) poke() {
	select {
	case b.wake <- struct{}{}:
	default:
	}
}

// Run long-polls for answers while requests are open, until ctx ends.
func (b *RemoteBroker) Run(ctx context.Context) {
	b.init()
	backoff := 100 * time.Millisecond
	for {
		b.mu.Lock()
		n, resend := len(b.open), b.resend
		b.mu.Unlock()
		if n == 0 {
			select {
			case <-ctx.Done():
				return
			case <-b.wake:
			}
			continue
		}
		err := b.resendOffers(resend)
		var answers []answerBody
		if err == nil {
			answers, err = b.poll(ctx)
		}
		if ctx.Err() != nil {
			return
		}
		if err != nil {
			b.mu.Lock()
			b.resend = true
			b.mu.Unlock()
			select {
			case <-ctx.Done():
				return
			case <-time.After(backoff):
			}
			backoff = min(backoff*2, 5*time.Second)
			continue
		}
		backoff = 100 * time.Millisecond
		for _, a := range answers {
			b.deliver(a)
		}
	}
}

func (b *RemoteBroker) resendOffers(resend bool) error {
	if !resend {
		return nil
	}
	b.mu.Lock()
	offers := make([]PermissionRequest, 0, len(b.open))
	for _, o := range b.open {
		offers = append(offers, o.req)
	}
	b.resend = false
	b.mu.Unlock()
	for _, req := range offers {
		if err := b.offer(req); err != nil {
			return err
		}
	}
	return nil
}

type answerBody struct {
	ID      json.RawMessage `json:"id"`
	Outcome struct {
		Outcome  string `json:"outcome"`
		OptionID string `json:"optionId"`
	} `json:"outcome"`
}

func (b *RemoteBroker) deliver(a answerBody) {
	b.mu.Lock()
	o, ok := b.open[string(a.ID)]
	b.mu.Unlock()
	if !ok {
		return // ended meanwhile; Resolved has told the server
	}
	if err := o.answer(acp.PermissionOutcome{Outcome: a.Outcome.Outcome, OptionID: a.Outcome.OptionID}); err != nil {
		b.Log.Info("plandash: the dashboard's answer came too late or did not fit", "err", err)
	}
}

func (b *RemoteBroker) poll(ctx context.Context) ([]answerBody, error) {
	ctx, cancel := context.WithTimeout(ctx, 40*time.Second)
	defer cancel()
	q := url.Values{"stream": {b.Stream}, "wait": {"20s"}}
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, strings.TrimRight(b.Server, "/")+"/api/v1/proxy/answers?"+q.Encode(), nil)
	if err != nil {
		return nil, err
	}
	req.Header.Set("Authorization", "Bearer "+b.Token())
	resp, err := http.DefaultClient.Do(req) // no client timeout: the server holds the poll open
	if err != nil {
		return nil, err
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		return nil, fmt.Errorf("poll for answers: %s", resp.Status)
	}
	var out []answerBody
	return out, json.NewDecoder(io.LimitReader(resp.Body, 1<<20)).Decode(&out)
}

func (b *RemoteBroker) post(path string, body any) error {
	raw, err := json.Marshal(body)
	if err != nil {
		return err
	}
	req, err := http.NewRequest(http.MethodPost, strings.TrimRight(b.Server, "/")+path, bytes.NewReader(raw))
	if err != nil {
		return err
	}
	req.Header.Set("Authorization", "Bearer "+b.Token())
	req.Header.Set("Content-Type", "application/json")
	resp, err := b.Client.Do(req)
	if err != nil {
		return err
	}
	defer resp.Body.Close()
	io.Copy(io.Discard, io.LimitReader(resp.Body, 4<<10))
	if resp.StatusCode/100 != 2 {
		return fmt.Errorf("%s: %s", path, resp.Status)
	}
	return nil
}
