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
	"path/filepath"
	"strings"
	"time"

	"github.com/plandash/plandash/internal/client"
)

func ingestCmd(ctx context.Context, args []string, getenv func(string) string, stdin io.Reader, stdout, stderr io.Writer) error {
	fs := flag.NewFlagSet("plandash ingest", flag.ContinueOnError)
	fs.SetOutput(stderr)
	var f client.Flags
	f.Register(fs)
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
	body, err := io.ReadAll(in) // the transcript, held so that a post refused at the door can be sent again
	if err != nil {
		return fmt.Errorf("read %s: %w", name, err)
	}
	target := client.Resolve(getenv, f)
	if _, err := target.ReadToken(); err != nil {
		return err
	}
	if *stream == "" {
		*stream = fmt.Sprintf("ingest-%d", time.Now().UnixNano())
	}
	res, err := target.Client().Ingest(ctx, bytes.NewReader(body), client.IngestOptions{Stream: *stream, Agent: *agent})
	// A 400 with per-line errors is an answer to show, not a failure to report.
	if err != nil && (client.StatusOf(err) != http.StatusBadRequest || len(res.Errors) == 0) {
		return err
	}
	if *asJSON {
		enc := json.NewEncoder(stdout)
		enc.SetIndent("", "  ")
		if err := enc.Encode(res); err != nil {
			return err
		}
	}
	if !*asJSON {
		fmt.Fprintf(stdout, "%s: %d applied, %d errors\n", name, res.Applied, max(res.ErrorCount, len(res.Errors)))
		for _, e := range res.Errors {
			fmt.Fprintf(stdout, "  line %d: %s (%d)\n", e.Line, e.Message, e.Code)
		}
		if res.ErrorCount > len(res.Errors) {
			fmt.Fprintf(stdout, "  … and %d more errors\n", res.ErrorCount-len(res.Errors))
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
	var f client.Flags
	f.Register(fs)
	embed := fs.Bool("embed", false, "print the address of the iframe view, with the token in the fragment")
	session := fs.String("session", "", "a session id: the address of that session's page")
	demo := fs.Bool("demo", false, "the address of the demo (plandash demo; its data directory is the default one's demo/)")
	if err := fs.Parse(args); err != nil {
		return errUsage
	}
	if *demo && f.DataDir == "" {
		f.DataDir = filepath.Join(defaultDataDir(getenv), "demo")
	}
	target := client.Resolve(getenv, f)
	token, err := target.ReadToken()
	if err != nil {
		return err
	}
	base := strings.TrimRight(target.Server, "/")
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
