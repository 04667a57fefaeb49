package postgres

import (
	"testing"

	"github.com/plandash/plandash/internal/notify"
	"github.com/plandash/plandash/internal/notify/notifytest"
	"github.com/plandash/plandash/internal/store/postgres/pgtest"
)

func TestNotifyContract(t *testing.T) {
	var url string
	notifytest.Run(t, func(t *testing.T) notify.Store {
		url = pgtest.URL(t)
		return open(t, url).Notify()
	}, func(t *testing.T) notify.Store {
		return open(t, url).Notify() // a second instance on the same database
	})
}
