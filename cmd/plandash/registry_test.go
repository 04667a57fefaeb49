package main

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/plandash/plandash/internal/agents/agentkit"
	"github.com/plandash/plandash/internal/agents/registry"
)

// TestEveryAgentEverywhere: every agent of the registry is in every place that names agents —
// the usage text, `plandash hook` (when it has command hooks), `plandash install` into a project
// and out again, `plandash doctor` before and after, the README's agent table, the table of
// docs/agents.md (with its install flags and the version tested) and the VS Code extension's
// "Install Hooks" list — so an agent added to the registry and forgotten in
// one of them fails here. The hook route and scripts/agent-clis.sh are checked by
// TestEveryAgentHasAHookRoute (internal/app) and TestTestedVersionsMatchTheInstallScript.
func TestEveryAgentEverywhere(t *testing.T) {
	readme := readRepoFile(t, "README.md")
	agentsDoc := readRepoFile(t, filepath.Join("docs", "agents.md"))
	extension := readRepoFile(t, filepath.Join("editors", "vscode", "src", "commands.ts"))
	help := usage()
	for _, a := range registry.All() {
		t.Run(a.Name, func(t *testing.T) {
			if !usageLists(help, "plandash install ", a.Name) {
				t.Errorf("the usage's install line does not list %s", a.Name)
			}
			if usageLists(help, "plandash hook ", a.Name) != (a.Hook != nil) {
				t.Errorf("the usage's hook line lists %s: %v; it has command hooks: %v", a.Name, !(a.Hook != nil), a.Hook != nil)
			}
			if !tableRow(readme, "| "+a.Title+" |") {
				t.Errorf("README.md's agent table has no row for %s (| %s | …)", a.Name, a.Title)
			}
			if row := tableRowWith(agentsDoc, "| "+a.Title+" |"); row == "" {
				t.Errorf("docs/agents.md's table has no row for %s (| %s | …)", a.Name, a.Title)
			} else {
				for _, want := range []string{"`plandash install " + a.Name, a.Tested} {
					if !strings.Contains(row, want) {
						t.Errorf("docs/agents.md's row for %s does not say %q: %s", a.Name, want, row)
					}
				}
				for _, flag := range installFlags {
					listed := strings.Contains(row, "`--"+flag+"`")
					if want := a.Honours(flag) && !(flag == agentkit.FlagGate && a.GateAlways); listed != want {
						t.Errorf("docs/agents.md's row for %s lists --%s: %v; install takes it: %v", a.Name, flag, listed, want)
					}
				}
			}
			// The VS Code extension's "Install Hooks" offers the agent by its title.
			if entry := `{ label: "` + a.Title + `", id: "` + a.Name + `" }`; !strings.Contains(extension, entry) {
				t.Errorf("editors/vscode/src/commands.ts's AGENTS has no %s", entry)
			}
			checkHookCommand(t, a)
			checkInstallAndDoctor(t, a)
		})
	}
}

// checkHookCommand: `plandash hook NAME -h` is the agent's hook command (its flags), and an agent
// without command hooks is told so rather than called unknown.
func checkHookCommand(t *testing.T, a agentkit.Agent) {
	t.Helper()
	_, stderr, err := runOut(t, func(string) string { return "" }, "", "hook", a.Name, "-h")
	if !errors.Is(err, errUsage) {
		t.Errorf("hook %s -h: %v", a.Name, err)
	}
	if a.Hook == nil {
		if !strings.Contains(stderr, a.Title+" has no command hooks") {
			t.Errorf("hook %s: %q, want it to say %s has no command hooks", a.Name, stderr, a.Title)
		}
		return
	}
	if !strings.Contains(stderr, "plandash hook "+a.Name) || !strings.Contains(stderr, "-server") || strings.Contains(stderr, "unknown agent") {
		t.Errorf("hook %s -h does not show the hook command's flags: %q", a.Name, stderr)
	}
}

// checkInstallAndDoctor installs the agent into a project (or, for an agent installed only for
// the user, into the test's home) with every flag it honours, has doctor find what was written,
// and takes it away again, leaving the directory as it was.
func checkInstallAndDoctor(t *testing.T, a agentkit.Agent) {
	t.Helper()
	env := testEnv(t)
	project := t.TempDir()
	dir, where := project, []string{"--project", project}
	if !a.Honours(agentkit.FlagProject) {
		dir, where = env("HOME"), nil
	}
	doctor := func() string {
		out, _, _ := runOut(t, env, "", "doctor", "--project", project)
		return out
	}
	prefix := a.Name + ":"
	if out := doctor(); !strings.Contains(out, "\n"+prefix) {
		t.Errorf("doctor has no line for %s before the install:\n%s", a.Name, out)
	}
	args := append([]string{"install", a.Name}, where...)
	if a.Honours(agentkit.FlagGate) {
		args = append(args, "--gate")
	}
	if a.Honours(agentkit.FlagCommand) {
		args = append(args, "--command", fakeBinary(t))
	}
	if out, stderr, err := runOut(t, env, "", args...); err != nil {
		t.Fatalf("%v: %v\n%s%s", args, err, out, stderr)
	}
	written := filesUnder(t, dir)
	if len(written) == 0 {
		t.Fatalf("%v wrote nothing in %s", args, dir)
	}
	out := doctor()
	found := false
	for _, line := range strings.Split(out, "\n") {
		if strings.HasPrefix(line, prefix) && strings.Contains(line, "✓") && strings.Contains(line, dir) {
			found = true
		}
	}
	if !found {
		t.Errorf("doctor does not find %s's install in %s (%v):\n%s", a.Name, dir, written, out)
	}
	if _, stderr, err := runOut(t, env, "", append(append([]string{"install", a.Name}, where...), "--uninstall")...); err != nil {
		t.Fatalf("uninstall %s: %v %s", a.Name, err, stderr)
	}
	if out := doctor(); strings.Contains(out, dir) {
		t.Errorf("doctor still finds %s's install after --uninstall:\n%s", a.Name, out)
	}
}

