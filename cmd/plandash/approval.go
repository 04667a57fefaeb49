package main

import (
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/plandash/plandash/internal/approval"
	"github.com/plandash/plandash/internal/client"
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
	var f client.Flags
	f.Register(fs)
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
	c := gateClient{client.Resolve(getenv, f).Client()}
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
	if r.Status.Refused() || r.Status == approval.Elsewhere {
		return exitCode(3) // not approved: refused, or the agent's own dialog has it, outcome unknown
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
	if d == nil { // the agent's own dialog has it (then), its outcome not known yet
		note := r.Status.Words()
		if r.Handover != nil {
			note = r.Handover.Note
		}
		fmt.Fprintln(w, note)
		return
	}
	by := d.By
	if d.Expired {
		by = "the deadline (nobody decided; default outcome)"
	}
	fmt.Fprintf(w, "%s by %s at %s\n", r.Status, by, d.At.Local().Format(time.DateTime))
	switch {
	case d.FeedbackText != "":
		fmt.Fprintln(w, d.FeedbackText)
	case d.Comment != "":
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

// gateClient is the gate of a running server, over its HTTP API: what `plandash approval` and
// the stdio MCP server's approval tool (an mcpserver.Approver) use.
type gateClient struct{ api *client.Client }

// Submit creates a request, or returns the one its client-chosen ID already names.
func (c gateClient) Submit(ctx context.Context, sub approval.Submission) (approval.Request, error) {
	r, _, err := c.submit(ctx, sub)
	return r, err
}

// submit is Submit with the page where a person decides the request. A submission without an
// id is given one, so it is sent again when the connection breaks on the way (a server that
// restarted, say) and the server, if it took the first, answers with that request.
func (c gateClient) submit(ctx context.Context, sub approval.Submission) (approval.Request, string, error) {
	if sub.ID == "" {
		sub.ID = approval.NewRequestID()
	}
	a, _, err := c.api.CreateApproval(ctx, sub)
	if err != nil {
		return approval.Request{}, "", err
	}
	var r approval.Request
	return r, a.PageURL, a.Decode(&r)
}

// Wait long-polls the request for at most d.
func (c gateClient) Wait(ctx context.Context, id string, d time.Duration) (approval.Request, error) {
	a, err := c.api.WaitApproval(ctx, id, d)
	if err != nil {
		return approval.Request{}, err
	}
	var r approval.Request
	return r, a.Decode(&r)
}
