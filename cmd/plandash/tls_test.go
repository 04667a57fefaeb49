package main

import (
	"bytes"
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
	"os/exec"
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

var httpsLine = regexp.MustCompile(`Open the dashboard: (https://[^/\s]+)/\?token=(\S+)`)

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
			tok, err := url.QueryUnescape(m[2])
			if err != nil {
				t.Fatal(err)
			}
			return tok, stop
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

func TestServeRefusesHalfATLSPair(t *testing.T) {
	p := newTestPKI(t)
	for _, args := range [][]string{{"--tls-cert", p.cert}, {"--tls-key", p.key}} {
		_, errOut, err := runOut(t, testEnv(t), "", append([]string{"serve", "--addr", "127.0.0.1:0", "--data", t.TempDir()}, args...)...)
		if err != errUsage || !strings.Contains(errOut, "--tls-cert and --tls-key go together") {
			t.Fatalf("serve %v: %v, %q; want a usage error naming both flags", args, err, errOut)
		}
	}
	_, _, err := runOut(t, testEnv(t), "", "serve", "--addr", "127.0.0.1:0", "--data", t.TempDir(), "--tls-cert", p.key, "--tls-key", p.key)
	if err == nil || !strings.Contains(err.Error(), "--tls-cert") {
		t.Fatalf("a key given as the certificate: %v, want an error naming --tls-cert", err)
	}
}

// TestRemoteAgentsOverTLS: the server on HTTPS with a private CA; the agent side's commands
// (ingest, hook, acp) reach it with $PLANDASH_CA and a per-agent token from the environment,
// record the token's name, ride out a restart of the server, and are refused once the token
// is revoked.
func TestRemoteAgentsOverTLS(t *testing.T) {
	if _, err := exec.LookPath("sh"); err != nil {
		t.Skip("no sh to play the agent")
	}
	p := newTestPKI(t)
	data, addr := t.TempDir(), freeAddr(t)
	base := "https://" + addr
	admin, stop := serveTLS(t, p, addr, data)
	hc := p.httpsClient(t)

	// The browser's cookie is Secure under TLS.
	resp, err := hc.Get(base + "/?token=" + url.QueryEscape(admin))
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if c := resp.Header.Get("Set-Cookie"); !strings.Contains(c, "Secure") {
		t.Fatalf("the cookie over TLS is not Secure: %q", c)
	}

	// An admin makes the agent's token on the server machine, while it runs.
	secret, errOut, err := runOut(t, testEnv(t), "", "tokens", "create", "laptop-1", "--data", data, "--scope", "ingest", "--expires", "30d")
	if err != nil {
		t.Fatalf("tokens create: %v\n%s", err, errOut)
	}
	secret = strings.TrimSpace(secret)
	env := testEnv(t)
	agentEnv := func(k string) string {
		switch k {
		case "PLANDASH_TOKEN":
			return secret
		case "PLANDASH_CA":
			return p.ca
		case "PLANDASH_SERVER":
			return base
		}
		return env(k)
	}
	transcript := writeFile(t, "t.ndjson", `{"jsonrpc":"2.0","method":"session/update","params":{"sessionId":"s-ingest","update":{"sessionUpdate":"plan","entries":[{"content":"Build","priority":"high","status":"pending"}]}}}`+"\n")

	// Without the CA the server's certificate is not trusted.
	noCA := func(k string) string {
		if k == "PLANDASH_CA" {
			return ""
		}
		return agentEnv(k)
	}
	if _, _, err := runOut(t, noCA, "", "ingest", transcript); err == nil || !strings.Contains(err.Error(), "certificate") || !strings.Contains(err.Error(), "$PLANDASH_CA") {
		t.Fatalf("ingest without the CA: %v, want a certificate error", err)
	}
	if out, errOut, err := runOut(t, agentEnv, "", "ingest", transcript); err != nil || !strings.Contains(out, "1 applied") {
		t.Fatalf("ingest over TLS: %v %q %q", err, out, errOut)
	}
	if s := getSession(t, hc, base, admin, "s-ingest"); !strings.Contains(s, `"source": "token:laptop-1"`) {
		t.Fatalf("the ingested session does not name the token: %s", s)
	}

	event, err := os.ReadFile("../../internal/agents/claude/testdata/post_todowrite.json")
	if err != nil {
		t.Fatal(err)
	}
	var out, hookErr bytes.Buffer
	if err := run(context.Background(), []string{"hook", "claude", "--ca", p.ca}, agentEnv, bytes.NewReader(event), &out, &hookErr); err != nil {
		t.Fatalf("hook over TLS: %v %s", err, hookErr.String())
	}
	waitSession(t, hc, base, admin, "claude-code:3f2a9c1e-7b4d-4e0a-9c55-1d2e3f4a5b6c", `"source": "token:laptop-1"`)

	// acp: the agent sends one frame, waits while the server restarts, then sends another.
	gate := filepath.Join(t.TempDir(), "go")
	frame := func(id string) string {
		return `{"jsonrpc":"2.0","method":"session/update","params":{"sessionId":"` + id + `","update":{"sessionUpdate":"plan","entries":[{"content":"Step","priority":"high","status":"pending"}]}}}`
	}
	script := "printf '%s\\n' '" + frame("s-acp-1") + "'; while [ ! -e " + gate + " ]; do sleep 0.05; done; printf '%s\\n' '" + frame("s-acp-2") + "'"
	acpDone := make(chan error, 1)
	var acpOut, acpErr syncBuffer
	go func() {
		acpDone <- run(context.Background(), []string{"acp", "--flush", "25s", "--", "sh", "-c", script}, agentEnv, strings.NewReader(""), &acpOut, &acpErr)
	}()
	waitSession(t, hc, base, admin, "s-acp-1", `"source": "token:laptop-1"`)
	stop()
	if err := os.WriteFile(gate, nil, 0o600); err != nil {
		t.Fatal(err)
	}
	admin, stop = serveTLS(t, p, addr, data)
	if err := receive(t, acpDone, "exit of plandash acp"); err != nil {
		t.Fatalf("acp: %v\n%s", err, acpErr.String())
	}
	if s := getSession(t, hc, base, admin, "s-acp-2"); !strings.Contains(s, `"source": "token:laptop-1"`) {
		t.Fatalf("the frame sent across the restart was lost or does not name the token: %q\n%s", s, acpErr.String())
	}

	// approval request: the agent waits on its own request across a restart, and hears the
	// decision made after it.
	req := writeFile(t, "req.json", `{"title":"Deploy over TLS","agent":"ci","plan":{"type":"items","entries":[{"content":"Ship","priority":"high","status":"pending"}]}}`)
	apprDone := make(chan error, 1)
	var apprOut, apprErr syncBuffer
	go func() {
		apprDone <- run(context.Background(), []string{"approval", "request", req}, agentEnv, strings.NewReader(""), &apprOut, &apprErr)
	}()
	id := ""
	for deadline := time.Now().Add(testWait); id == ""; {
		for _, r := range pendingApprovals(t, hc, base, admin) {
			id = r
		}
		if id == "" && time.Now().After(deadline) {
			t.Fatalf("the approval request never arrived:\n%s", apprErr.String())
		}
		time.Sleep(20 * time.Millisecond) // polling interval, not an assertion
	}
	stop()
	admin, stop = serveTLS(t, p, addr, data)
	decide, err := http.NewRequest("POST", base+"/api/v1/approvals/"+id+"/decision", strings.NewReader(`{"action":"approve","comment":"after the restart"}`))
	if err != nil {
		t.Fatal(err)
	}
	decide.Header.Set("Authorization", "Bearer "+admin)
	resp, err = hc.Do(decide)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != 200 {
		t.Fatalf("decide: %s", resp.Status)
	}
	if err := receive(t, apprDone, "exit of plandash approval request"); err != nil || !strings.Contains(apprOut.String(), "approved by tester") {
		t.Fatalf("approval request across a restart: %v %q\n%s", err, apprOut.String(), apprErr.String())
	}

	// Revoked on the server machine: refused (within a second on every instance).
	if out, errOut, err := runOut(t, env, "", "tokens", "revoke", "laptop-1", "--data", data); err != nil || !strings.Contains(out, "revoked") {
		t.Fatalf("tokens revoke: %v %q %q", err, out, errOut)
	}
	for deadline := time.Now().Add(testWait); ; {
		_, _, err := runOut(t, agentEnv, "", "ingest", transcript)
		if err != nil && strings.Contains(err.Error(), "revoked") {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("the revoked token is still taken: %v", err)
		}
		time.Sleep(50 * time.Millisecond) // polling interval, not an assertion
	}
	list, _, err := runOut(t, env, "", "tokens", "list", "--data", data)
	if err != nil || !regexp.MustCompile(`laptop-1\s+ingest\s+\S+ \S+\s+\S+ \S+\s+\S+ \S+\s+\S+ \S+`).MatchString(list) || strings.Contains(list, secret[4:]) {
		t.Fatalf("tokens list: %v\n%s\nwant laptop-1 with created, expires, last used and revoked times, and no secret", err, list)
	}
}
