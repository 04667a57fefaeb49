package sharedplans

import (
	"bytes"
	"context"
	"encoding/json"
)

// Tool is one tool in surface-neutral form: enough to register it with an MCP server or expose
// it over HTTP, with Call producing docker-agent's exact output text.
type Tool struct {
	Name        string
	Title       string
	Description string
	// ReadOnlyHint and DestructiveHint are MCP annotations; false means "not set", which is how
	// docker-agent leaves them on the tools that are neither.
	ReadOnlyHint    bool
	DestructiveHint bool
	// InputSchema is the JSON Schema of the arguments (always type "object").
	InputSchema json.RawMessage
	// OutputSchema is the JSON Schema of a successful result; nil for delete_plan, as in
	// docker-agent.
	OutputSchema json.RawMessage
	// Call runs the tool on JSON arguments. On success text is the compact JSON result; on
	// failure err's message is the tool error text to return with isError set. Errors also match
	// the kind sentinels (ErrInvalid, ErrPlanNotFound, ErrConflict, ErrCorrupt, ErrPathDenied).
	Call func(ctx context.Context, args json.RawMessage) (text string, err error)
}

// Tools returns the eight tools in docker-agent's order.
func (t *Toolset) Tools() []Tool {
	return []Tool{
		{Name: "write_plan", Title: "Write Plan", Description: descWritePlan,
			InputSchema: schemaWritePlan, OutputSchema: schemaPlan, Call: bind(schemaWritePlan, t.WritePlan)},
		{Name: "read_plan", Title: "Read Plan", Description: descReadPlan, ReadOnlyHint: true,
			InputSchema: schemaReadPlan, OutputSchema: schemaPlan, Call: bind(schemaReadPlan, t.ReadPlan)},
		{Name: "update_plan_from_file", Title: "Update Plan From File", Description: descUpdatePlanFromFile,
			InputSchema: schemaUpdatePlanFromFile, OutputSchema: schemaPlan, Call: bind(schemaUpdatePlanFromFile, t.UpdatePlanFromFile)},
		{Name: "export_plan_to_file", Title: "Export Plan To File", Description: descExportPlanToFile,
			InputSchema: schemaExportPlanToFile, OutputSchema: schemaExportResult, Call: bind(schemaExportPlanToFile, t.ExportPlanToFile)},
		{Name: "set_plan_status", Title: "Set Plan Status", Description: descSetPlanStatus,
			InputSchema: schemaSetPlanStatus, OutputSchema: schemaStatusView, Call: bind(schemaSetPlanStatus, t.SetPlanStatus)},
		{Name: "get_plan_status", Title: "Get Plan Status", Description: descGetPlanStatus, ReadOnlyHint: true,
			InputSchema: schemaGetPlanStatus, OutputSchema: schemaStatusView, Call: bind(schemaGetPlanStatus, t.GetPlanStatus)},
		{Name: "list_plans", Title: "List Plans", Description: descListPlans, ReadOnlyHint: true,
			InputSchema: schemaListPlans, OutputSchema: schemaListResult,
			Call: bind(schemaListPlans, func(ctx context.Context, _ struct{}) (ListResult, error) { return t.ListPlans(ctx) })},
		{Name: "delete_plan", Title: "Delete Plan", Description: descDeletePlan, DestructiveHint: true,
			InputSchema: schemaDeletePlan, Call: bind(schemaDeletePlan, t.DeletePlan)},
	}
}

// Tool returns the tool with the given name.
func (t *Toolset) Tool(name string) (Tool, bool) {
	for _, tool := range t.Tools() {
		if tool.Name == name {
			return tool, true
		}
	}
	return Tool{}, false
}

// bind adapts a typed tool method to Tool.Call, enforcing the tool's input schema. The schemas
// are this package's constants, so one that cannot be enforced is a programming error, caught
// by every test that builds the tool table.
func bind[A, R any](schema json.RawMessage, fn func(context.Context, A) (R, error)) func(context.Context, json.RawMessage) (string, error) {
	check, err := parseArgSchema(schema)
	if err != nil {
		panic("sharedplans: unenforceable tool schema: " + err.Error())
	}
	return func(ctx context.Context, raw json.RawMessage) (string, error) {
		var args A
		if err := decodeArgs(check, raw, &args); err != nil {
			return "", err
		}
		return encodeResult(fn(ctx, args))
	}
}

// decodeArgs is lenient where model-produced arguments need it and strict where it matters:
// empty or null arguments are {}, and arguments sent as a JSON string holding the object (a
// common double encoding) are unwrapped; then the object must match the tool's schema, so an
// unknown or misspelled argument is refused by name rather than ignored, and a missing or
// mistyped one is named too.
func decodeArgs(check *argSchema, raw json.RawMessage, dst any) error {
	raw = bytes.TrimSpace(raw)
	if len(raw) > 0 && raw[0] == '"' {
		var inner string
		if err := json.Unmarshal(raw, &inner); err == nil {
			raw = bytes.TrimSpace([]byte(inner))
		}
	}
	if len(raw) == 0 || string(raw) == "null" {
		raw = []byte("{}")
	}
	if err := check.checkArgs(raw); err != nil {
		return err
	}
	if err := json.Unmarshal(raw, dst); err != nil {
		return invalidf("invalid arguments: %v", err)
	}
	return nil
}

// encodeResult renders a result as docker-agent does: compact json.Marshal, HTML-escaped.
func encodeResult[R any](r R, err error) (string, error) {
	if err != nil {
		return "", err
	}
	if p, ok := any(r).(Plan); ok {
		// write_plan, read_plan and update_plan_from_file return whole plans, up to 60 MiB
		// escaped: the plan encoder is json.Marshal's output in one exact-size pass.
		return string(encodePlan(&p, false)), nil
	}
	b, err := json.Marshal(r)
	if err != nil {
		return "", err
	}
	return string(b), nil
}
