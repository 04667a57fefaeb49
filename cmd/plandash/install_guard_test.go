//go:build unix

package main

import (
	"bytes"
	"context"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/plandash/plandash/internal/agents/agentkit"
	"github.com/plandash/plandash/internal/agents/registry"
)

// installTarget is the file an agent's project install writes, under the project, and what the
// install wrote there.
type installTarget struct {
	rel     string
	written []byte
}

// installTargets is the file each agent's project install writes, under the project: found by
// installing into a scratch project, as the one written there that doctor reads (its settings
// or its plugin), so that every agent of the registry is covered.
func installTargets(t *testing.T) map[string]installTarget {
	t.Helper()
	targets := map[string]installTarget{}
	for _, a := range registry.All() {
		if !a.Honours(agentkit.FlagProject) {
			continue // installed for the user only; settingsfile's own tests guard the user's files
		}
		home, project := t.TempDir(), t.TempDir()
		env := func(k string) string { return map[string]string{"HOME": home}[k] }
		if _, err := installBounded(t, env, "", a.Name, "--project", project); err != nil {
			t.Fatalf("install %s into a scratch project: %v", a.Name, err)
		}
		var read []string
		if a.Settings != nil {
			read = a.Settings(home, project, env)
		}
		if a.Plugins != nil {
			read = append(read, a.Plugins(project, env)...)
		}
		for _, p := range filesUnder(t, project) {
			if slices.Contains(read, p) {
				rel, _ := filepath.Rel(project, p)
				b, err := os.ReadFile(p)
				if err != nil {
					t.Fatal(err)
				}
				targets[a.Name] = installTarget{rel, b}
			}
		}
		if targets[a.Name].rel == "" {
			t.Fatalf("%s's project install wrote none of the files doctor reads (%v)", a.Name, read)
		}
	}
	return targets
}

// installBounded runs `plandash install ARGS…` and fails the test when it has not returned
// within a bound (a hang), unblocking a reader stuck on fifo (when set) so nothing stays behind.
func installBounded(t *testing.T, env func(string) string, fifo string, args ...string) (string, error) {
	t.Helper()
	type result struct {
		out string
		err error
	}
	done := make(chan result, 1)
	args = append([]string{"install"}, args...)
	if a, ok := registry.Lookup(args[1]); ok && a.Honours(agentkit.FlagCommand) {
		args = append(args, "--command", fakeBinary(t)) // what the hooks run: this test's own binary is temporary
	}
	go func() {
		var out, errOut bytes.Buffer
		err := run(context.Background(), args, env, nil, &out, &errOut)
		done <- result{out.String(), err}
	}()
	select {
	case r := <-done:
		return r.out, r.err
	case <-time.After(20 * time.Second):
		if fifo != "" {
			if w, err := os.OpenFile(fifo, os.O_WRONLY|syscall.O_NONBLOCK, 0); err == nil {
				w.Close() // the stuck reader gets EOF
			}
		}
		t.Fatalf("install %v did not return: it hangs", args)
		return "", nil
	}
}

// snapshot describes every entry under dirs (type, mode, size, and the content of small
// files), to show that nothing was written.
func snapshot(t *testing.T, dirs ...string) string {
	t.Helper()
	var b strings.Builder
	for _, dir := range dirs {
		err := filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
			if err != nil {
				return err
			}
			fi, err := d.Info()
			if err != nil {
				return err
			}
			fmt.Fprintf(&b, "%s %v %d", p, fi.Mode(), fi.Size())
			if fi.Mode().IsRegular() && fi.Size() < 1<<20 {
				c, err := os.ReadFile(p)
				if err != nil {
					return err
				}
				fmt.Fprintf(&b, " %q", c)
			}
			b.WriteByte('\n')
			return nil
		})
		if err != nil {
			t.Fatal(err)
		}
	}
	return b.String()
}

