package claude

import "github.com/plandash/plandash/internal/agents/agenttest"

// The stores and services the tests run on, from the agents' test kit.
var (
	newPlans = agenttest.Plans
	newGate  = agenttest.Gate
)
