package opencode

import (
	"bytes"
	_ "embed" // the plugin ships inside the binary
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
)

// pluginSource is a string, so the embedded plugin cannot be changed at run time.
//
//go:embed plugin/plandash.js
var pluginSource string

// PluginMarker starts every plugin file plandash writes; Uninstall removes only files that
// carry it.
const PluginMarker = "// plandash-opencode-plugin"

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
}

// Plugin is the plugin's source with opts baked in.
func Plugin(opts PluginOptions) []byte {
	cfg, _ := json.Marshal(opts) // two strings: this cannot fail
	line := "const CONFIG = " + string(cfg) + "; // plandash:config"
	return []byte(strings.Replace(pluginSource, configLine, line, 1))
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

// InstallReport says what Install or Uninstall did.
type InstallReport struct {
	Path    string
	Action  string // "created", "updated", "unchanged", "removed", "absent"
	Changed bool
}

// String says it in a sentence, for the command's output.
func (r InstallReport) String() string {
	switch r.Action {
	case "created":
		return r.Path + ": created plandash's OpenCode plugin; restart OpenCode to load it"
	case "updated":
		return r.Path + ": updated plandash's OpenCode plugin; restart OpenCode to load it"
	case "removed":
		return r.Path + ": removed plandash's OpenCode plugin"
	case "absent":
		return r.Path + ": no plandash plugin there, nothing changed"
	}
	return r.Path + ": already up to date, nothing changed"
}

// InstallPlugin writes the plugin into dir (created when missing). Running it again with the
// same options changes nothing; a file of that name that plandash did not write is refused.
func InstallPlugin(dir string, opts PluginOptions) (InstallReport, error) {
	path := filepath.Join(dir, PluginFile)
	want := Plugin(opts)
	rep := InstallReport{Path: path, Action: "created"}
	old, err := os.ReadFile(path)
	switch {
	case err == nil && bytes.Equal(old, want):
		rep.Action = "unchanged"
		return rep, nil
	case err == nil && !bytes.HasPrefix(old, []byte(PluginMarker)):
		return rep, fmt.Errorf("%s exists and is not plandash's plugin; move it away first", path)
	case err == nil:
		rep.Action = "updated"
	case !errors.Is(err, fs.ErrNotExist):
		return rep, err
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return rep, err
	}
	if err := writeAtomic(path, want); err != nil {
		return rep, err
	}
	rep.Changed = true
	return rep, nil
}

// UninstallPlugin removes plandash's plugin file from dir, and nothing else.
func UninstallPlugin(dir string) (InstallReport, error) {
	path := filepath.Join(dir, PluginFile)
	rep := InstallReport{Path: path, Action: "absent"}
	old, err := os.ReadFile(path)
	if errors.Is(err, fs.ErrNotExist) {
		return rep, nil
	}
	if err != nil {
		return rep, err
	}
	if !bytes.HasPrefix(old, []byte(PluginMarker)) {
		return rep, fmt.Errorf("%s is not plandash's plugin; left untouched", path)
	}
	if err := os.Remove(path); err != nil {
		return rep, err
	}
	rep.Action, rep.Changed = "removed", true
	return rep, nil
}

// writeAtomic replaces path with b through a temp file in the same directory, so OpenCode
// never loads half a plugin. The temp file's name does not end in .js: OpenCode would load it.
func writeAtomic(path string, b []byte) error {
	f, err := os.CreateTemp(filepath.Dir(path), ".plandash-*.tmp")
	if err != nil {
		return err
	}
	defer os.Remove(f.Name()) // after a successful rename there is nothing left to remove
	_, err = f.Write(b)
	if err == nil {
		err = f.Chmod(0o644)
	}
	if err == nil {
		err = f.Sync()
	}
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		return err
	}
	return os.Rename(f.Name(), path)
}
