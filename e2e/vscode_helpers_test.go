package e2e

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/chromedp/cdproto/cdp"
	"github.com/chromedp/cdproto/input"
	cdppage "github.com/chromedp/cdproto/page"
	"github.com/chromedp/cdproto/runtime"
	"github.com/chromedp/cdproto/target"
	"github.com/chromedp/chromedp"
	"github.com/chromedp/chromedp/kb"
)

// The real VS Code for the extension's tests: code-server (VS Code in a browser), installed by
// scripts/vscode.sh setup into the cache, driven in the same headless Chromium as the other tests.

// vscodeScript runs scripts/vscode.sh with args and returns its last line of output (a path).
func vscodeScript(t *testing.T, args ...string) (string, error) {
	t.Helper()
	cmd := exec.Command(filepath.Join("..", "scripts", "vscode.sh"), args...)
	var stderr strings.Builder
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		return "", fmt.Errorf("scripts/vscode.sh %s: %w\n%s", strings.Join(args, " "), err, stderr.String())
	}
	lines := strings.Split(strings.TrimSpace(string(out)), "\n")
	return lines[len(lines)-1], nil
}

// codeServer finds code-server. In CI a missing one fails the test (scripts/test.sh installs it);
// elsewhere the test is skipped with the way to install it.
func codeServer(t *testing.T) string {
	t.Helper()
	path, err := vscodeScript(t, "code-server")
	var exit *exec.ExitError
	if errors.As(err, &exit) && exit.ExitCode() == 3 {
		if os.Getenv("CI") == "true" {
			t.Fatal("code-server is not installed: scripts/test.sh installs it (scripts/vscode.sh setup)")
		}
		t.Skip("code-server is not installed: run scripts/vscode.sh setup (scripts/test.sh does) to run the VS Code tests")
	}
	if err != nil {
		t.Fatal(err)
	}
	return path
}

// vsix builds the extension's package once per test binary (scripts/vscode.sh package) and
// returns its path.
func vsix(t *testing.T) string {
	t.Helper()
	built.once.Do(func() { built.path, built.err = vscodeScript(t, "package") })
	if built.err != nil {
		t.Fatal(built.err)
	}
	return built.path
}

var built struct {
	once sync.Once
	path string
	err  error
}

// vsCode is one throwaway code-server with the extension installed.
type vsCode struct {
	base     string // http://127.0.0.1:PORT
	userData string // its --user-data-dir: User/settings.json is watched live
}

// startVSCode installs the .vsix packages into a fresh code-server and runs it on a free
// loopback port with env added to its environment (the extension host inherits it), until the
// test ends.
func startVSCode(t *testing.T, cs string, vsixes []string, settings map[string]any, env ...string) *vsCode {
	t.Helper()
	dir := t.TempDir()
	v := &vsCode{userData: filepath.Join(dir, "data")}
	ext := filepath.Join(dir, "extensions")
	v.writeSettings(t, settings)
	args := []string{"--extensions-dir", ext, "--user-data-dir", v.userData}
	for _, pkg := range vsixes {
		args = append(args, "--install-extension", pkg)
	}
	install := exec.Command(cs, args...)
	if out, err := install.CombinedOutput(); err != nil {
		t.Fatalf("install the extensions into code-server: %v\n%s", err, out)
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := ln.Addr().String()
	ln.Close() // code-server binds it itself; nothing else on this machine races for it in practice
	v.base = "http://" + addr
	ctx, cancel := context.WithCancel(context.Background())
	cmd := exec.CommandContext(ctx, cs, "--auth", "none", "--bind-addr", addr, "--extensions-dir", ext,
		"--user-data-dir", v.userData, "--disable-telemetry", "--disable-update-check")
	cmd.Env = append(cleanEnv(), env...)
	logf, err := os.Create(filepath.Join(dir, "code-server.log"))
	if err != nil {
		t.Fatal(err)
	}
	cmd.Stdout, cmd.Stderr = logf, logf
	// code-server runs a child server, extension hosts and terminals: in a process group of its
	// own, all of them are stopped together, first with SIGTERM so they end what they started.
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	cmd.Cancel = func() error { return syscall.Kill(-cmd.Process.Pid, syscall.SIGTERM) }
	cmd.WaitDelay = 10 * time.Second
	if err := cmd.Start(); err != nil {
		t.Fatalf("start code-server: %v", err)
	}
	t.Cleanup(func() {
		cancel()
		_ = cmd.Wait()
		_ = syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL) // whatever of the group outlived it
		logf.Close()
	})
	deadline := time.Now().Add(2 * waitFor)
	for {
		resp, err := http.Get(v.base + "/healthz")
		if err == nil {
			resp.Body.Close()
			if resp.StatusCode == http.StatusOK {
				return v
			}
		}
		if time.Now().After(deadline) {
			log, _ := os.ReadFile(logf.Name())
			t.Fatalf("code-server did not answer on %s: %v\n%s", v.base, err, log)
		}
		time.Sleep(100 * time.Millisecond) // polling interval, not an assertion
	}
}

