package amp

import (
	_ "embed" // the plugin ships inside the binary
	"encoding/json"
	"path/filepath"
	"strings"

	"github.com/plandash/plandash/internal/agents/agentkit"
)

// pluginSource is a string, so the embedded plugin cannot be changed at run time.
//
//go:embed plugin/plandash.ts
var pluginSource string

// PluginMarker starts every plugin file plandash writes; Uninstall removes only files that
// carry it.
const PluginMarker = "// plandash-amp-plugin"

// PluginFile is the plugin's file name in a plugins directory.
const PluginFile = "plandash.ts"

// configLine is the plugin's line that Install fills in.
const configLine = "const CONFIG: { server?: string; tokenFile?: string; gate?: boolean } = {} // plandash:config"

// PluginOptions is what Install bakes into the plugin.
type PluginOptions struct {
	// Server is the dashboard the plugin posts to; when empty the plugin uses $PLANDASH_SERVER
	// when Amp runs, else the local default.
	Server string `json:"server,omitempty"`
	// TokenFile is read for the bearer token when $PLANDASH_TOKEN is not set.
	TokenFile string `json:"tokenFile,omitempty"`
	// Gate makes the plugin ask plandash to hold the end of a turn that wrote a todo list
	// until the plan is decided; without it the turn's end is only recorded.
	Gate bool `json:"gate,omitempty"`
	// Root confines the plugin file to a directory, for a project install: neither ".." nor a
	// symlink may lead out of it. Empty for the user's own plugins directory. Not baked in.
	Root string `json:"-"`
}

// Plugin is the plugin's source with opts baked in.
func Plugin(opts PluginOptions) []byte {
	cfg, _ := json.Marshal(opts) // two strings: this cannot fail
	line := "const CONFIG: { server?: string; tokenFile?: string; gate?: boolean } = " + string(cfg) + " // plandash:config"
	return []byte(strings.Replace(pluginSource, configLine, line, 1))
}

// PluginDir is where Amp loads plugin files from: the project's .amp/plugins when project is
// set, else the user's ($XDG_CONFIG_HOME/amp/plugins, by default ~/.config/amp/plugins; the
// settings file sits beside it, as `amp --help` shows).
func PluginDir(project string, getenv func(string) string) string {
	if project != "" {
		return filepath.Join(project, ".amp", "plugins")
	}
	if x := getenv("XDG_CONFIG_HOME"); x != "" {
		return filepath.Join(x, "amp", "plugins")
	}
	return filepath.Join(getenv("HOME"), ".config", "amp", "plugins")
}

// Report says what Install or Uninstall did.
type Report agentkit.FileReport

// String says it in a sentence, for the command's output.
func (r Report) String() string {
	return agentkit.FileReport(r).Say("Amp plugin", "plugin", "run \"plugins: reload\" in Amp, or restart it")
}

// Install writes the plugin into dir (created when missing). Running it again with the same
// options changes nothing; a file of that name that plandash did not write is refused, as is
// one that is not a small, writable regular file (see settingsfile). The write is atomic.
func Install(dir string, opts PluginOptions) (Report, error) {
	rep, err := ownFile(dir, opts.Root).Install(Plugin(opts))
	return Report(rep), err
}

// Uninstall removes plandash's plugin file from dir, and nothing else; confined to root when it
// is set (see PluginOptions.Root).
func Uninstall(dir, root string) (Report, error) {
	rep, err := ownFile(dir, root).Uninstall()
	return Report(rep), err
}

// ownFile is plandash's plugin file in dir, confined to root when it is set.
func ownFile(dir, root string) agentkit.OwnFile {
	return agentkit.OwnFile{Path: filepath.Join(dir, PluginFile), Root: root, Ours: agentkit.Marked(PluginMarker), Noun: "plugin"}
}
