package e2e

import (
	"fmt"
	"net"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"

	"github.com/chromedp/chromedp"
	"github.com/chromedp/chromedp/kb"
)

// With no plandash running, the extension says so in the status bar, offers to start it, runs
// `plandash serve` in a terminal when asked, and connects to it by itself. Then it installs an
// agent's hooks into the workspace with `plandash install AGENT --project`.
func TestVSCodeStartsPlandash(t *testing.T) {
	cs := codeServer(t)
	pkg := vsix(t)
	bin := buildPlandash(t)
	data := t.TempDir()
	pd := filepath.Join(data, "plandash")
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := ln.Addr().String()
	ln.Close()
	// A server that stopped without cleaning up left its address: nothing answers there now.
	writeFile(t, filepath.Join(pd, "addr"), "http://"+addr+"\n")

	// plandash.path runs the real plandash on that address and data directory, and records its
	// pid so the test stops exactly the server it caused to start.
	pidFile := filepath.Join(t.TempDir(), "serve.pid")
	wrapper := filepath.Join(t.TempDir(), "plandash")
	writeFile(t, wrapper, "#!/bin/sh\nif [ \"$1\" = serve ]; then\n  echo $$ > "+pidFile+"\n  shift\n  exec "+bin+" serve --addr "+addr+" --data "+pd+` "$@"`+"\nfi\nexec "+bin+` "$@"`+"\n")
	if err := os.Chmod(wrapper, 0o755); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		if b, err := os.ReadFile(pidFile); err == nil {
			if pid, err := strconv.Atoi(strings.TrimSpace(string(b))); err == nil {
				_ = syscall.Kill(pid, syscall.SIGTERM)
			}
		}
	})

	ws := filepath.Join(t.TempDir(), "shop")
	if err := os.MkdirAll(ws, 0o755); err != nil {
		t.Fatal(err)
	}
	v := startVSCode(t, cs, []string{pkg}, map[string]any{"plandash.path": wrapper}, "XDG_DATA_HOME="+data)
	p := openVSCode(t, v, ws)
	waitStatusWithin(p, "plandash: not running", 4*waitFor)
	p.eval(`document.getElementById("plandash.plandash.plandash.waits").querySelector("a, .statusbar-item-label").click(); "ok"`)
	clickToastButton(p, "plandash is not running", "Start plandash serve")
	waitStatusWithin(p, "plandash: 0 waiting", 2*waitFor)
	if _, err := os.Stat(filepath.Join(pd, "token")); err != nil {
		t.Fatalf("the server started from VS Code made no token in its data directory: %v", err)
	}

	runCommand(p, "plandash: Install Hooks for an Agent into This Workspace")
	p.wait("the agents to choose from", `[...document.querySelectorAll(".quick-input-list .monaco-list-row")].some(r => r.textContent.includes("Claude Code"))`)
	p.do(typeInto(".quick-input-widget .quick-input-box input", "Claude Code"))
	p.do(chromedp.KeyEvent(kb.Enter))
	p.wait("what changed", toast("Claude Code's hooks are in shop")+` !== undefined`)
	settings, err := os.ReadFile(filepath.Join(ws, ".claude", "settings.local.json"))
	// The hooks run the plandash the extension is configured with (plandash.path).
	if err != nil || !strings.Contains(string(settings), wrapper+" hook claude") {
		t.Fatalf("the workspace's .claude/settings.local.json has no plandash hooks running %s (%v): %s", wrapper, err, settings)
	}

	// Connect… to another server by URL and token: the URL goes into the settings, the token
	// into VS Code's secret storage and nowhere in the settings files.
	ln2, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	other := serveOn(t, t.TempDir(), ln2)
	runCommand(p, "plandash: Connect…")
	pickQuickInput(p, "A server URL…")
	typeQuickInput(p, "plandash server URL", other.url(""))
	typeQuickInput(p, "Its token", token)
	waitStatusWithin(p, "plandash: 0 waiting", 2*waitFor)
	other.submit(approvalBody("Ship it on the shared server", "sess-shared"))
	waitStatus(p, "plandash: 1 waiting")
	for _, f := range []string{filepath.Join(v.userData, "User", "settings.json"), filepath.Join(v.userData, "Machine", "settings.json")} {
		b, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		if strings.Contains(string(b), token) {
			t.Fatalf("%s holds the token:\n%s", f, b)
		}
		if strings.Contains(f, "Machine") && !strings.Contains(string(b), other.url("")) {
			t.Fatalf("%s does not hold the server's URL:\n%s", f, b)
		}
	}
}

// pickQuickInput chooses the item labelled label in VS Code's open quick pick.
func pickQuickInput(p *page, label string) {
	p.t.Helper()
	row := fmt.Sprintf(`[...document.querySelectorAll(".quick-input-widget .quick-input-list .monaco-list-row")].find(r => r.textContent.includes(%s))`, js(label))
	p.wait("the choice "+label, row+` !== undefined`)
	p.eval(row + `.click(); "ok"`)
}

// typeQuickInput replaces the text of VS Code's input box titled title and confirms it.
func typeQuickInput(p *page, title, text string) {
	p.t.Helper()
	box := ".quick-input-widget .quick-input-box input"
	p.wait("the input box "+title, fmt.Sprintf(`(document.querySelector(".quick-input-widget .quick-input-title") || {textContent: ""}).textContent.includes(%s) && `, js(title))+visible(".quick-input-widget"))
	p.eval(fmt.Sprintf(`document.querySelector(%s).select(); "ok"`, js(box)))
	p.do(typeInto(box, text))
	p.do(chromedp.KeyEvent(kb.Enter))
}
