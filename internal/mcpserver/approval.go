package mcpserver

import "github.com/modelcontextprotocol/go-sdk/mcp"

// Approver is what the approval tool needs from the gate. (Owned by the approval work.)
type Approver interface{}

// registerApproval adds request_plan_approval. (Owned by the approval work.)
func registerApproval(srv *mcp.Server, a Approver) {}
