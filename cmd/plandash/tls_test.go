package main

import (
	"bytes"
	"context"
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
	admin, _ = serveTLS(t, p, addr, data) // stopped when the test ends
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
