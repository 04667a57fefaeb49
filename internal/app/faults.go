package app

import (
	"context"

	"github.com/plandash/plandash/internal/store/fault"
)

// faulting is a database that classifies its storage faults (both stores do): a readiness
// probe that fails while writes would, and the record of the faults.
type faulting interface {
	Ready(ctx context.Context) error
	Health() *fault.Health
}

// faultLabels are the causes as metric labels.
func faultLabels() []string {
	var out []string
	for _, c := range fault.Causes() {
		out = append(out, c.Label())
	}
	return out
}

// faultCause is the cause a metric label names.
func faultCause(label string) fault.Cause {
	for _, c := range fault.Causes() {
		if c.Label() == label {
			return c
		}
	}
	return ""
}
