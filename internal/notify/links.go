package notify

import (
	"context"
	"crypto/rand"
	"crypto/sha256"
	"encoding/base64"
	"encoding/hex"
	"errors"
	"time"

	"github.com/plandash/plandash/internal/errs"
)

// LinkTTL is the longest a capability link lives; a wait's deadline ends it sooner.
const LinkTTL = 24 * time.Hour

// LinkPath is where capability links are served: LinkPath + token.
const LinkPath = "/answer/"

// HashToken is how a link's token is stored: SHA-256, hex. The token is 256 random bits, so a
// plain hash is enough (nothing to guess, nothing to stretch).
func HashToken(token string) string {
	sum := sha256.Sum256([]byte(token))
	return hex.EncodeToString(sum[:])
}

// newLink makes a link for one answer to w and stores its hash; the raw token is returned
// once, to go into the message.
func newLink(ctx context.Context, st Store, w Wait, a Action, channel string, now time.Time) (string, error) {
	l, token := makeLink(w, a, channel, now)
	return token, st.AddLink(ctx, l)
}

// attachLinks makes the answer links of the began deliveries due now whose message will be
// about one wait that fits, so they are stored in the deliveries' own transaction.
func (n *Notifier) attachLinks(targets []Target, ds []Delivery, now time.Time) {
	byID := map[string]Target{}
	for _, t := range targets {
		byID[t.ID] = t
	}
	due := map[string]int{} // began deliveries due now, per target: chat targets coalesce them
	for _, d := range ds {
		if d.Event == Began && !d.Due.After(now) {
			due[d.Target]++
		}
	}
	base := n.base()
	for i, d := range ds {
		t := byID[d.Target]
		// A chat message announcing several waits offers no buttons; a webhook's batch carries
		// each wait whole, and its links beside it.
		if d.Event != Began || d.Due.After(now) || !d.Wait.OneTap() || (!t.ownMessage() && due[d.Target] > 1) {
			continue
		}
		for _, a := range d.Wait.Actions {
			if a.ID == "text" {
				continue // free text is typed on the page, not tapped
			}
			l, tok := makeLink(d.Wait, a, channel(t.Kind), now)
			ds[i].Links = append(ds[i].Links, l)
			ds[i].buttons = append(ds[i].buttons, button{Action: a.ID, Label: a.Label, URL: base + LinkPath + tok})
		}
	}
}

// makeLink makes a link for one answer to w, to be stored, and its raw token.
func makeLink(w Wait, a Action, channel string, now time.Time) (Link, string) {
	raw := make([]byte, 32)
	rand.Read(raw)
	token := base64.RawURLEncoding.EncodeToString(raw)
	exp := now.Add(LinkTTL)
	if !w.Deadline.IsZero() && w.Deadline.Before(exp) {
		exp = w.Deadline
	}
	return Link{Hash: HashToken(token), WaitID: w.ID, Action: a.ID, Label: a.Label, Channel: channel,
		Title: clip(w.Title, maxTitle), URL: w.URL, Created: now, Expires: exp}, token
}

// LinkRefusal says why a link does not answer; the page shows Msg.
type LinkRefusal struct{ Msg string }

func (e *LinkRefusal) Error() string { return e.Msg }

// ErrorKind makes a refusal a conflict: the link exists but no longer answers.
func (e *LinkRefusal) ErrorKind() errs.Kind { return errs.Conflict }

// Links checks and redeems capability links.
type Links struct {
	Store    Store
	Answerer Answerer
	Now      func() time.Time
	// Open reports whether a wait is still open, so the confirmation page can say it ended;
	// nil leaves that to the answer.
	Open func(waitID string) bool
}

// Check reads the link a token names, refusing one that is unknown, used or expired. It
// changes nothing: the confirmation page (GET) calls it.
func (l Links) Check(ctx context.Context, token string) (Link, error) {
	if len(token) > 100 {
		return Link{}, errs.New(errs.NotFound, "this answer link is not known: it may be mistyped or cut short")
	}
	lk, err := l.Store.Link(ctx, HashToken(token))
	if errs.KindOf(err) == errs.NotFound {
		return lk, errs.New(errs.NotFound, "this answer link is not known: it may be mistyped or cut short")
	}
	if err != nil {
		return lk, err
	}
	switch {
	case !lk.Used.IsZero():
		return lk, &LinkRefusal{"this link was already used at " + lk.Used.UTC().Format(time.RFC3339) + "; nothing was changed now"}
	case !l.Now().Before(lk.Expires):
		return lk, &LinkRefusal{"this link expired at " + lk.Expires.UTC().Format(time.RFC3339) + "; answer on the wait's page instead"}
	case l.Open != nil && !l.Open(lk.WaitID):
		return lk, &LinkRefusal{"this wait has already ended, so there is nothing left to answer; nothing was changed"}
	}
	return lk, nil
}

// Redeem answers the link's wait with the link's action, once. waitID and action are what the
// confirmation form says; when given they must be the link's own (a link answers one wait with
// one action, whatever a tampered form says). It returns the outcome in words.
func (l Links) Redeem(ctx context.Context, token, waitID, action string) (Link, string, error) {
	lk, err := l.Check(ctx, token)
	if err != nil {
		return lk, "", err
	}
	if waitID != "" && waitID != lk.WaitID {
		return lk, "", &LinkRefusal{"this link answers another wait; nothing was changed"}
	}
	if action != "" && action != lk.Action {
		return lk, "", &LinkRefusal{"this link can only " + lk.Label + "; nothing was changed"}
	}
	ok, err := l.Store.UseLink(ctx, lk.Hash, l.Now())
	if err != nil {
		return lk, "", err
	}
	if !ok {
		return lk, "", &LinkRefusal{"this link was already used; nothing was changed now"}
	}
	outcome, err := l.Answerer.Answer(ctx, lk.WaitID, lk.Action, lk.Channel)
	if err != nil {
		var ke interface{ ErrorKind() errs.Kind }
		if errors.As(err, &ke) && ke.ErrorKind() != errs.Internal && ke.ErrorKind() != errs.Unavailable {
			return lk, "", &LinkRefusal{"the wait had already ended: " + err.Error() + "; nothing was changed"}
		}
		if uerr := l.Store.UnuseLink(context.WithoutCancel(ctx), lk.Hash); uerr != nil {
			err = errors.Join(err, uerr)
		}
		return lk, "", err
	}
	return lk, outcome, nil
}