// Install refuses, for each agent, the flags it does not take, naming them and what it takes;
// only --command, for an agent without hook commands, is noted instead.
func TestInstallRefusesFlagsTheAgentDoesNotTake(t *testing.T) {
	optional := map[string][]string{
		agentkit.FlagProject: {"--project", "."}, agentkit.FlagGate: {"--gate"}, agentkit.FlagAllTools: {"--all-tools"},
		agentkit.FlagShared: {"--shared"}, agentkit.FlagToken: {"--token", "t"}, agentkit.FlagCommand: {"--command", "/bin/true"},
	}
	refused := 0
	for _, a := range registry.All() {
		for flag, args := range optional {
			if a.Honours(flag) {
				continue
			}
			refused++
			home := t.TempDir()
			env := func(k string) string { return map[string]string{"HOME": home}[k] }
			_, stderr, err := runOut(t, env, "", append([]string{"install", a.Name}, args...)...)
			if flag == agentkit.FlagCommand && a.Hook == nil {
				// What runs no plandash command says --command is not used, and installs: the
				// VS Code extension passes it for every agent.
				if err != nil || !strings.Contains(stderr, "--command is not used") {
					t.Errorf("install %s %v: %v %q; want it installed with a note", a.Name, args, err, stderr)
				}
				continue
			}
			if !errors.Is(err, errUsage) || !strings.Contains(stderr, "--"+flag+": not taken for "+a.Title) {
				t.Errorf("install %s %v: %v %q; want a usage error naming --%s", a.Name, args, err, stderr, flag)
			}
			if got := filesUnder(t, home); len(got) != 0 {
				t.Errorf("install %s %v wrote %v", a.Name, args, got)
			}
		}
	}
	if refused == 0 {
		t.Error("every agent takes every flag: the refusal is not tested")
	}
	// --shared names a project's file: without --project it is refused, not ignored.
	home := t.TempDir()
	env := func(k string) string { return map[string]string{"HOME": home}[k] }
	if _, _, err := runOut(t, env, "", "install", "claude", "--shared", "--command", fakeBinary(t)); err == nil || !strings.Contains(err.Error(), "give --project DIR too") {
		t.Errorf("install claude --shared without --project: %v", err)
	}
	if got := filesUnder(t, home); len(got) != 0 {
		t.Errorf("install claude --shared without --project wrote %v", got)
	}
}

// installFlags are the install flags some agents take and others refuse.
var installFlags = []string{agentkit.FlagProject, agentkit.FlagGate, agentkit.FlagAllTools, agentkit.FlagShared, agentkit.FlagToken, agentkit.FlagCommand}

// usageLists says whether the usage line starting with prefix lists name among its agents.
func usageLists(help, prefix, name string) bool {
	for _, line := range strings.Split(help, "\n") {
		line = strings.TrimSpace(line)
		if rest, ok := strings.CutPrefix(line, prefix); ok {
			names, _, _ := strings.Cut(rest, " ")
			for _, n := range strings.Split(names, "|") {
				if n == name {
					return true
				}
			}
		}
	}
	return false
}

// tableRow says whether a markdown table in doc has a row starting with start.
func tableRow(doc, start string) bool { return tableRowWith(doc, start) != "" }

// tableRowWith is the first markdown table row in doc that starts with start; "" when none.
func tableRowWith(doc, start string) string {
	for _, line := range strings.Split(doc, "\n") {
		if strings.HasPrefix(line, start) {
			return line
		}
	}
	return ""
}

// readRepoFile reads a file of the repository by its path from the root.
func readRepoFile(t *testing.T, rel string) string {
	t.Helper()
	b, err := os.ReadFile(filepath.Join("..", "..", rel))
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// filesUnder lists the regular files under dir.
func filesUnder(t *testing.T, dir string) []string {
	t.Helper()
	var out []string
	err := filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err == nil && d.Type().IsRegular() {
			out = append(out, p)
		}
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	return out
}