// TestInstallRefusesWhatIsNotASettingsFile is issue 25's item 17 for `plandash install`: for
// every agent, a project install against a FIFO, through a config directory linked out of the
// project, onto a read-only file, or onto a 200 MB file, returns at once with an error that
// names the file and the reason, and writes nothing, in the project or outside it.
func TestInstallRefusesWhatIsNotASettingsFile(t *testing.T) {
	for agent, scratch := range installTargets(t) {
		rel := scratch.rel
		for _, tc := range []struct {
			name string
			// prepare makes the trap at target (under project) and returns the FIFO's path
			// when it made one.
			prepare func(t *testing.T, project, outside, target string) string
			says    string
		}{
			{"a FIFO", func(t *testing.T, _, _, target string) string {
				mkdirAll(t, filepath.Dir(target))
				if err := syscall.Mkfifo(target, 0o644); err != nil {
					t.Fatal(err)
				}
				return target
			}, "is not a regular file (a FIFO)"},
			{"a config directory linked out of the project", func(t *testing.T, project, outside, target string) string {
				top := strings.SplitN(rel, string(filepath.Separator), 2)[0] // .claude, .codex, …
				mkdirAll(t, filepath.Join(outside, top))
				if err := os.Symlink(filepath.Join(outside, top), filepath.Join(project, top)); err != nil {
					t.Fatal(err)
				}
				return ""
			}, "leads out of the project"},
			{"a read-only file", func(t *testing.T, _, _, target string) string {
				mkdirAll(t, filepath.Dir(target))
				// An empty settings file, or plandash's own plugin as an older install wrote
				// it, made read-only: the install must refuse it, saying why.
				content := []byte("{}\n")
				if a, _ := registry.Lookup(agent); a.Plugins != nil {
					content = append(slices.Clip(scratch.written), "\n// (an older version)\n"...)
				}
				if err := os.WriteFile(target, content, 0o444); err != nil {
					t.Fatal(err)
				}
				return ""
			}, "is read-only (mode 0444)"},
			{"a 200 MB file", func(t *testing.T, _, _, target string) string {
				mkdirAll(t, filepath.Dir(target))
				f, err := os.Create(target)
				if err != nil {
					t.Fatal(err)
				}
				// Sparse: 200 MB as the file system counts, no disk used.
				if err := f.Truncate(200 << 20); err != nil {
					t.Fatal(err)
				}
				f.Close()
				return ""
			}, "is over 4 MiB, too large for a settings file"},
		} {
			t.Run(agent+"/"+tc.name, func(t *testing.T) {
				home, project, outside := t.TempDir(), t.TempDir(), t.TempDir()
				env := func(k string) string { return map[string]string{"HOME": home}[k] }
				target := filepath.Join(project, rel)
				fifo := tc.prepare(t, project, outside, target)
				before := snapshot(t, project, outside, home)
				_, err := installBounded(t, env, fifo, agent, "--project", project, "--gate")
				// It names the file refused: the target, or (gemini) the policy file checked first.
				if err == nil || !strings.Contains(err.Error(), tc.says) || !strings.Contains(err.Error(), filepath.Join(project, strings.SplitN(rel, "/", 2)[0])) {
					t.Fatalf("install: %v; want an error naming the file under %s and saying %q", err, project, tc.says)
				}
				if after := snapshot(t, project, outside, home); after != before {
					t.Errorf("files changed:\nbefore:\n%s\nafter:\n%s", before, after)
				}
			})
		}
	}
}

// TestInstallGeminiPolicyStaysInTheProject: a project whose .gemini/policies is linked to the
// user's own must not get the allow policy written there (it would skip the dialog for every
// project), and the settings are left untouched too.
func TestInstallGeminiPolicyStaysInTheProject(t *testing.T) {
	home, project := t.TempDir(), t.TempDir()
	env := func(k string) string { return map[string]string{"HOME": home}[k] }
	mkdirAll(t, filepath.Join(home, ".gemini", "policies"))
	mkdirAll(t, filepath.Join(project, ".gemini"))
	if err := os.Symlink(filepath.Join(home, ".gemini", "policies"), filepath.Join(project, ".gemini", "policies")); err != nil {
		t.Fatal(err)
	}
	before := snapshot(t, project, home)
	_, err := installBounded(t, env, "", "gemini", "--project", project, "--gate")
	if err == nil || !strings.Contains(err.Error(), "plandash.toml leads out of the project") {
		t.Fatalf("install: %v; want a refusal naming the policy file", err)
	}
	if after := snapshot(t, project, home); after != before {
		t.Errorf("files changed:\nbefore:\n%s\nafter:\n%s", before, after)
	}
	// A user install still writes the user's policy, as before.
	if _, err := installBounded(t, env, "", "gemini", "--gate"); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(filepath.Join(home, ".gemini", "policies", "plandash.toml")); err != nil {
		t.Errorf("the user install wrote no policy: %v", err)
	}
}

func mkdirAll(t *testing.T, dir string) {
	t.Helper()
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
}

// TestInstallGeminiReadOnlyPolicy: a read-only policy file that --gate would replace stops the
// install before the settings are touched.
func TestInstallGeminiReadOnlyPolicy(t *testing.T) {
	home := t.TempDir()
	env := func(k string) string { return map[string]string{"HOME": home}[k] }
	policy := filepath.Join(home, ".gemini", "policies", "plandash.toml")
	mkdirAll(t, filepath.Dir(policy))
	if err := os.WriteFile(policy, []byte("# mine\n"), 0o444); err != nil {
		t.Fatal(err)
	}
	before := snapshot(t, home)
	if _, err := installBounded(t, env, "", "gemini", "--gate"); err == nil || !strings.Contains(err.Error(), "plandash.toml is read-only") {
		t.Fatalf("install: %v; want the read-only policy named", err)
	}
	if after := snapshot(t, home); after != before {
		t.Errorf("files changed:\nbefore:\n%s\nafter:\n%s", before, after)
	}
}
