package codex

import (
	"context"
	"encoding/json"
	"log/slog"

	"github.com/plandash/plandash/internal/agents/agentkit"
	"github.com/plandash/plandash/internal/plans"
)

// Applier is what the adapter uses of plans.Service.
type Applier interface {
	Apply(ctx context.Context, st *plans.Stream, items []plans.Item) (plans.Result, error)
}

// ApplyFunc is how translated messages reach the domain: one call per batch, which the callee
// applies on a stream of its own. A returned error means nothing was applied and the caller
// should try the same batch again later.
type ApplyFunc func(ctx context.Context, lines []json.RawMessage) error

// ApplyTo returns the ApplyFunc that applies batches to p (plans.Service): each batch on a
// fresh stream, as POST /api/v1/ingest does. Messages the domain refuses one by one are logged
// to log (slog.Default when nil) and skipped; only a store failure is returned.
func ApplyTo(p Applier, log *slog.Logger) ApplyFunc {
	if log == nil {
		log = slog.Default()
	}
	return func(ctx context.Context, lines []json.RawMessage) error {
		res, err := agentkit.Apply(ctx, p, "codex", lines)
		if err != nil {
			return err
		}
		for _, e := range res.Errors {
			log.Warn("codex: update not applied", "line", e.Line, "err", e.Message)
		}
		return nil
	}
}
