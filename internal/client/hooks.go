package client

import (
	"bytes"
	"context"
	"net/http"
	"time"
)

// AgentHook posts one hook event of agent (e.g. "claude") to POST /api/v1/hooks/{agent} and
// returns the server's answer as it is: empty for a captured event, the hook's JSON for a plan
// held at the gate. wait says the server may hold the answer until a person decides, up to ctx's
// deadline; a capture is bounded by the client's timeout. A capture is never sent twice once it
// may have reached the server.
func (c *Client) AgentHook(ctx context.Context, agent string, event []byte, wait bool) ([]byte, error) {
	cl := call{method: http.MethodPost, path: "/api/v1/hooks/" + agent, body: bytes.NewReader(event), ctype: "application/json"}
	if wait {
		// The server holds the request open; the caller's context bounds it, not the timeout.
		c = c.With(WithTimeout(0))
		if d, ok := ctx.Deadline(); ok {
			cl.wait = time.Until(d)
		}
	}
	var out []byte
	err := c.do(ctx, cl, &out)
	return out, err
}