// cleanEnv is this process's environment without what would point the extension elsewhere than
// the test's data directory.
func cleanEnv() []string {
	var out []string
	for _, kv := range os.Environ() {
		if strings.HasPrefix(kv, "PLANDASH_SERVER=") || strings.HasPrefix(kv, "PLANDASH_TOKEN=") || strings.HasPrefix(kv, "XDG_DATA_HOME=") {
			continue
		}
		out = append(out, kv)
	}
	return out
}

// writeSettings replaces the user settings; a running code-server applies them live.
func (v *vsCode) writeSettings(t *testing.T, extra map[string]any) {
	t.Helper()
	s := map[string]any{
		"security.workspace.trust.enabled": false, "workbench.startupEditor": "none", "chat.disableAIFeatures": true,
		"workbench.tips.enabled": false, "extensions.ignoreRecommendations": true, "telemetry.telemetryLevel": "off",
		"workbench.enableExperiments": false, "update.mode": "none",
		// Built-in extensions the test does not need, which slow the start on two cores.
		"git.enabled": false, "git.autoRepositoryDetection": false, "github.gitAuthentication": false,
		"npm.autoDetect": "off", "json.schemaDownload.enable": false, "extensions.autoCheckUpdates": false,
		"extensions.autoUpdate": false,
		// Screenshots without half-faded notifications or an empty secondary side bar.
		"workbench.reduceMotion": "on", "workbench.secondarySideBar.defaultVisibility": "hidden",
		// No "your application on port N is available" toasts for whatever else listens here.
		"remote.autoForwardPorts": false,
	}
	// Machine-scoped settings (plandash.path, .server, .dataDir) count only in the machine's
	// own settings file in a remote window, which code-server's window is.
	machine := map[string]any{}
	for k, val := range extra {
		if strings.HasPrefix(k, "plandash.") {
			machine[k] = val
			continue
		}
		s[k] = val
	}
	writeJSON(t, filepath.Join(v.userData, "Machine", "settings.json"), machine)
	writeJSON(t, filepath.Join(v.userData, "User", "settings.json"), s)
}

// setUserSetting changes one user setting, keeping the others (the theme VS Code wrote there
// when it was toggled, say); a running code-server applies it live.
func (v *vsCode) setUserSetting(t *testing.T, key string, val any) {
	t.Helper()
	path := filepath.Join(v.userData, "User", "settings.json")
	// VS Code may be writing the file (a theme toggled a moment ago): read until it parses.
	deadline := time.Now().Add(waitFor)
	var s map[string]any
	for {
		b, err := os.ReadFile(path)
		if err == nil && json.Unmarshal(b, &s) == nil {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("VS Code's user settings do not parse: %v\n%s", err, b)
		}
		time.Sleep(100 * time.Millisecond) // polling interval, not an assertion
	}
	s[key] = val
	writeJSON(t, path, s)
	// VS Code writes the whole file when it saves a setting of its own (the theme just
	// toggled), and a save it began before our write lands after it, without our key: write
	// the key again until it stays.
	want, _ := json.Marshal(val)
	for range 10 {
		time.Sleep(200 * time.Millisecond) // polling interval, not an assertion
		var now map[string]any
		b, err := os.ReadFile(path)
		if err != nil || json.Unmarshal(b, &now) != nil {
			continue // being written
		}
		if got, _ := json.Marshal(now[key]); string(got) == string(want) {
			return
		}
		now[key] = val
		writeJSON(t, path, now)
	}
}

// writeJSON writes v as JSON into path, making its directory.
func writeJSON(t *testing.T, path string, v any) {
	t.Helper()
	b, err := json.MarshalIndent(v, "", "  ")
	if err != nil {
		t.Fatal(err)
	}
	writeFile(t, path, string(b))
}

// frameEval evaluates expr, which must yield a string, in the first frame of the tab whose
// address starts with prefix (frames nested at any depth: the panel is an iframe in a webview's
// iframe). It runs in an isolated world of that frame: the DOM is shared, the page's own
// globals are not. ok is false while no such frame exists or it throws.
func frameEval(p *page, prefix, expr string) (string, bool) {
	return evalInFrames(p, prefix, expr, false)
}

// frameEvalEach is frameEval in every frame whose address starts with prefix, until one yields
// something other than "none".
func frameEvalEach(p *page, prefix, expr string) (string, bool) {
	return evalInFrames(p, prefix, expr, true)
}

