package mcpserver_test

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/plandash/plandash/internal/approval"
	"github.com/plandash/plandash/internal/files"
	"github.com/plandash/plandash/internal/mcpserver"
	"github.com/plandash/plandash/internal/sharedplans"
	"github.com/santhosh-tekuri/jsonschema/v6"
)

// unreachedGate is an approval gate no call in these tests may reach: every call here has an
// argument the schema refuses.
type unreachedGate struct{ t *testing.T }

func (g unreachedGate) Submit(context.Context, approval.Submission) (approval.Request, error) {
	g.t.Error("an invalid request_plan_approval call reached the gate")
	return approval.Request{}, errors.New("unreachable")
}

func (g unreachedGate) Wait(context.Context, string, time.Duration) (approval.Request, error) {
	g.t.Error("an invalid request_plan_approval call reached the gate")
	return approval.Request{}, errors.New("unreachable")
}

// strictSchema reports subschemas that strict MCP clients (Claude Code, MCP Inspector --strict)
// refuse although JSON Schema allows them: a bare true/false where a schema object is expected
// (only additionalProperties may be a boolean), and schema objects without a type.
func strictSchema(path string, v any) []string {
	m, ok := v.(map[string]any)
	if !ok {
		return []string{path + ": not a schema object"}
	}
	var bad []string
	if _, ok := m["type"]; !ok {
		bad = append(bad, path+": no type")
	}
	if props, ok := m["properties"].(map[string]any); ok {
		for k, p := range props {
			bad = append(bad, strictSchema(path+"/properties/"+k, p)...)
		}
	}
	if items, ok := m["items"]; ok {
		bad = append(bad, strictSchema(path+"/items", items)...)
	}
	if ap, ok := m["additionalProperties"]; ok {
		if _, isBool := ap.(bool); !isBool {
			bad = append(bad, strictSchema(path+"/additionalProperties", ap)...)
		}
	}
	return bad
}

// TestToolSchemasValidAndEnforced lists every tool through a real MCP client, checks its input
// and output schemas against the JSON Schema 2020-12 meta-schema and the strict clients'
// rules, then calls each tool with an argument its schema does not declare: the call must be
// refused with an error naming the argument, and nothing may be written.
func TestToolSchemasValidAndEnforced(t *testing.T) {
	plansDir, root := t.TempDir(), t.TempDir()
	roots, err := files.NewRoots(root)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(root, "a.md"), []byte("from file"), 0o600); err != nil {
		t.Fatal(err)
	}
	srv := mcpserver.New(mcpserver.Options{Version: "test",
		SharedPlans: sharedplans.NewToolset(sharedplans.New(plansDir), roots), Approvals: unreachedGate{t}})
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	st, ct := mcp.NewInMemoryTransports()
	ss, err := srv.Connect(ctx, st, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer ss.Close()
	cs, err := mcp.NewClient(&mcp.Implementation{Name: "test", Version: "1"}, nil).Connect(ctx, ct, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer cs.Close()

	res, err := cs.ListTools(ctx, nil)
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Tools) != 9 {
		t.Fatalf("%d tools, want the eight plan tools and request_plan_approval", len(res.Tools))
	}
	for _, tl := range res.Tools {
		for kind, s := range map[string]any{"input": tl.InputSchema, "output": tl.OutputSchema} {
			if s == nil {
				continue
			}
			raw, err := json.Marshal(s)
			if err != nil {
				t.Fatal(err)
			}
			doc, err := jsonschema.UnmarshalJSON(bytes.NewReader(raw))
			if err != nil {
				t.Fatal(err)
			}
			c := jsonschema.NewCompiler()
			c.DefaultDraft(jsonschema.Draft2020)
			url := "mem:///" + tl.Name + "-" + kind + ".json"
			if err := c.AddResource(url, doc); err != nil {
				t.Fatal(err)
			}
			if _, err := c.Compile(url); err != nil {
				t.Errorf("%s %s schema is not valid JSON Schema 2020-12: %v", tl.Name, kind, err)
			}
			for _, b := range strictSchema("", doc) {
				t.Errorf("%s %s schema%s", tl.Name, kind, b)
			}
		}
	}

	for _, tc := range []struct {
		tool string
		args map[string]any
	}{
		{"write_plan", map[string]any{"name": "p", "content": "x", "bogus": 1}},
		{"read_plan", map[string]any{"name": "p", "bogus": 1}},
		{"update_plan_from_file", map[string]any{"name": "p", "path": "a.md", "bogus": 1}},
		{"export_plan_to_file", map[string]any{"name": "p", "path": "out.md", "bogus": 1}},
		{"set_plan_status", map[string]any{"name": "p", "status": "s", "bogus": 1}},
		{"get_plan_status", map[string]any{"name": "p", "bogus": 1}},
		{"list_plans", map[string]any{"bogus": 1}},
		{"delete_plan", map[string]any{"name": "p", "bogus": 1}},
		{"request_plan_approval", map[string]any{"title": "t", "plan": map[string]any{"type": "markdown", "markdown": "x"}, "bogus": 1}},
		{"request_plan_approval", map[string]any{"title": "t", "plan": map[string]any{"type": "dag", "calls": []any{true}}}},
	} {
		r, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: tc.tool, Arguments: tc.args})
		switch {
		case err != nil:
			t.Errorf("%s(%v): protocol error %v; want a tool error", tc.tool, tc.args, err)
		case !r.IsError || len(r.Content) != 1:
			t.Errorf("%s(%v) was accepted: %+v", tc.tool, tc.args, r)
		default:
			text := r.Content[0].(*mcp.TextContent).Text
			if _, hasBogus := tc.args["bogus"]; hasBogus && !strings.Contains(text, "bogus") {
				t.Errorf("%s(%v): error %q does not name the argument", tc.tool, tc.args, text)
			}
		}
	}
	entries, err := os.ReadDir(plansDir)
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range entries {
		if e.Name() != sharedplans.LockFileName {
			t.Errorf("a refused call wrote %s", e.Name())
		}
	}
	if _, err := os.Stat(filepath.Join(root, "out.md")); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("a refused export wrote its file: %v", err)
	}
}
