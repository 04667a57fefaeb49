package sharedplans

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"testing"

	"github.com/santhosh-tekuri/jsonschema/v6"
)

// compileSchema compiles a tool schema with a full JSON Schema 2020-12 validator, which also
// checks the schema itself against the 2020-12 meta-schema.
func compileSchema(t testing.TB, name string, raw json.RawMessage) *jsonschema.Schema {
	t.Helper()
	doc, err := jsonschema.UnmarshalJSON(bytes.NewReader(raw))
	if err != nil {
		t.Fatalf("%s: %v", name, err)
	}
	c := jsonschema.NewCompiler()
	c.DefaultDraft(jsonschema.Draft2020)
	url := "mem:///" + name + ".json"
	if err := c.AddResource(url, doc); err != nil {
		t.Fatalf("%s: %v", name, err)
	}
	sch, err := c.Compile(url)
	if err != nil {
		t.Fatalf("%s: not a valid JSON Schema 2020-12: %v", name, err)
	}
	return sch
}

// toolArgCorpus is arguments worth agreeing on: valid calls, unknown, case-folded, missing and
// mistyped arguments, and values of every JSON type.
var toolArgCorpus = []string{
	`{}`, `[]`, `"x"`, `1`, `null`, `true`,
	`{"name":"p"}`, `{"name":"p","content":"x"}`, `{"name":"p","path":"a.md"}`, `{"name":"p","status":"s"}`,
	`{"name":"p","content":"x","title":"t","author":"a","status":"s","last_known_revision":3}`,
	`{"name":"p","content":"x","last_known_revision":null}`, `{"name":"p","content":"x","last_known_revision":1.0}`,
	`{"name":"p","content":"x","last_known_revision":1.5}`, `{"name":"p","content":"x","last_known_revision":"1"}`,
	`{"name":"p","content":"x","last_known_revision":1e400}`, `{"name":"p","content":"x","last_known_revision":-0}`,
	`{"name":"p","content":"x","bogus":1}`, `{"NAME":"p","content":"x"}`, `{"name":null,"content":"x"}`,
	`{"name":["p"],"content":"x"}`, `{"name":"p","content":{"a":1}}`, `{"name":"p","title":false,"content":"x"}`,
	`{"name":"p","path":"a.md","status":"s","last_known_revision":2}`, `{"bogus":1}`, `{"":1}`,
}

// TestToolSchemasAreValidAndEnforced checks every tool schema against the 2020-12
// meta-schema, and that the tools' own argument check gives the same verdict as a full
// validator on each argument document.
func TestToolSchemasAreValidAndEnforced(t *testing.T) {
	for _, tl := range NewToolset(New(t.TempDir()), nil).Tools() {
		in := compileSchema(t, tl.Name+"-input", tl.InputSchema)
		if tl.OutputSchema != nil {
			compileSchema(t, tl.Name+"-output", tl.OutputSchema)
		}
		check, err := parseArgSchema(tl.InputSchema)
		if err != nil {
			t.Fatalf("%s: %v", tl.Name, err)
		}
		for _, args := range toolArgCorpus {
			agree(t, tl.Name, in, check, []byte(args))
		}
	}
}

func agree(t *testing.T, tool string, full *jsonschema.Schema, check *argSchema, args []byte) {
	t.Helper()
	inst, err := jsonschema.UnmarshalJSON(bytes.NewReader(args))
	if err != nil {
		return // not JSON: both refuse it before validating
	}
	want := full.Validate(inst)
	got := check.checkArgs(args)
	if (got == nil) != (want == nil) {
		t.Fatalf("%s(%s): argument check says %v, validator says %v", tool, args, got, want)
	}
	if got != nil && !errors.Is(got, ErrInvalid) {
		t.Fatalf("%s(%s): %v is not ErrInvalid", tool, args, got)
	}
}

