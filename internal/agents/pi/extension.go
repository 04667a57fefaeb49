package pi

import (
	_ "embed" // the extension ships inside the binary
	"encoding/json"
	"path/filepath"
	"strings"

	"github.com/plandash/plandash/internal/agents/agentkit"
)

// extensionSource is a string, so the embedded extension cannot be changed at run time.
//
//go:embed extension/plandash.ts
var extensionSource string

// ExtensionMarker starts every extension file plandash writes; Uninstall removes only files
// that carry it.
const ExtensionMarker = "// plandash-pi-extension"

// ExtensionFile is the extension's file name in an extensions directory.
const ExtensionFile = "plandash.ts"

// configLine is the extension's line that Install fills in.
const configLine = "const CONFIG: { server?: string; tokenFile?: string } = {}; // plandash:config"

// Options is what Install bakes into the extension.
type Options struct {
	// Server is the dashboard the extension posts to; when empty it uses $PLANDASH_SERVER when
	// Pi runs, else the local default.
	Server string `json:"server,omitempty"`
	// TokenFile is read for the bearer token when $PLANDASH_TOKEN is not set.
	TokenFile string `json:"tokenFile,omitempty"`
	// Root confines the file to a directory, for a project install: neither ".." nor a symlink
	// may lead out of it. Empty for the user's own extensions directory. Not baked in.
	Root string `json:"-"`
}

// Extension is the extension's source with opts baked in.
func Extension(opts Options) []byte {
	cfg, _ := json.Marshal(opts) // two strings: this cannot fail
	line := "const CONFIG: { server?: string; tokenFile?: string } = " + string(cfg) + "; // plandash:config"
	return []byte(strings.Replace(extensionSource, configLine, line, 1))
}

// ExtensionDir is where Pi loads extension files from: the project's .pi/extensions when
// project is set, else the user's ($PI_CODING_AGENT_DIR/extensions, by default
// ~/.pi/agent/extensions). Pi 0.73 discovers *.ts and */index.ts in both.
func ExtensionDir(project string, getenv func(string) string) string {
	if project != "" {
		return filepath.Join(project, ".pi", "extensions")
	}
	if d := getenv("PI_CODING_AGENT_DIR"); d != "" {
		return filepath.Join(d, "extensions")
	}
	return filepath.Join(getenv("HOME"), ".pi", "agent", "extensions")
}

// Report says what Install or Uninstall did.
type Report agentkit.FileReport

// String says it in a sentence, for the command's output.
func (r Report) String() string {
	return agentkit.FileReport(r).Say("Pi extension", "extension", "restart Pi (or /reload) to load it")
}

// Install writes the extension into dir (created when missing). Running it again with the same
// options changes nothing; a file of that name that plandash did not write is refused, as is
// one that is not a small, writable regular file (see settingsfile). The write is atomic, and
// its temp file's name does not end in .ts (Pi would load it).
func Install(dir string, opts Options) (Report, error) {
	rep, err := ownFile(dir, opts.Root).Install(Extension(opts))
	return Report(rep), err
}

// Uninstall removes plandash's extension file from dir, and nothing else; confined to root
// when it is set (see Options.Root).
func Uninstall(dir, root string) (Report, error) {
	rep, err := ownFile(dir, root).Uninstall()
	return Report(rep), err
}

// ownFile is plandash's extension file in dir, confined to root when it is set.
func ownFile(dir, root string) agentkit.OwnFile {
	return agentkit.OwnFile{Path: filepath.Join(dir, ExtensionFile), Root: root, Ours: agentkit.Marked(ExtensionMarker), Noun: "extension"}
}
