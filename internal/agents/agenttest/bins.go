package agenttest

import (
	"bytes"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// EnvAgentTests, set to 1, makes the agent tests install missing CLIs (through
// scripts/agent-clis.sh) instead of skipping. CI sets it.
const EnvAgentTests = "PLANDASH_AGENT_TESTS"

// Command returns the argv prefix that runs agent's CLI (a name scripts/agent-clis.sh knows):
// the binary, or node and a JS entry point.
//
// PLANDASH_<AGENT> (PLANDASH_CLAUDE, PLANDASH_CRUSH, …) names a binary to use instead. Otherwise scripts/agent-clis.sh finds it in the cache; when it is not installed
// the test is skipped, unless PLANDASH_AGENT_TESTS=1, which installs it (and fails the test if
// that fails). A CLI the script cannot get on this machine at all (exit 4) is skipped, saying so.
func Command(t testing.TB, agent string) []string {
	t.Helper()
	path := binary(t, agent)
	if strings.HasSuffix(path, ".js") || strings.HasSuffix(path, ".mjs") {
		node, err := exec.LookPath("node")
		if err != nil {
			t.Fatalf("agenttest: %s is a JS entry point but node is not on PATH", path)
		}
		return []string{node, path}
	}
	return []string{path}
}

func binary(t testing.TB, agent string) string {
	t.Helper()
	if p := os.Getenv("PLANDASH_" + strings.ToUpper(agent)); p != "" {
		return p
	}
	script, err := findScript()
	if err != nil {
		t.Fatalf("agenttest: %v", err)
	}
	args := []string{script}
	install := os.Getenv(EnvAgentTests) == "1"
	if !install {
		args = append(args, "--installed-only")
	}
	args = append(args, agent)
	cmd := exec.Command("bash", args...)
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	err = cmd.Run()
	var exit *exec.ExitError
	if !install && errors.As(err, &exit) && exit.ExitCode() == 3 {
		t.Skipf("agenttest: %s CLI not installed (run scripts/agent-clis.sh, or set %s=1): %s",
			agent, EnvAgentTests, strings.TrimSpace(stderr.String()))
	}
	if errors.As(err, &exit) && exit.ExitCode() == 4 {
		// The CLI cannot be had on this machine (Crush downloads its binary from GitHub).
		t.Skipf("agenttest: %s CLI cannot be installed here (set PLANDASH_%s to its binary): %s",
			agent, strings.ToUpper(agent), strings.TrimSpace(stderr.String()))
	}
	if err != nil {
		t.Fatalf("agenttest: scripts/agent-clis.sh %s: %v\n%s", agent, err, stderr.String())
	}
	for line := range strings.Lines(stdout.String()) {
		if p, ok := strings.CutPrefix(strings.TrimSpace(line), agent+"="); ok {
			return p
		}
	}
	t.Fatalf("agenttest: scripts/agent-clis.sh printed no %s= line:\n%s", agent, stdout.String())
	return ""
}

// findScript walks up from the working directory (a package directory under go test) to the
// module root, where scripts/agent-clis.sh lives.
func findScript() (string, error) {
	dir, err := os.Getwd()
	if err != nil {
		return "", err
	}
	for {
		if _, err := os.Stat(filepath.Join(dir, "go.mod")); err == nil {
			p := filepath.Join(dir, "scripts", "agent-clis.sh")
			if _, err := os.Stat(p); err != nil {
				return "", err
			}
			return p, nil
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			return "", errors.New("no go.mod above the working directory")
		}
		dir = parent
	}
}

// baseEnv is the environment every agent CLI starts from: a clean one, so a developer's own
// API keys, proxies or agent settings never leak into a test, plus home (a throwaway HOME).
func baseEnv(t testing.TB, home string) []string {
	t.Helper()
	if err := os.MkdirAll(filepath.Join(home, "tmp"), 0o755); err != nil {
		t.Fatal(err)
	}
	env := []string{
		"HOME=" + home,
		"USER=agenttest",
		"LANG=C.UTF-8",
		"PATH=" + os.Getenv("PATH"),
		"TMPDIR=" + filepath.Join(home, "tmp"),
		"XDG_CONFIG_HOME=" + filepath.Join(home, ".config"),
		"XDG_CACHE_HOME=" + filepath.Join(home, ".cache"),
		"XDG_DATA_HOME=" + filepath.Join(home, ".local", "share"),
		"XDG_STATE_HOME=" + filepath.Join(home, ".local", "state"),
		"NO_COLOR=1",
	}
	return env
}

// writeJSONFile writes v as indented JSON, creating parent directories.
func writeJSONFile(t testing.TB, path string, v any) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	b, err := jsonIndent(v)
	if err != nil {
		t.Fatalf("agenttest: %s: %v", path, err)
	}
	if err := os.WriteFile(path, b, 0o644); err != nil {
		t.Fatal(err)
	}
}
