package client

import (
	"crypto/tls"
	"crypto/x509"
	"errors"
	"fmt"
	"net/http"
	"os"
	"sync"
)

// LoadCA is the system's trusted roots plus the certificate authorities in the PEM file at
// path: a team's private CA that signed the server's certificate.
func LoadCA(path string) (*x509.CertPool, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("--ca / $PLANDASH_CA: %w", err)
	}
	pool, err := x509.SystemCertPool()
	if err != nil || pool == nil {
		pool = x509.NewCertPool()
	}
	if !pool.AppendCertsFromPEM(b) {
		return nil, fmt.Errorf("--ca / $PLANDASH_CA: %s holds no PEM certificate", path)
	}
	return pool, nil
}

// WithCA makes the client trust, besides the system's roots, the certificate authorities in the
// PEM file at path, for a server whose certificate a private CA signed. The file is read at the
// first call; a file that cannot be read fails every call, with a message that names it, and is
// not retried.
func WithCA(path string) Option {
	return func(c *Client) { c.hc = &http.Client{Transport: &caTransport{path: path}} }
}

// caTransport is the default transport trusting a CA file, loaded once.
type caTransport struct {
	path string
	once sync.Once
	rt   http.RoundTripper
	err  error
}

func (t *caTransport) RoundTrip(req *http.Request) (*http.Response, error) {
	t.once.Do(func() {
		pool, err := LoadCA(t.path)
		if err != nil {
			t.err = &caError{err}
			return
		}
		base, ok := http.DefaultTransport.(*http.Transport)
		if !ok {
			t.err = &caError{errors.New("the default HTTP transport was replaced")}
			return
		}
		tr := base.Clone()
		tr.TLSClientConfig = &tls.Config{RootCAs: pool, MinVersion: tls.VersionTLS12}
		t.rt = tr
	})
	if t.err != nil {
		if req.Body != nil {
			req.Body.Close()
		}
		return nil, t.err
	}
	return t.rt.RoundTrip(req)
}

// caError is a CA file that could not be used: the caller's set-up, not the network.
type caError struct{ err error }

func (e *caError) Error() string { return e.err.Error() }
func (e *caError) Unwrap() error { return e.err }
