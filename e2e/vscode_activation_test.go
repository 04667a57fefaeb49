package e2e

import (
	"archive/zip"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
)

// yardsticks are extensions that do next to nothing, activated in the same VS Code as plandash's
// and on the same event (onStartupFinished): what VS Code reports for them is the floor of its
// figure on this machine at this moment. VS Code starts loading every onStartupFinished extension
// at once, built-in ones first, then the others in the order of their folder names
// (publisher.name-version), so one yardstick's folder sorts before plandash's and two after it.
// The last one has plandash's shape (a second module with the command ids, nine commands) to
// tell whether one bundled file would load faster than a main module that requires another.
var yardsticks = []struct {
	publisher, name, displayName string
	files                        map[string]string // extension.js is the main module
}{
	{"a-yardstick", "empty", "Yardstick: empty, before", map[string]string{"extension.js": emptyMain}},
	{"yardstick", "empty", "Yardstick: empty, after", map[string]string{"extension.js": emptyMain}},
	{"yardstick", "command", "Yardstick: one command, after", map[string]string{"extension.js": `const vscode = require("vscode");
exports.activate = function (ctx) {
  ctx.subscriptions.push(vscode.commands.registerCommand("yardstick.hello", function () {}));
};
`}},
	{"yardstick", "twofiles", "Yardstick: two files, after", map[string]string{
		"extension.js": `const vscode = require("vscode");
const ids = require("./ids");
exports.activate = function (ctx) {
  for (const id of ids.IDS) ctx.subscriptions.push(vscode.commands.registerCommand(id, function () {}));
  setTimeout(function () {}, 0);
};
`,
		"ids.js": `exports.IDS = ["y.a", "y.b", "y.c", "y.d", "y.e", "y.f", "y.g", "y.h", "y.i"];
`}},
}

const emptyMain = "exports.activate = function () {};\n"

// TestVSCodeActivation reports plandash's activation time as VS Code's Running Extensions view
// shows it, beside the yardsticks' measured in the same code-server: a report, not a pass/fail on
// wall-clock time. Each run opens a new window, which starts a fresh extension host;
// PLANDASH_ACTIVATION_RUNS sets how many (default 1, to keep the suite short;
// scripts/vscode.sh activation runs 3).
func TestVSCodeActivation(t *testing.T) {
	cs := codeServer(t)
	pkgs := []string{vsix(t)}
	names := []string{"plandash"}
	for _, y := range yardsticks {
		pkgs = append(pkgs, yardstickVSIX(t, y.publisher, y.name, y.displayName, y.files))
		names = append(names, y.displayName)
	}
	runs := 1
	if n, err := strconv.Atoi(os.Getenv("PLANDASH_ACTIVATION_RUNS")); err == nil && n > 0 {
		runs = n
	}
	// No plandash runs: the extension says so in the status bar once it has started.
	data := t.TempDir()
	ws := filepath.Join(t.TempDir(), "shop")
	if err := os.MkdirAll(ws, 0o755); err != nil {
		t.Fatal(err)
	}
	v := startVSCode(t, cs, pkgs, nil, "XDG_DATA_HOME="+data)
	for run := 1; run <= runs; run++ {
		// Each run is a new window, with an extension host of its own; the last one's ended.
		p, closeTab := openVSCodeTab(t, v, ws)
		waitStatusWithin(p, "plandash: not running", 4*waitFor)
		got, all := activationTimes(p, names...)
		if run == 1 {
			t.Logf("every running extension, slowest first: %s", strings.Join(all, " | "))
		}
		// VS Code (1.139, extHostExtensionService) starts every onStartupFinished activation in
		// one loop; each starts its clock, awaits once, then loads its main module: the loading
		// of every extension queued before it falls inside its figure. plandash's figure less that
		// of the empty yardstick queued just before it is about plandash's own cost (noisy on a
		// busy machine, where any process may take the CPU between the two).
		line := []string{fmt.Sprintf("plandash %d ms (%+d ms against the empty one before it)", millis(t, got["plandash"]), millis(t, got["plandash"])-millis(t, got[names[1]]))}
		for _, n := range names[1:] {
			line = append(line, fmt.Sprintf("%s %d ms", n, millis(t, got[n])))
		}
		t.Logf("run %d: %s", run, strings.Join(line, "; "))
		closeTab()
	}
}

// millis reads the number of milliseconds in VS Code's figure, e.g. "Activation: 26ms".
func millis(t *testing.T, figure string) int {
	t.Helper()
	m := regexp.MustCompile(`(\d+)\s*ms`).FindStringSubmatch(figure)
	if m == nil {
		t.Fatalf("no milliseconds in VS Code's activation figure %q", figure)
	}
	n, _ := strconv.Atoi(m[1])
	return n
}

// yardstickVSIX writes a .vsix of an extension made of files (extension.js is its main module),
// activated on onStartupFinished like plandash's. A .vsix is a zip whose extension/ folder VS
// Code installs.
func yardstickVSIX(t *testing.T, publisher, name, displayName string, files map[string]string) string {
	t.Helper()
	path := filepath.Join(t.TempDir(), publisher+"-"+name+".vsix")
	f, err := os.Create(path)
	if err != nil {
		t.Fatal(err)
	}
	z := zip.NewWriter(f)
	all := map[string]string{
		"package.json": `{"name": ` + js(name) + `, "displayName": ` + js(displayName) + `, "publisher": ` + js(publisher) + `,
  "version": "0.0.1", "engines": {"vscode": "^1.90.0"}, "activationEvents": ["onStartupFinished"],
  "main": "./extension.js"}`,
	}
	for n, content := range files {
		all[n] = content
	}
	for n, content := range all {
		w, err := z.Create("extension/" + n)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := w.Write([]byte(content)); err != nil {
			t.Fatal(err)
		}
	}
	if err := z.Close(); err != nil {
		t.Fatal(err)
	}
	if err := f.Close(); err != nil {
		t.Fatal(err)
	}
	return path
}
