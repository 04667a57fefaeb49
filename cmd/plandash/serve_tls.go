package main

import (
	"crypto/tls"
	"errors"
	"fmt"
	"net"
)

// errHalfTLS refuses --tls-cert without --tls-key or the other way round: serving plain HTTP
// when the operator meant HTTPS would send the token in the clear.
var errHalfTLS = errors.New("--tls-cert and --tls-key go together: give both (a PEM certificate chain and its private key) or neither")

// tlsConfig is the server's TLS set-up from the certificate and key files, nil when neither is
// given.
func tlsConfig(certFile, keyFile string) (*tls.Config, error) {
	switch {
	case certFile == "" && keyFile == "":
		return nil, nil
	case certFile == "" || keyFile == "":
		return nil, errHalfTLS
	}
	cert, err := tls.LoadX509KeyPair(certFile, keyFile)
	if err != nil {
		return nil, fmt.Errorf("--tls-cert %s / --tls-key %s: %w", certFile, keyFile, err)
	}
	return &tls.Config{
		Certificates: []tls.Certificate{cert},
		MinVersion:   tls.VersionTLS12,
		// HTTP/1.1 only: the live socket is a WebSocket upgrade, which needs HTTP/1.1, and
		// a browser's handful of connections per host is plenty for one dashboard tab.
		NextProtos: []string{"http/1.1"},
	}, nil
}

// listen listens on addr, with TLS when cfg is not nil, and returns the base URL clients use.
func listen(addr string, cfg *tls.Config) (net.Listener, string, error) {
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		return nil, "", fmt.Errorf("listen on %s: %w", addr, err)
	}
	if cfg == nil {
		return ln, "http://" + ln.Addr().String(), nil
	}
	return tls.NewListener(ln, cfg), "https://" + ln.Addr().String(), nil
}
