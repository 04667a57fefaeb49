package sharedplans

import (
	"encoding/json"
	"reflect"
	"slices"
	"strings"
	"testing"
)

// checkSchemas keeps the hand-written schemas in step with the Go types they describe: the same
// properties, and required exactly where the field has no omitempty (the rule docker-agent's
// schema generator applies).
func checkSchemas(t *testing.T, tools []Tool) {
	t.Helper()
	inputs := map[string]any{
		"write_plan": WritePlanArgs{}, "read_plan": ReadPlanArgs{}, "update_plan_from_file": UpdatePlanFromFileArgs{},
		"export_plan_to_file": ExportPlanToFileArgs{}, "set_plan_status": SetPlanStatusArgs{},
		"get_plan_status": GetPlanStatusArgs{}, "delete_plan": DeletePlanArgs{},
	}
	outputs := map[string]any{
		"write_plan": Plan{}, "read_plan": Plan{}, "update_plan_from_file": Plan{}, "export_plan_to_file": ExportResult{},
		"set_plan_status": StatusView{}, "get_plan_status": StatusView{}, "list_plans": ListResult{},
	}
	for _, tl := range tools {
		if tl.Title == "" || tl.Description == "" || tl.Call == nil {
			t.Errorf("%s: incomplete entry", tl.Name)
		}
		in := parseSchema(t, tl.Name, tl.InputSchema)
		if in.Type != "object" {
			t.Errorf("%s: input type %v", tl.Name, in.Type)
		}
		if v, ok := inputs[tl.Name]; ok {
			compareSchema(t, tl.Name+" input", in, v)
			if in.AdditionalProperties == nil || *in.AdditionalProperties {
				t.Errorf("%s: input must be closed", tl.Name)
			}
		} else if len(in.Properties) != 0 {
			t.Errorf("%s: expected no parameters", tl.Name)
		}
		if v, ok := outputs[tl.Name]; ok {
			compareSchema(t, tl.Name+" output", parseSchema(t, tl.Name, tl.OutputSchema), v)
		} else if tl.OutputSchema != nil {
			t.Errorf("%s: unexpected output schema", tl.Name)
		}
	}
}

type testSchema struct {
	Type                 any                        `json:"type"`
	Required             []string                   `json:"required"`
	Properties           map[string]json.RawMessage `json:"properties"`
	AdditionalProperties *bool                      `json:"additionalProperties"`
}

func parseSchema(t *testing.T, name string, raw json.RawMessage) testSchema {
	t.Helper()
	var s testSchema
	if err := json.Unmarshal(raw, &s); err != nil {
		t.Fatalf("%s: schema is not valid JSON: %v", name, err)
	}
	return s
}

func compareSchema(t *testing.T, what string, s testSchema, v any) {
	t.Helper()
	var props, required []string
	rt := reflect.TypeOf(v)
	for i := range rt.NumField() {
		name, opts, _ := strings.Cut(rt.Field(i).Tag.Get("json"), ",")
		props = append(props, name)
		if opts != "omitempty" {
			required = append(required, name)
		}
	}
	var got []string
	for k := range s.Properties {
		got = append(got, k)
	}
	slices.Sort(got)
	slices.Sort(props)
	req := slices.Clone(s.Required)
	slices.Sort(req)
	slices.Sort(required)
	if !slices.Equal(got, props) {
		t.Errorf("%s: properties %v, want %v", what, got, props)
	}
	if !slices.Equal(req, required) {
		t.Errorf("%s: required %v, want %v", what, req, required)
	}
	if raw, ok := s.Properties["last_known_revision"]; ok && !strings.Contains(string(raw), `["null","integer"]`) {
		t.Errorf("%s: last_known_revision must be [\"null\",\"integer\"]", what)
	}
}