// FuzzToolArgSchema holds the argument check to the full validator on arbitrary arguments.
func FuzzToolArgSchema(f *testing.F) {
	for _, a := range toolArgCorpus {
		for i := range 8 {
			f.Add(uint8(i), []byte(a))
		}
	}
	tools := NewToolset(New(f.TempDir()), nil).Tools()
	type compiled struct {
		full  *jsonschema.Schema
		check *argSchema
	}
	var cs []compiled
	for _, tl := range tools {
		check, err := parseArgSchema(tl.InputSchema)
		if err != nil {
			f.Fatal(err)
		}
		cs = append(cs, compiled{compileSchema(f, tl.Name, tl.InputSchema), check})
	}
	f.Fuzz(func(t *testing.T, which uint8, args []byte) {
		i := int(which) % len(tools)
		if !json.Valid(args) {
			return
		}
		agree(t, tools[i].Name, cs[i].full, cs[i].check, args)
	})
}

// TestUnknownArgumentsAreRefused: every tool refuses an argument its schema does not declare,
// names it, and does nothing.
func TestUnknownArgumentsAreRefused(t *testing.T) {
	for _, tc := range []struct {
		tool, args, want string
	}{
		{"write_plan", `{"name":"p","content":"x","bogus":1}`,
			`unknown argument "bogus": the arguments are author, content, last_known_revision, name, status, title`},
		{"write_plan", `{"NAME":"p","content":"x"}`,
			`unknown argument "NAME": the arguments are author, content, last_known_revision, name, status, title`},
		{"write_plan", `"{\"name\":\"p\",\"content\":\"x\",\"bogus\":1}"`,
			`unknown argument "bogus": the arguments are author, content, last_known_revision, name, status, title`},
		{"read_plan", `{"name":"p","bogus":1}`, `unknown argument "bogus": the arguments are name`},
		{"update_plan_from_file", `{"name":"p","path":"a.md","bogus":1}`,
			`unknown argument "bogus": the arguments are author, last_known_revision, name, path, status, title`},
		{"export_plan_to_file", `{"name":"p","path":"out.md","bogus":1}`, `unknown argument "bogus": the arguments are name, path`},
		{"set_plan_status", `{"name":"p","status":"s","bogus":1}`,
			`unknown argument "bogus": the arguments are last_known_revision, name, status`},
		{"get_plan_status", `{"name":"p","bogus":1}`, `unknown argument "bogus": the arguments are name`},
		{"list_plans", `{"bogus":1}`, `unknown argument "bogus": this tool takes no arguments`},
		{"delete_plan", `{"name":"p","bogus":1}`, `unknown argument "bogus": the arguments are last_known_revision, name`},
		{"write_plan", `{"name":"p","content":"x","last_known_revision":"1"}`,
			`argument "last_known_revision" must be an integer or null, not a string`},
		{"write_plan", `{"content":"x"}`, `missing required argument "name"`},
		{"write_plan", `[]`, `the arguments must be an object, not an array`},
	} {
		t.Run(tc.tool+" "+tc.args, func(t *testing.T) {
			s, scratch := newTestStore(t), t.TempDir()
			orig := mustWrite(t, s, "p", "original")
			if err := os.WriteFile(filepath.Join(scratch, "a.md"), []byte("from file"), 0o600); err != nil {
				t.Fatal(err)
			}
			ts := NewToolset(s, nil)
			tl, ok := ts.Tool(tc.tool)
			if !ok {
				t.Fatalf("no tool %s", tc.tool)
			}
			out, err := tl.Call(context.Background(), json.RawMessage(tc.args))
			if err == nil || err.Error() != tc.want || !errors.Is(err, ErrInvalid) {
				t.Fatalf("= %q, %v; want error %q", out, err, tc.want)
			}
			if p, ok, err := s.Get(context.Background(), "p"); err != nil || !ok || p != orig {
				t.Errorf("the plan changed: %+v %v %v", p, ok, err)
			}
			if _, err := os.Stat(filepath.Join(scratch, "out.md")); !errors.Is(err, os.ErrNotExist) {
				t.Errorf("export wrote its file: %v", err)
			}
		})
	}
}
