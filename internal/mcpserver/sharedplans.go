package mcpserver

import (
	"context"
	"encoding/json"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/plandash/plandash/internal/sharedplans"
)

// registerSharedPlans adds docker-agent's eight plan tools with its names, titles, annotations,
// schemas and texts. A tool error is a result with isError set and docker-agent's plain-text
// message, never a JSON-RPC error, as docker-agent answers; a success is the compact JSON text
// and, for tools with an output schema, the same object as structured content.
func registerSharedPlans(srv *mcp.Server, ts *sharedplans.Toolset) {
	for _, tl := range ts.Tools() {
		ann := &mcp.ToolAnnotations{Title: tl.Title, ReadOnlyHint: tl.ReadOnlyHint}
		if tl.DestructiveHint {
			ann.DestructiveHint = new(true)
		}
		t := &mcp.Tool{Name: tl.Name, Title: tl.Title, Description: tl.Description, Annotations: ann, InputSchema: tl.InputSchema}
		if tl.OutputSchema != nil {
			t.OutputSchema = tl.OutputSchema
		}
		structured := tl.OutputSchema != nil
		call := tl.Call
		// The raw handler skips the SDK's argument validation on purpose: Call unwraps arguments
		// sent as a JSON string holding the object (a common model mistake) and then enforces the
		// same schema, naming any unknown, missing or mistyped argument in docker-agent's
		// plain-text error style.
		srv.AddTool(t, func(ctx context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			text, err := call(ctx, req.Params.Arguments)
			if err != nil {
				return &mcp.CallToolResult{IsError: true, Content: []mcp.Content{&mcp.TextContent{Text: err.Error()}}}, nil
			}
			res := &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: text}}}
			if structured {
				res.StructuredContent = json.RawMessage(text)
			}
			return res, nil
		})
	}
}