func evalInFrames(p *page, prefix, expr string, each bool) (string, bool) {
	ctx, cancel := context.WithTimeout(p.ctx, 5*time.Second)
	defer cancel()
	tree, err := chromedp.Call(ctx, cdppage.GetFrameTree, cdp.Empty{})
	if err != nil || tree.FrameTree == nil {
		return "", false
	}
	ids := findFrames(tree.FrameTree, prefix, nil)
	if len(ids) == 0 {
		return evalInOtherProcess(p, prefix, expr)
	}
	if !each && len(ids) > 1 {
		ids = ids[:1]
	}
	for _, id := range ids {
		world, err := chromedp.Call(ctx, cdppage.CreateIsolatedWorld, cdppage.CreateIsolatedWorldParams{FrameID: id, WorldName: "plandash-e2e"})
		if err != nil {
			continue
		}
		yes := true
		res, err := chromedp.Call(ctx, runtime.Evaluate, runtime.EvaluateParams{Expression: expr, ContextID: world.ExecutionContextID, ReturnByValue: &yes})
		if err != nil || res.ExceptionDetails != nil || res.Result == nil {
			continue
		}
		var s string
		if json.Unmarshal(res.Result.Value, &s) != nil {
			continue
		}
		if s != "none" || !each {
			return s, true
		}
	}
	return "", false
}

// evalInOtherProcess evaluates expr in an iframe of another site than the page's: Chromium runs
// it in a process of its own, listed as a target of type "iframe" and not in the page's frame
// tree. The first such iframe whose address starts with prefix answers. The test attaches to
// each such iframe once and stays attached until it ends: chromedp reads the frame's document
// as it attaches, and DOM events arriving meanwhile race with that read (a data race inside
// chromedp v0.22–0.23), so attaching for every poll made that race likely.
func evalInOtherProcess(p *page, prefix, expr string) (string, bool) {
	infos, err := chromedp.Targets(p.ctx)
	if err != nil {
		return "", false
	}
	for _, info := range infos {
		if info.Type != "iframe" || !strings.HasPrefix(info.URL, prefix) {
			continue
		}
		fctx, ok := p.attached(info.TargetID)
		if !ok {
			return "", false
		}
		tctx, cancel := context.WithTimeout(fctx, 5*time.Second)
		defer cancel()
		s, err := chromedp.Run(tctx, chromedp.Evaluate[string](expr))
		if err != nil {
			return "", false
		}
		return s, true
	}
	return "", false
}

// attached is a context attached to target id, attaching on first use; it detaches when the
// test ends.
func (p *page) attached(id target.ID) (context.Context, bool) {
	p.mu.Lock()
	defer p.mu.Unlock()
	if ctx, ok := p.others[id]; ok {
		return ctx, true
	}
	ctx, cancel := chromedp.NewContext(p.ctx, chromedp.WithTargetID(id), chromedp.WithDetachOnCancel())
	// The first Run binds the target to ctx itself, not to a call's shorter context; a timer
	// bounds it instead.
	stuck := time.AfterFunc(10*time.Second, cancel)
	_, err := chromedp.Run(ctx, chromedp.Evaluate[string](`""`))
	if !stuck.Stop() || err != nil {
		cancel()
		return nil, false
	}
	p.t.Cleanup(cancel)
	if p.others == nil {
		p.others = map[target.ID]context.Context{}
	}
	p.others[id] = ctx
	return ctx, true
}

// findFrames appends the frames under t whose address starts with prefix, depth first.
func findFrames(t *cdppage.FrameTree, prefix string, out []cdp.FrameID) []cdp.FrameID {
	if t.Frame != nil && strings.HasPrefix(t.Frame.URL, prefix) {
		out = append(out, t.Frame.ID)
	}
	for _, c := range t.ChildFrames {
		out = findFrames(c, prefix, out)
	}
	return out
}

// waitFrame polls until cond (a JavaScript expression) is true in the frame at prefix.
func waitFrame(p *page, what, prefix, cond string) {
	p.t.Helper()
	deadline := time.Now().Add(2 * waitFor)
	for {
		if v, ok := frameEval(p, prefix, `String(!!(function(){ try { return (`+cond+`); } catch (e) { return false; } })())`); ok && v == "true" {
			return
		}
		if time.Now().After(deadline) {
			html, _ := frameEval(p, prefix, `document.documentElement.outerHTML.slice(0, 4000)`)
			p.fail("timed out waiting in the frame %s for %s\ncondition: %s\nframe: %s", prefix, what, cond, html)
		}
		time.Sleep(100 * time.Millisecond) // polling interval, not an assertion
	}
}

// statusBar is the text of the workbench's status bar item of plandash ("" while there is none).
// The item's element id is VS Code's: the extension's id, then the item's.
const statusBar = `(document.getElementById("plandash.plandash.plandash.waits") || {textContent: ""}).textContent.trim()`

// waitStatus waits until plandash's status bar item says want.
func waitStatus(p *page, want string) {
	p.t.Helper()
	waitStatusWithin(p, want, waitFor)
}

