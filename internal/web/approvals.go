package web

import (
	"crypto/rand"
	"encoding/hex"
	"net/http"
	"strings"

	"github.com/plandash/plandash/internal/approval"
)

// decider is who decides: the name a trusted proxy puts in the configured header, else the
// per-agent token the request came with ("token:NAME"), else --user.
func decider(r *http.Request, c Config) string {
	if h := c.UserHeader; h != "" {
		if v := strings.TrimSpace(r.Header.Get(h)); v != "" {
			return v
		}
	}
	if label := agentLabel(r); label != "" {
		return label
	}
	if c.User != "" {
		return c.User
	}
	return "local user"
}

// maxApprovalBody bounds a submission or decision body: the plan limit plus room for the rest.
const maxApprovalBody = 2 * approval.MaxPlanBytes

// newKey is a page's idempotency key for its decision form.
func newKey() string {
	b := make([]byte, 12)
	rand.Read(b)
	return hex.EncodeToString(b)
}
