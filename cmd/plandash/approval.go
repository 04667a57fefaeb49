package main

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/plandash/plandash/internal/approval"
	"github.com/plandash/plandash/internal/mcpserver"
	"github.com/plandash/plandash/internal/web"
)

const approvalUsage = `Usage: plandash approval request [flags] FILE

Submits the plan in FILE (- for stdin) to a running plandash's gate and waits for a person's
decision. FILE is a request ({"title": …, "plan": {…}, "timeout": "15m", …}) or just a plan
({"type": "items", "entries": […]}, {"type": "markdown", "markdown": …}, {"type": "dag", "calls": […]}).

Prints the decision (and the plan to run, when it was changed). Exit status: 0 approved or
modified, 3 rejected (also when the deadline passed and the default was to reject), 1 on errors.
`

// approvalCmd submits plans to the gate and waits for the decision.
func approvalCmd(ctx context.Context, args []string, getenv func(string) string, stdin io.Reader, stdout, stderr io.Writer) error {
	if len(args) == 0 || args[0] != "request" {
		fmt.Fprint(stderr, approvalUsage)
		return errUsage
	}
	fs := flag.NewFlagSet("plandash approval request", flag.ContinueOnError)
	fs.SetOutput(stderr)
	fs.Usage = func() { fmt.Fprint(stderr, approvalUsage, "\nFlags:\n"); fs.PrintDefaults() }
	var f clientFlags
	f.register(fs, getenv)
	title := fs.String("title", "", "the request's title (default: the file's, else the file name)")
	agent := fs.String("agent", "", "who asks (default: the file's)")
	timeout := fs.Duration("timeout", 0, "how long a person has to decide (default: the file's, else the server's, 1h)")
	asJSON := fs.Bool("json", false, "print the decided request as JSON")
	if err := fs.Parse(args[1:]); err != nil {
		return errUsage
	}
	if fs.NArg() != 1 {
		fs.Usage()
		return errUsage
	}
	sub, err := readSubmission(fs.Arg(0), stdin)
	if err != nil {
		return err
	}
	if *title != "" {
		sub.Title = *title
	}
	if *agent != "" {
		sub.Agent = *agent
	}
	if *timeout != 0 {
		sub.Timeout, sub.Deadline = approval.Duration(*timeout), time.Time{}
	}
	c := gateClient{f: f}
	r, page, err := c.submit(ctx, sub)
	if err != nil {
		return err
	}
	if !r.Decided() {
		fmt.Fprintf(stderr, "Waiting for a decision on %q: %s\n", r.Title, page)
	}
	for !r.Decided() {
		if r, err = c.Wait(ctx, r.ID, time.Minute); err != nil {
			return err
		}
	}
	if *asJSON {
		enc := json.NewEncoder(stdout)
		enc.SetIndent("", "  ")
		enc.Encode(r)
	} else {
		printDecision(stdout, r)
	}
	if r.Status == approval.Rejected {
		return exitCode(3)
	}
	return nil
}

// readSubmission reads a request, or a bare plan named after its file.
func readSubmission(path string, stdin io.Reader) (approval.Submission, error) {
	var raw []byte
	var err error
	if path == "-" {
		raw, err = io.ReadAll(stdin)
	} else {
		raw, err = os.ReadFile(path)
	}
	if err != nil {
		return approval.Submission{}, err
	}
	var probe map[string]json.RawMessage
	if err := json.Unmarshal(raw, &probe); err != nil {
		return approval.Submission{}, fmt.Errorf("%s is not a JSON object: %w", path, err)
	}
	var sub approval.Submission
	if _, ok := probe["plan"]; ok {
		err = json.Unmarshal(raw, &sub)
	} else {
		err = json.Unmarshal(raw, &sub.Plan)
	}
	if err != nil {
		return sub, fmt.Errorf("read %s: %w", path, err)
	}
	if sub.Title == "" && path != "-" {
		sub.Title = strings.TrimSuffix(filepath.Base(path), filepath.Ext(path))
	}
	return sub, nil
}

func printDecision(w io.Writer, r approval.Request) {
	d := r.Decision
	by := d.By
	if d.Expired {
		by = "the deadline (nobody decided; default outcome)"
	}
	fmt.Fprintf(w, "%s by %s at %s\n", r.Status, by, d.At.Local().Format(time.DateTime))
	if d.Comment != "" {
		fmt.Fprintf(w, "comment: %s\n", d.Comment)
	}
	if r.Status != approval.Modified || d.Plan == nil {
		return
	}
	fmt.Fprintln(w, "the plan to run:")
	p := d.Plan.Plan(r.SessionID)
	for _, l := range p.Lines() {
		fmt.Fprintln(w, "  "+l)
	}
}

// approvalClient is the stdio MCP server's way to the gate of a running server.
func approvalClient(f clientFlags) mcpserver.Approver { return gateClient{f: f} }

// gateClient talks to a running server's gate over its HTTP API.
type gateClient struct{ f clientFlags }

// Submit creates a request.
func (c gateClient) Submit(ctx context.Context, sub approval.Submission) (approval.Request, error) {
	r, _, err := c.submit(ctx, sub)
	return r, err
}

func (c gateClient) submit(ctx context.Context, sub approval.Submission) (approval.Request, string, error) {
	var out struct {
		approval.Request
		PageURL string `json:"pageUrl"`
	}
	err := c.do(ctx, http.MethodPost, "/api/v1/approvals", sub, &out)
	return out.Request, out.PageURL, err
}

// Wait long-polls the request for at most d.
func (c gateClient) Wait(ctx context.Context, id string, d time.Duration) (approval.Request, error) {
	var r approval.Request
	err := c.do(ctx, http.MethodGet, "/api/v1/approvals/"+url.PathEscape(id)+"?wait="+d.String(), nil, &r)
	return r, err
}

func (c gateClient) do(ctx context.Context, method, path string, body, out any) error {
	token, err := c.f.resolveToken()
	if err != nil {
		return err
	}
	var rd io.Reader
	if body != nil {
		b, err := json.Marshal(body)
		if err != nil {
			return err
		}
		rd = bytes.NewReader(b)
	}
	req, err := http.NewRequestWithContext(ctx, method, strings.TrimRight(c.f.server, "/")+path, rd)
	if err != nil {
		return err
	}
	req.Header.Set("Authorization", "Bearer "+token)
	req.Header.Set("Content-Type", "application/json")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		return fmt.Errorf("reach plandash at %s: %w (is `plandash serve` running?)", c.f.server, err)
	}
	defer resp.Body.Close()
	raw, err := io.ReadAll(resp.Body)
	if err != nil {
		return err
	}
	if resp.StatusCode >= 300 {
		var p web.Problem
		if json.Unmarshal(raw, &p) == nil && p.Detail != "" {
			return errors.New(p.Detail)
		}
		return fmt.Errorf("%s: %s", resp.Status, bytes.TrimSpace(raw))
	}
	return json.Unmarshal(raw, out)
}
