package app

import (
	"log/slog"
	"net/url"
	"sync"
	"time"

	"github.com/plandash/plandash/internal/notify"
)

// browserOpener brings the page to a person at a desktop: when a wait begins and no plandash
// page is open anywhere (no live socket), it opens the waiting request in the default browser.
// Once it has opened one tab it opens no other until a page has connected (that tab, then,
// shows every later wait in its "Needs you" strip) or a minute passed without one.
type browserOpener struct {
	open  func(string) error
	pages func() int64 // live sockets open now
	base  func() string
	token string
	now   func() time.Time
	log   *slog.Logger

	mu     sync.Mutex
	opened time.Time // when a tab was opened that no page has connected from yet; zero: none
}

// began is the notifier's OnBegin: it runs on the notifier's goroutine, so the browser is
// started without waiting on it.
func (o *browserOpener) began(w notify.Wait) {
	o.mu.Lock()
	defer o.mu.Unlock()
	if o.pages() > 0 {
		o.opened = time.Time{}
		return
	}
	if !o.opened.IsZero() && o.now().Sub(o.opened) < time.Minute {
		return
	}
	o.opened = o.now()
	u := o.base() + w.URL + "?token=" + url.QueryEscape(o.token)
	go func() {
		if err := o.open(u); err != nil {
			o.log.Warn("could not open the browser on a waiting request", "err", err)
		}
	}()
}
