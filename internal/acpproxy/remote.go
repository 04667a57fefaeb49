package acpproxy

import (
	"context"
	"encoding/json"
	"log/slog"
	"sync"
	"time"

	"github.com/plandash/plandash/internal/acp"
	"github.com/plandash/plandash/internal/client"
)

// RemoteBroker is the PermissionBroker of `plandash acp --approvals=both|dashboard`: it offers
// requests to a plandash server (POST /api/v1/proxy/permissions) and long-polls it for the
// dashboard's answers (GET /api/v1/proxy/answers). The server keeps offers in memory, so after
// any failure to reach it the broker offers every open request again.
type RemoteBroker struct {
	// API is the dashboard. The broker calls it without the client's retries and with a 5 s
	// bound on offers and resolutions: it re-offers in its own loop, and must notice each
	// failure, since a server that restarted has forgotten the offers.
	API    *client.Client
	Stream string
	Log    *slog.Logger

	api    *client.Client
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
	if b.api == nil {
		b.api = b.API.With(client.WithRetry(client.Retry{}), client.WithTimeout(5*time.Second))
	}
	if b.Log == nil {
		b.Log = slog.New(slog.DiscardHandler)
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
	end := client.PermissionEnd{Stream: b.Stream, ID: id, By: r.By}
	if r.Outcome.Outcome != "" {
		end.Outcome = &client.Outcome{Outcome: r.Outcome.Outcome, OptionID: r.Outcome.OptionID, Feedback: r.Outcome.Feedback}
	}
	if err := b.api.EndPermission(context.Background(), end); err != nil {
		b.Log.Warn("plandash: could not tell the dashboard a permission request ended", "err", err)
	}
}

func (b *RemoteBroker) offer(req PermissionRequest) error {
	return b.api.OfferPermission(context.Background(), client.PermissionOffer{
		Stream: b.Stream, ID: req.ID, SessionID: req.SessionID, Params: req.Params, InIDE: req.InIDE,
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
		var answers []client.PermissionAnswer
		if err == nil {
			answers, err = b.api.PermissionAnswers(ctx, b.Stream, 20*time.Second)
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

func (b *RemoteBroker) deliver(a client.PermissionAnswer) {
	b.mu.Lock()
	o, ok := b.open[string(a.ID)]
	b.mu.Unlock()
	if !ok {
		return // ended meanwhile; Resolved has told the server
	}
	if err := o.answer(acp.PermissionOutcome{Outcome: a.Outcome.Outcome, OptionID: a.Outcome.OptionID, Feedback: a.Outcome.Feedback}); err != nil {
		b.Log.Info("plandash: the dashboard's answer came too late or did not fit", "err", err)
	}
}
