package main

import (
	"crypto/tls"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"os"
	"sync"
	"time"
)

// errHalfTLS refuses --tls-cert without --tls-key or the other way round: serving plain HTTP
// when the operator meant HTTPS would send the token in the clear.
var errHalfTLS = errors.New("--tls-cert and --tls-key go together: give both (a PEM certificate chain and its private key) or neither")

// tlsConfig is the server's TLS set-up from the certificate and key files, nil when neither is
// given. The pair is loaded now, so a bad one stops the start; a renewed pair written over the
// files later is picked up without a restart (see certFiles).
func tlsConfig(certFile, keyFile string, log *slog.Logger) (*tls.Config, error) {
	switch {
	case certFile == "" && keyFile == "":
		return nil, nil
	case certFile == "" || keyFile == "":
		return nil, errHalfTLS
	}
	cf := &certFiles{cert: certFile, key: keyFile, log: log, now: time.Now}
	if err := cf.load(); err != nil {
		return nil, err
	}
	return &tls.Config{
		GetCertificate: cf.get,
		MinVersion:     tls.VersionTLS12,
		// HTTP/1.1 only: the live socket is a WebSocket upgrade, which needs HTTP/1.1, and
		// a browser's handful of connections per host is plenty for one dashboard tab.
		NextProtos: []string{"http/1.1"},
	}, nil
}

// certCheckEvery is how often a handshake looks whether the files changed: certificates are
// renewed every few weeks, and a stat per handshake would be waste.
const certCheckEvery = 30 * time.Second

// certFiles serves the pair in two files and reloads it when either file changes (a renewal by
// certbot or a secret mount); a pair that fails to load is logged and the last good one kept.
type certFiles struct {
	cert, key string
	log       *slog.Logger
	now       func() time.Time

	mu      sync.Mutex
	current *tls.Certificate
	stamp   [2]time.Time // the files' modification times when current was loaded
	checked time.Time
}

func (c *certFiles) load() error {
	st, err := c.stamps()
	if err != nil {
		return err
	}
	pair, err := tls.LoadX509KeyPair(c.cert, c.key)
	if err != nil {
		return fmt.Errorf("--tls-cert %s / --tls-key %s: %w", c.cert, c.key, err)
	}
	c.current, c.stamp = &pair, st
	return nil
}

func (c *certFiles) stamps() ([2]time.Time, error) {
	var st [2]time.Time
	for i, path := range []string{c.cert, c.key} {
		fi, err := os.Stat(path)
		if err != nil {
			return st, fmt.Errorf("TLS: %w", err)
		}
		st[i] = fi.ModTime()
	}
	return st, nil
}

func (c *certFiles) get(*tls.ClientHelloInfo) (*tls.Certificate, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	now := c.now()
	if now.Sub(c.checked) < certCheckEvery && !now.Before(c.checked) {
		return c.current, nil
	}
	c.checked = now
	if st, err := c.stamps(); err == nil && st == c.stamp {
		return c.current, nil
	}
	old := c.current
	if err := c.load(); err != nil {
		c.current = old
		c.log.Error("TLS: the changed certificate or key did not load; still serving the previous one", "err", err)
		return old, nil
	}
	c.log.Info("TLS: certificate reloaded", "cert", c.cert)
	return c.current, nil
}

// secure puts TLS on ln when cfg is not nil, and returns the base URL clients use.
func secure(ln net.Listener, cfg *tls.Config) (net.Listener, string) {
	if cfg == nil {
		return ln, "http://" + ln.Addr().String()
	}
	return tls.NewListener(ln, cfg), "https://" + ln.Addr().String()
}
