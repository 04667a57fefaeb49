package main

import (
	"bytes"
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"os"
	"strings"
	"time"

	"github.com/plandash/plandash/internal/web"
)

// clientFlags are the flags of commands that talk to a running server.
type clientFlags struct {
	server, token, data string
}

func (f *clientFlags) register(fs *flag.FlagSet, getenv func(string) string) {
	fs.StringVar(&f.server, "server", "http://127.0.0.1:7420", "the plandash server")
	fs.StringVar(&f.token, "token", getenv("PLANDASH_TOKEN"), "the server's token (default: $PLANDASH_TOKEN, or the one in --data)")
	fs.StringVar(&f.data, "data", defaultDataDir(getenv), "data directory to read the token from")
}

func (f *clientFlags) resolveToken() (string, error) {
	if f.token != "" {
		return f.token, nil
	}
	b, err := os.ReadFile(f.data + "/token")
	if err != nil {
		return "", fmt.Errorf("no token: pass --token or $PLANDASH_TOKEN, or --data of the server (%v)", err)
	}
	return strings.TrimSpace(string(b)), nil
}

func ingestCmd(ctx context.Context, args []string, getenv func(string) string, stdin io.Reader, stdout, stderr io.Writer) error {
	fs := flag.NewFlagSet("plandash ingest", flag.ContinueOnError)
	fs.SetOutput(stderr)
	var f clientFlags
	f.register(fs, getenv)
	stream := fs.String("stream", "", "stream id: posts with the same id are one connection (default: one per run)")
	agent := fs.String("agent", "", "agent name, when the transcript has no initialize")
	asJSON := fs.Bool("json", false, "print the server's answer as JSON")
	if err := fs.Parse(args); err != nil {
		return errUsage
	}
	if fs.NArg() > 1 {
		fmt.Fprintln(stderr, "plandash ingest: give one FILE, or - for stdin")
		return errUsage
	}
	in := stdin
	name := "stdin"
	if p := fs.Arg(0); p != "" && p != "-" {
		fh, err := os.Open(p)
		if err != nil {
			return err
		}
		defer fh.Close()
		in, name = fh, p
	}
	body, err := io.ReadAll(in)
	if err != nil {
		return fmt.Errorf("read %s: %w", name, err)
	}
	token, err := f.resolveToken()
	if err != nil {
		return err
	}
	q := url.Values{}
	if *stream == "" {
		*stream = fmt.Sprintf("ingest-%d", time.Now().UnixNano())
	}
	q.Set("stream", *stream)
	if *agent != "" {
		q.Set("agent", *agent)
	}
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, strings.TrimRight(f.server, "/")+"/api/v1/ingest?"+q.Encode(), bytes.NewReader(body))
	if err != nil {
		return err
	}
	req.Header.Set("Authorization", "Bearer "+token)
	req.Header.Set("Content-Type", "application/x-ndjson")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		return fmt.Errorf("post to %s: %w (is the server running?)", f.server, err)
	}
	defer resp.Body.Close()
	raw, _ := io.ReadAll(resp.Body)
	if *asJSON {
		stdout.Write(raw)
	}
	var res web.IngestResult
	if resp.StatusCode != http.StatusOK && resp.StatusCode != http.StatusBadRequest || json.Unmarshal(raw, &res) != nil {
		var p web.Problem
		if json.Unmarshal(raw, &p) == nil && p.Detail != "" {
			return fmt.Errorf("%s: %s", resp.Status, p.Detail)
		}
		return fmt.Errorf("%s: %s", resp.Status, bytes.TrimSpace(raw))
	}
	if !*asJSON {
		fmt.Fprintf(stdout, "%s: %d applied, %d errors\n", name, res.Applied, len(res.Errors))
		for _, e := range res.Errors {
			fmt.Fprintf(stdout, "  line %d: %s (%d)\n", e.Line, e.Message, e.Code)
		}
		for _, w := range res.Warnings {
			fmt.Fprintf(stdout, "  line %d: warning: %s\n", w.Line, w.Message)
		}
	}
	if len(res.Errors) > 0 {
		return exitCode(1)
	}
	return nil
}

func urlCmd(args []string, getenv func(string) string, stdout, stderr io.Writer) error {
	fs := flag.NewFlagSet("plandash url", flag.ContinueOnError)
	fs.SetOutput(stderr)
	var f clientFlags
	f.register(fs, getenv)
	embed := fs.Bool("embed", false, "print the address of the iframe view, with the token in the fragment")
	session := fs.String("session", "", "a session id: the address of that session's page")
	if err := fs.Parse(args); err != nil {
		return errUsage
	}
	token, err := f.resolveToken()
	if err != nil {
		return err
	}
	base := strings.TrimRight(f.server, "/")
	path := "/"
	if *session != "" {
		path = "/sessions/" + url.PathEscape(*session)
	}
	if *embed {
		// The fragment never leaves the browser: the token stays out of server logs and referrers.
		fmt.Fprintf(stdout, "%s/embed%s#token=%s\n", base, strings.TrimSuffix(path, "/"), url.QueryEscape(token))
		return nil
	}
	fmt.Fprintf(stdout, "%s%s?token=%s\n", base, path, url.QueryEscape(token))
	return nil
}

func mkdir(dir string) error { return os.MkdirAll(dir, 0o755) }
