package agenttest

import (
	"os"
	"os/exec"
	"testing"
)

// needAgents skips agent tests in -short runs; Command skips further when a CLI is missing.
func needAgents(t *testing.T) {
	t.Helper()
	if testing.Short() && os.Getenv(EnvAgentTests) != "1" {
		t.Skip("agent CLI tests are slow; skipped with -short")
	}
}

// needTmux fails when tmux is missing, since the CLI tests that need it only run where the
// CLIs were installed on purpose.
func needTmux(t *testing.T) {
	t.Helper()
	if _, err := exec.LookPath("tmux"); err != nil {
		t.Fatal("tmux is not installed (apt-get install -y tmux)")
	}
}
