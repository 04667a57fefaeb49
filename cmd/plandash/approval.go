package main

import (
	"context"
	"errors"
	"io"

	"github.com/plandash/plandash/internal/mcpserver"
)

// approvalCmd submits plans to the gate. (Owned by the approval work.)
func approvalCmd(ctx context.Context, args []string, getenv func(string) string, stdin io.Reader, stdout, stderr io.Writer) error {
	return errors.New("plandash approval: not built yet")
}

// approvalClient is the stdio MCP server's way to the gate of a running server; nil leaves the
// approval tool out.
func approvalClient(f clientFlags) mcpserver.Approver { return nil }
