package opencode

import (
	"bytes"
	_ "embed" // the plugin ships inside the binary
	"encoding/json"
	"path/filepath"
	"strings"

	"github.com/plandash/plandash/internal/agents/agentkit"
)

// pluginSource is a string, so the embedded plugin cannot be changed at run time.
//
//go:embed plugin/plandash.js
var pluginSource string

// PluginMarker starts every plugin file plandash writes for OpenCode; a fork's starts with its
// own (pluginMarker). Uninstall removes only files that carry one.
const PluginMarker = "// plandash-opencode-plugin"

// pluginMarker is the marker of the plugin written for the flavor whose hook word is hook.
func pluginMarker(hook string) string {
	if hook == "" {
		return PluginMarker
	}
	return "// plandash-" + hook + "-plugin"
}

// isOurPlugin reports whether b is a plugin file plandash wrote, for OpenCode or a fork.
func isOurPlugin(b []byte) bool {
	first, _, _ := bytes.Cut(b, []byte("\n"))
	rest, ok := bytes.CutPrefix(first, []byte("// plandash-"))
	word, _, _ := bytes.Cut(rest, []byte("-plugin"))
	return ok && bytes.Contains(rest, []byte("-plugin")) && len(word) > 0 && bytes.IndexFunc(word, func(r rune) bool {
		return !(r >= 'a' && r <= 'z' || r >= '0' && r <= '9')
	}) < 0
}

// PluginFile is the plugin's file name in a plugins directory.
const PluginFile = "plandash.js"

// configLine is the plugin's line that Install fills in.
const configLine = "const CONFIG = {}; // plandash:config"

// PluginOptions is what Install bakes into the plugin.
type PluginOptions struct {
	// Server is the dashboard the plugin posts to; when empty the plugin uses $PLANDASH_SERVER
	// when OpenCode runs, else the local default.
	Server string `json:"server,omitempty"`
	// TokenFile is read for the bearer token when $PLANDASH_TOKEN is not set.
	TokenFile string `json:"tokenFile,omitempty"`
	// Hook is the word of the route the plugin posts to, /api/v1/hooks/HOOK: "opencode" when
	// empty; a fork's own (Flavor.Hook) otherwise.
	Hook string `json:"hook,omitempty"`
	// PlanQuestion is a fork's plan hand-off question when it names no plan file (Kilo's
	// "Ready to implement?"): the plugin then sends the file the session's last plan_exit call
	// reported.
	PlanQuestion string `json:"planQuestion,omitempty"`
	// Root confines the plugin file to a directory, for a project install: neither ".." nor a
	// symlink may lead out of it. Empty for the user's own plugins directory. Not baked in.
	Root string `json:"-"`
}

// Plugin is the plugin's source with opts baked in.
func Plugin(opts PluginOptions) []byte {
	cfg, _ := json.Marshal(opts) // strings only: this cannot fail
	line := "const CONFIG = " + string(cfg) + "; // plandash:config"
	src := strings.Replace(pluginSource, configLine, line, 1)
	if opts.Hook != "" && opts.Hook != "opencode" {
		// A fork's plugin says whose it is in its first lines, which install and uninstall read.
		head, body, _ := strings.Cut(src, "\nimport ")
		head = strings.Replace(head, PluginMarker, pluginMarker(opts.Hook), 1)
		head = strings.ReplaceAll(head, "`plandash install opencode", "`plandash install "+opts.Hook)
		src = head + "\nimport " + body
	}
	return []byte(src)
}

// PluginDir is where OpenCode loads plugin files from: the project's .opencode/plugins when
// project is set, else the user's ($XDG_CONFIG_HOME/opencode/plugins, by default
// ~/.config/opencode/plugins). OpenCode 1.18 globs "{plugin,plugins}/*.{ts,js}" in each of
// its config directories.
func PluginDir(project string, getenv func(string) string) string {
	if project != "" {
		return filepath.Join(project, ".opencode", "plugins")
	}
	if x := getenv("XDG_CONFIG_HOME"); x != "" {
		return filepath.Join(x, "opencode", "plugins")
	}
	return filepath.Join(getenv("HOME"), ".config", "opencode", "plugins")
}

// InstallReport says what InstallPlugin or UninstallPlugin did.
type InstallReport agentkit.FileReport

// String says it in a sentence, for the command's output.
func (r InstallReport) String() string {
	return agentkit.FileReport(r).Say("OpenCode plugin", "plugin", "restart OpenCode to load it")
}

// InstallPlugin writes the plugin into dir (created when missing). Running it again with the
// same options changes nothing; a file of that name that plandash did not write is refused, as
// is one that is not a small, writable regular file (see settingsfile). The write is atomic, and
// its temp file's name does not end in .js (OpenCode would load it).
func InstallPlugin(dir string, opts PluginOptions) (InstallReport, error) {
	rep, err := ownFile(dir, opts.Root).Install(Plugin(opts))
	return InstallReport(rep), err
}

// UninstallPlugin removes plandash's plugin file from dir, and nothing else; confined to root
// when it is set (see PluginOptions.Root).
func UninstallPlugin(dir, root string) (InstallReport, error) {
	rep, err := ownFile(dir, root).Uninstall()
	return InstallReport(rep), err
}

// ownFile is plandash's plugin file in dir, confined to root when it is set.
func ownFile(dir, root string) agentkit.OwnFile {
	return agentkit.OwnFile{Path: filepath.Join(dir, PluginFile), Root: root, Ours: isOurPlugin, Noun: "plugin"}
}
