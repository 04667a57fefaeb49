package main

import (
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"strconv"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/plandash/plandash/internal/sharedplans"
)

const plansUsage = `Usage: plandash plans COMMAND [flags]

Read and write docker-agent's shared plans, directly in the plans directory (with docker-agent's
lock, so both can run at once). Exit status: 0 done, 3 version conflict, 1 any other failure.

  list                         every plan: name, status, revision, updated, author, title
  show   NAME                  print the content (metadata goes to stderr)
  write  NAME [--file F|-]     create or replace the content (stdin by default)
         [--title T] [--author A] [--status S] [--expected-revision N] [--create]
  status NAME [STATUS]         print the status, or set it
         [--expected-revision N]
  delete NAME                  delete the plan (unguarded, it also removes a corrupt file)
         [--expected-revision N]

Common flags:
  --plans-dir DIR   the plans directory (default $PLANDASH_PLANS_DIR, else ~/.cagent/plans)
  --json            machine-readable output: the tools' JSON on stdout, errors on stderr
  --timeout D       how long a write waits for the plans lock (default 10s)
`

// plansCmd reads and writes shared plans.
func plansCmd(ctx context.Context, args []string, getenv func(string) string, stdin io.Reader, stdout, stderr io.Writer) error {
	fs := flag.NewFlagSet("plandash plans", flag.ContinueOnError)
	fs.SetOutput(stderr)
	fs.Usage = func() { fmt.Fprint(stderr, plansUsage) }
	c := plansCLI{stdin: stdin, stdout: stdout, stderr: stderr}
	dir := fs.String("plans-dir", getenv("PLANDASH_PLANS_DIR"), "docker-agent's shared plans directory (default ~/.cagent/plans)")
	fs.BoolVar(&c.json, "json", false, "machine-readable output")
	timeout := fs.Duration("timeout", 10*time.Second, "how long a write waits for the plans lock")
	var expected optInt
	fs.Var(&expected, "expected-revision", "write only if the plan is at this revision (0: only if it does not exist)")
	file := fs.String("file", "", "write: read the content from this file (- for stdin; default stdin)")
	meta := map[string]*string{"title": new(""), "author": new(""), "status": new("")}
	for name, p := range meta {
		fs.StringVar(p, name, "", "write: set the plan's "+name+" (\"\" clears it; omitted keeps it)")
	}
	create := fs.Bool("create", false, "write: create only; fail if the plan exists")
	// Flags may come anywhere: `plandash plans --json show NAME` and `plans show NAME --json`.
	pos, err := parseInterspersed(fs, args)
	if errors.Is(err, flag.ErrHelp) {
		return nil
	}
	if err != nil {
		return errUsage
	}
	if len(pos) == 0 {
		fmt.Fprint(stderr, plansUsage)
		return errUsage
	}
	sub, pos := pos[0], pos[1:]
	set := map[string]bool{}
	fs.Visit(func(f *flag.Flag) { set[f.Name] = true })

	want := map[string][2]int{"list": {0, 0}, "show": {1, 1}, "write": {1, 1}, "status": {1, 2}, "delete": {1, 1}}
	n, known := want[sub]
	if !known {
		fmt.Fprintf(stderr, "plandash plans: unknown command %q\n\n%s", sub, plansUsage)
		return errUsage
	}
	if len(pos) < n[0] || len(pos) > n[1] {
		fmt.Fprintf(stderr, "plandash plans %s: wrong number of arguments\n\n%s", sub, plansUsage)
		return errUsage
	}
	c.store = sharedplans.New(*dir)
	c.tools = sharedplans.NewToolset(c.store, nil)
	wctx, cancel := context.WithTimeout(ctx, *timeout)
	defer cancel()
	switch sub {
	case "list":
		return c.list(ctx)
	case "show":
		return c.show(ctx, pos[0])
	case "write":
		req := sharedplans.UpsertRequest{Name: pos[0], ExpectedRevision: expected.ptr(), MustNotExist: *create}
		req.Title, req.Author, req.Status = pick(set["title"], meta["title"]), pick(set["author"], meta["author"]), pick(set["status"], meta["status"])
		return c.write(wctx, req, *file)
	case "status":
		if len(pos) == 2 {
			return c.setStatus(wctx, pos[0], pos[1], expected.ptr())
		}
		return c.status(ctx, pos[0])
	default:
		return c.remove(wctx, pos[0], expected.ptr())
	}
}

