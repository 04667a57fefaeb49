package main

import (
	"context"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/tls"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/json"
	"encoding/pem"
	"io"
	"math/big"
	"net"
	"net/http"
	"net/url"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"
)

// testPKI is a private CA and a certificate it signed for 127.0.0.1, in PEM files.
type testPKI struct{ ca, cert, key string }

func newTestPKI(t *testing.T) testPKI {
	t.Helper()
	dir := t.TempDir()
	caKey, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	now := time.Now()
	caTmpl := &x509.Certificate{
		SerialNumber: big.NewInt(1), Subject: pkix.Name{CommonName: "plandash test CA"},
		NotBefore: now.Add(-time.Hour), NotAfter: now.Add(time.Hour),
		IsCA: true, BasicConstraintsValid: true, KeyUsage: x509.KeyUsageCertSign,
	}
	caDER, err := x509.CreateCertificate(rand.Reader, caTmpl, caTmpl, &caKey.PublicKey, caKey)
	if err != nil {
		t.Fatal(err)
	}
	caCert, err := x509.ParseCertificate(caDER)
	if err != nil {
		t.Fatal(err)
	}
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	tmpl := &x509.Certificate{
		SerialNumber: big.NewInt(2), Subject: pkix.Name{CommonName: "plandash"},
		NotBefore: now.Add(-time.Hour), NotAfter: now.Add(time.Hour),
		IPAddresses: []net.IP{net.IPv4(127, 0, 0, 1)}, DNSNames: []string{"localhost"},
		KeyUsage: x509.KeyUsageDigitalSignature, ExtKeyUsage: []x509.ExtKeyUsage{x509.ExtKeyUsageServerAuth},
	}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, caCert, &key.PublicKey, caKey)
	if err != nil {
		t.Fatal(err)
	}
	keyDER, err := x509.MarshalECPrivateKey(key)
	if err != nil {
		t.Fatal(err)
	}
	p := testPKI{ca: filepath.Join(dir, "ca.pem"), cert: filepath.Join(dir, "cert.pem"), key: filepath.Join(dir, "key.pem")}
	for path, block := range map[string]*pem.Block{
		p.ca: {Type: "CERTIFICATE", Bytes: caDER}, p.cert: {Type: "CERTIFICATE", Bytes: der}, p.key: {Type: "EC PRIVATE KEY", Bytes: keyDER},
	} {
		if err := os.WriteFile(path, pem.EncodeToMemory(block), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	return p
}

// httpsClient trusts the test CA only.
func (p testPKI) httpsClient(t *testing.T) *http.Client {
	t.Helper()
	b, err := os.ReadFile(p.ca)
	if err != nil {
		t.Fatal(err)
	}
	pool := x509.NewCertPool()
	if !pool.AppendCertsFromPEM(b) {
		t.Fatal("no CA certificate")
	}
	return &http.Client{Timeout: testWait, Transport: &http.Transport{TLSClientConfig: &tls.Config{RootCAs: pool}},
		CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}
}

var httpsLine = regexp.MustCompile(`plandash serve on (https://[^/\s]+) \(data: ([^;)]+)[;)][^\n]*\nOpen the dashboard: https://`)

// serveTLS runs `plandash serve` with TLS on addr and data until the returned stop is called
// (or the test ends); it returns once the server printed its address.
func serveTLS(t *testing.T, p testPKI, addr, data string) (token string, stop func()) {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	var stdout, stderr syncBuffer
	done := make(chan error, 1)
	args := []string{"serve", "--addr", addr, "--data", data, "--plans-dir", filepath.Join(data, "shared"), "--tls-cert", p.cert, "--tls-key", p.key}
	go func() { done <- run(ctx, args, testEnv(t), strings.NewReader(""), &stdout, &stderr) }()
	stopped := false
	stop = func() {
		if stopped {
			return
		}
		stopped = true
		cancel()
		if err := receive(t, done, "exit of plandash serve"); err != nil {
			t.Errorf("plandash serve ended with %v\n%s", err, stderr.String())
		}
	}
	t.Cleanup(stop)
	deadline := time.Now().Add(testWait)
	for {
		if m := httpsLine.FindStringSubmatch(stdout.String()); m != nil {
			return tokenIn(t, m[2], args), stop
		}
		select {
		case err := <-done:
			stopped = true
			t.Fatalf("plandash serve exited before printing an https address: %v\n%s%s", err, stdout.String(), stderr.String())
		case <-time.After(10 * time.Millisecond): // polling interval, not an assertion
		}
		if time.Now().After(deadline) {
			t.Fatalf("plandash serve printed no https address within %s:\n%s", testWait, stdout.String())
		}
	}
}

// getSession reads a session over TLS with the admin token; its body, or "" when not found.
func getSession(t *testing.T, hc *http.Client, base, token, id string) string {
	t.Helper()
	req, err := http.NewRequest("GET", base+"/api/v1/sessions/"+url.PathEscape(id), nil)
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Authorization", "Bearer "+token)
	resp, err := hc.Do(req)
	if err != nil {
		t.Fatalf("GET session %s: %v", id, err)
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatal(err)
	}
	if resp.StatusCode == http.StatusNotFound {
		return ""
	}
	if resp.StatusCode != 200 {
		t.Fatalf("GET session %s: %d %s", id, resp.StatusCode, b)
	}
	return string(b)
}

// pendingApprovals lists the ids of the requests waiting for a decision.
func pendingApprovals(t *testing.T, hc *http.Client, base, token string) []string {
	t.Helper()
	req, err := http.NewRequest("GET", base+"/api/v1/approvals?status=pending", nil)
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Authorization", "Bearer "+token)
	resp, err := hc.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	var out struct {
		Requests []struct {
			ID     string `json:"id"`
			Status string `json:"status"`
		} `json:"requests"`
	}
	if err := json.NewDecoder(resp.Body).Decode(&out); err != nil {
		t.Fatal(err)
	}
	var ids []string
	for _, r := range out.Requests {
		if r.Status == "pending" {
			ids = append(ids, r.ID)
		}
	}
	return ids
}

// waitSession polls a session until its body holds want: a hook's event is acknowledged
// before it is recorded.
func waitSession(t *testing.T, hc *http.Client, base, token, id, want string) {
	t.Helper()
	for deadline := time.Now().Add(testWait); ; {
		s := getSession(t, hc, base, token, id)
		if strings.Contains(s, want) {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("session %s never held %s: %q", id, want, s)
		}
		time.Sleep(20 * time.Millisecond) // polling interval, not an assertion
	}
}

// freeAddr is a loopback address nothing listens on, to serve on it twice (a restart).
func freeAddr(t *testing.T) string {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := ln.Addr().String()
	if err := ln.Close(); err != nil {
		t.Fatal(err)
	}
	return addr
}