// waitStatusWithin is waitStatus with its own failure deadline: the first count waits for VS
// Code's start-up, which takes tens of seconds on a loaded 2-core machine.
func waitStatusWithin(p *page, want string, limit time.Duration) {
	p.t.Helper()
	deadline := time.Now().Add(limit)
	for {
		got := p.eval(statusBar)
		if got == want {
			return
		}
		if time.Now().After(deadline) {
			all := p.eval(`JSON.stringify([...document.querySelectorAll(".statusbar-item")].map(e => e.id + "=" + e.textContent))`)
			p.fail("the status bar says %q, want %q; its items: %s", got, want, all)
		}
		time.Sleep(50 * time.Millisecond) // polling interval, not an assertion
	}
}

// toast finds the notification whose text contains s (JavaScript: the element or undefined).
func toast(s string) string {
	return fmt.Sprintf(`[...document.querySelectorAll(".notification-toast")].find(e => e.textContent.includes(%s))`, js(s))
}

// clickToastButton clicks the button labelled label on the notification containing s.
func clickToastButton(p *page, s, label string) {
	p.t.Helper()
	cond := fmt.Sprintf(`[...(%s || document.createElement("i")).querySelectorAll(".monaco-button")].some(b => b.textContent.trim() === %s)`, toast(s), js(label))
	p.wait(fmt.Sprintf("a notification with %q about %q", label, s), cond)
	p.eval(fmt.Sprintf(`[...%s.querySelectorAll(".monaco-button")].find(b => b.textContent.trim() === %s).click(); "ok"`, toast(s), js(label)))
}

// runCommand runs a command from VS Code's command palette by its title.
func runCommand(p *page, title string) {
	p.t.Helper()
	p.do(chromedp.KeyEvent(kb.F1))
	p.wait("the command palette", exists(".quick-input-widget .quick-input-box input"))
	p.do(typeInto(".quick-input-widget .quick-input-box input", title))
	p.wait("the command "+title, fmt.Sprintf(`[...document.querySelectorAll(".quick-input-list .monaco-list-row")].some(r => r.textContent.includes(%s))`, js(title)))
	p.do(chromedp.KeyEvent(kb.Enter))
}

// activationTimes is what VS Code's Running Extensions view reports for each named extension's
// activation (its display name, e.g. "plandash"), e.g. "Activation: 3ms". VS Code's figure is the
// time from starting to load the extension's main module until it is loaded, plus the time its
// activate() runs before it returns. all is every row seen, name and figure, slowest first.
func activationTimes(p *page, names ...string) (got map[string]string, all []string) {
	p.t.Helper()
	runCommand(p, "Developer: Show Running Extensions")
	p.wait("the Running Extensions list", exists(".runtime-extensions-editor .monaco-list-row"))
	// The list is sorted slowest first and draws only the rows in view: read the rows in view,
	// then scroll down with the mouse wheel over the list, until every name was seen.
	const read = `JSON.stringify([...document.querySelectorAll(".runtime-extensions-editor .monaco-list-row")].map(r => {
		const n = r.querySelector(".name"), a = r.querySelector(".activation-time, .activationTime");
		return [n ? n.textContent.trim() : "", a ? a.textContent.trim() : r.textContent.replace(/\s+/g, " ").trim()];
	}))`
	box := evalAs[[]float64](p, `(function(){ const r = document.querySelector(".runtime-extensions-editor .monaco-list").getBoundingClientRect(); return [r.x + r.width / 2, r.y + r.height / 2]; })()`)
	got = map[string]string{}
	seen := map[string]bool{}
	want := map[string]bool{}
	for _, n := range names {
		want[n] = true
	}
	for range 40 {
		var rows [][2]string
		if err := json.Unmarshal([]byte(p.eval(read)), &rows); err != nil {
			p.fail("read Running Extensions: %v", err)
		}
		for _, r := range rows {
			if !seen[r[0]] {
				seen[r[0]] = true
				all = append(all, r[0]+": "+r[1])
			}
			if want[r[0]] {
				got[r[0]] = r[1]
			}
		}
		if len(got) == len(names) {
			return got, all
		}
		// DeltaX 0 would be left out of the call, and Chromium wants both deltas.
		wheel := input.DispatchMouseEventParams{Type: input.DispatchMouseEventTypeMouseWheel, X: box[0], Y: box[1], DeltaX: 1, DeltaY: 140}
		if _, err := chromedp.Call(p.ctx, input.DispatchMouseEvent, wheel); err != nil {
			p.fail("scroll Running Extensions: %v", err)
		}
		time.Sleep(200 * time.Millisecond) // let the list draw the rows now in view; not an assertion
	}
	p.fail("Running Extensions shows %v of %v; rows seen: %s", got, names, strings.Join(all, " | "))
	return nil, nil
}