// plansCLI is one run of `plandash plans`.
type plansCLI struct {
	store          *sharedplans.Store
	tools          *sharedplans.Toolset
	json           bool
	stdin          io.Reader
	stdout, stderr io.Writer
}

func (c *plansCLI) list(ctx context.Context) error {
	res, err := c.tools.ListPlans(ctx)
	if err != nil {
		return c.fail("", err)
	}
	if c.json {
		return c.emit(res)
	}
	for _, w := range res.Warnings {
		fmt.Fprintln(c.stderr, "warning:", w)
	}
	if len(res.Plans) == 0 {
		fmt.Fprintln(c.stdout, "No plans found.")
		return nil
	}
	tw := tabwriter.NewWriter(c.stdout, 0, 4, 2, ' ', 0)
	fmt.Fprintln(tw, "NAME\tSTATUS\tREVISION\tUPDATED\tAUTHOR\tTITLE")
	for _, p := range res.Plans {
		fmt.Fprintf(tw, "%s\t%s\t%d\t%s\t%s\t%s\n", p.Name, dash(p.Status), p.Revision, dash(p.UpdatedAt), dash(p.Author), dash(oneLine(p.Title)))
	}
	return tw.Flush()
}

func (c *plansCLI) show(ctx context.Context, name string) error {
	p, err := c.tools.ReadPlan(ctx, sharedplans.ReadPlanArgs{Name: name})
	if err != nil {
		return c.fail(name, err)
	}
	if c.json {
		return c.emit(p)
	}
	fmt.Fprintf(c.stderr, "%s: %s · status %s · by %s · revision %d · updated %s\n",
		p.Name, strconv.Quote(p.Title), dash(p.Status), dash(p.Author), p.Revision, dash(p.UpdatedAt))
	_, err = io.WriteString(c.stdout, p.Content)
	return err
}

func (c *plansCLI) write(ctx context.Context, req sharedplans.UpsertRequest, file string) error {
	var (
		data []byte
		err  error
	)
	// Read one byte past the cap, so an oversized input is refused with the store's own message.
	if file == "" || file == "-" {
		data, err = io.ReadAll(io.LimitReader(c.stdin, sharedplans.MaxContentSize+1))
	} else {
		var f *os.File
		if f, err = os.Open(file); err == nil {
			data, err = io.ReadAll(io.LimitReader(f, sharedplans.MaxContentSize+1))
			f.Close()
		}
	}
	if err != nil {
		return c.fail(req.Name, fmt.Errorf("reading plan content: %w", err))
	}
	if len(data) == 0 {
		return c.fail(req.Name, invalidText("content must not be empty"))
	}
	content := string(data)
	req.Content = &content
	p, err := c.store.Upsert(ctx, req)
	var vc *sharedplans.VersionConflictError
	if req.MustNotExist && errors.As(err, &vc) {
		err = fmt.Errorf("plan %q already exists (current version %d); pick a different name, or update the existing plan: %w", vc.Name, vc.Current, err)
		return c.failConflict(req.Name, err, vc)
	}
	if err != nil {
		return c.fail(req.Name, err)
	}
	if c.json {
		return c.emit(p)
	}
	fmt.Fprintf(c.stdout, "wrote %s revision %d\n", p.Name, p.Revision)
	return nil
}

func (c *plansCLI) status(ctx context.Context, name string) error {
	v, err := c.tools.GetPlanStatus(ctx, sharedplans.GetPlanStatusArgs{Name: name})
	if err != nil {
		return c.fail(name, err)
	}
	if c.json {
		return c.emit(v)
	}
	fmt.Fprintf(c.stdout, "%s (revision %d)\n", dash(v.Status), v.Revision)
	return nil
}

func (c *plansCLI) setStatus(ctx context.Context, name, status string, expected *int) error {
	v, err := c.tools.SetPlanStatus(ctx, sharedplans.SetPlanStatusArgs{Name: name, Status: status, LastKnownRevision: expected})
	if err != nil {
		return c.fail(name, err)
	}
	if c.json {
		return c.emit(v)
	}
	fmt.Fprintf(c.stdout, "%s: status %s (revision %d)\n", v.Name, v.Status, v.Revision)
	return nil
}

