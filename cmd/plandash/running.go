package main

import (
	"context"
	"net/url"
	"strings"
	"time"

	"github.com/plandash/plandash/internal/client"
)

// runningAt is the address of a plandash already serving from dataDir, or "" when none answers
// there. Two servers on one SQLite data directory would share its database while each believed
// the recorded address its own; a newcomer who starts the demo twice wants the first one's URL.
func runningAt(ctx context.Context, dataDir string) string {
	base := client.ReadAddr(dataDir)
	if base == "" || !strings.HasPrefix(base, "http://") {
		return "" // an https server's certificate may be private: let the second start fail loudly instead
	}
	c := client.New(base, "", client.WithTimeout(time.Second), client.WithRetry(client.Retry{}))
	if _, err := c.Health(ctx); err != nil {
		return ""
	}
	return base
}

// dashboardURL is base with the token of dataDir, as the banner prints it; just base when the
// token cannot be read.
func dashboardURL(base, dataDir string) string {
	tok, err := client.Target{DataDir: dataDir}.ReadToken()
	if err != nil {
		return base + "/"
	}
	return base + "/?token=" + url.QueryEscape(tok)
}