func (c *plansCLI) remove(ctx context.Context, name string, expected *int) error {
	res, err := c.tools.DeletePlan(ctx, sharedplans.DeletePlanArgs{Name: name, LastKnownRevision: expected})
	if err != nil {
		return c.fail(name, err)
	}
	if c.json {
		return c.emit(res)
	}
	fmt.Fprintln(c.stdout, "deleted", res.Deleted)
	return nil
}

// emit prints v as JSON indented with two spaces.
func (c *plansCLI) emit(v any) error {
	enc := json.NewEncoder(c.stdout)
	enc.SetIndent("", "  ")
	return enc.Encode(v)
}

// cliError is the --json error document.
type cliError struct {
	Code             string `json:"code"`
	Message          string `json:"message"`
	Name             string `json:"name,omitempty"`
	ExpectedRevision *int   `json:"expected_revision,omitempty"`
	CurrentRevision  *int   `json:"current_revision,omitempty"`
}

// fail reports err on stderr (as JSON with --json) and ends with exit status 3 on a version
// conflict, 1 otherwise.
func (c *plansCLI) fail(name string, err error) error {
	var vc *sharedplans.VersionConflictError
	if errors.As(err, &vc) {
		return c.failConflict(name, err, vc)
	}
	e := cliError{Code: errorCode(err), Message: err.Error(), Name: name}
	if !c.json {
		fmt.Fprintln(c.stderr, "plandash plans:", err)
		return exitCode(1)
	}
	_ = c.emitErr(e)
	return exitCode(1)
}

func (c *plansCLI) failConflict(name string, err error, vc *sharedplans.VersionConflictError) error {
	if !c.json {
		fmt.Fprintln(c.stderr, "plandash plans:", err)
		return exitCode(3)
	}
	_ = c.emitErr(cliError{Code: "conflict", Message: err.Error(), Name: name, ExpectedRevision: &vc.Expected, CurrentRevision: &vc.Current})
	return exitCode(3)
}

func (c *plansCLI) emitErr(e cliError) error {
	enc := json.NewEncoder(c.stderr)
	enc.SetIndent("", "  ")
	return enc.Encode(map[string]any{"error": e})
}

// errorCode names an error's kind with docker-agent's CLI error codes.
func errorCode(err error) string {
	switch {
	case errors.Is(err, sharedplans.ErrConflict):
		return "conflict"
	case errors.Is(err, sharedplans.ErrPlanNotFound):
		return "not_found"
	case errors.Is(err, sharedplans.ErrCorrupt):
		return "corrupt"
	case errors.Is(err, sharedplans.ErrInvalid), errors.Is(err, sharedplans.ErrPathDenied):
		return "invalid_argument"
	case errors.Is(err, context.DeadlineExceeded), errors.Is(err, context.Canceled):
		return "storage"
	}
	return "error"
}

// invalidText is a usage mistake found before the store is asked, in the tools' words.
type invalidText string

func (e invalidText) Error() string        { return string(e) }
func (e invalidText) Is(target error) bool { return target == sharedplans.ErrInvalid }

// optInt is an integer flag that remembers whether it was given.
type optInt struct {
	v   int
	set bool
}

func (o *optInt) String() string {
	if o == nil || !o.set {
		return ""
	}
	return strconv.Itoa(o.v)
}

func (o *optInt) Set(s string) error {
	n, err := strconv.Atoi(s)
	if err != nil || n < 0 {
		return errors.New("must be a revision number (0 or more)")
	}
	o.v, o.set = n, true
	return nil
}

func (o *optInt) ptr() *int {
	if !o.set {
		return nil
	}
	return &o.v
}

// pick is a metadata flag's value when it was given (even ""), nil when it was not.
func pick(given bool, v *string) *string {
	if !given {
		return nil
	}
	return v
}

// parseInterspersed parses flags that may come before, between or after the positional
// arguments, as in `plandash plans show NAME --json`.
func parseInterspersed(fs *flag.FlagSet, args []string) ([]string, error) {
	var pos []string
	for {
		if err := fs.Parse(args); err != nil {
			return nil, err
		}
		rest := fs.Args()
		if n := len(args) - len(rest); n > 0 && args[n-1] == "--" {
			return append(pos, rest...), nil // everything after the terminator is positional
		}
		args = rest
		if len(args) == 0 {
			return pos, nil
		}
		pos = append(pos, args[0])
		args = args[1:]
	}
}

func dash(s string) string {
	if s == "" {
		return "-"
	}
	return s
}

func oneLine(s string) string { return strings.Join(strings.Fields(s), " ") }
