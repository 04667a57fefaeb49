package settingsfile

import (
	"path/filepath"
	"strings"
)

// ShellQuote quotes s for a POSIX shell when it needs it: the agents run a hook's command
// through sh, and the plandash binary's path or the data directory may hold spaces or quotes.
func ShellQuote(s string) string {
	if s != "" && strings.IndexFunc(s, func(r rune) bool {
		return !(r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || strings.ContainsRune("-_./:=@%+,", r))
	}) < 0 {
		return s
	}
	return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
}

// Flag is one option of a hook's command line, such as --server and its value.
type Flag struct{ Name, Value string }

// HookCommand is the command line an agent's hook runs: `BIN hook AGENT` and each flag with a
// value, every word quoted for the shell. bin is "plandash" (found on PATH) when empty.
func HookCommand(bin, agent string, flags ...Flag) string {
	if bin == "" {
		bin = "plandash"
	}
	args := []string{ShellQuote(bin), "hook", agent}
	for _, f := range flags {
		if f.Value != "" {
			args = append(args, f.Name, ShellQuote(f.Value))
		}
	}
	return strings.Join(args, " ")
}

// IsOurCommand reports whether a hook's command line runs `plandash hook AGENT`, under any path
// or name the executable was installed as (its base name holds "plandash"). Only the first word
// counts, so `echo plandash hook claude` is the user's.
func IsOurCommand(cmd, agent string) bool {
	bin, rest := firstWord(strings.TrimSpace(cmd))
	f := strings.Fields(rest)
	if len(f) < 2 || f[0] != "hook" || f[1] != agent {
		return false
	}
	return strings.Contains(filepath.Base(bin), "plandash")
}

// firstWord splits off a command's first shell word, which may be quoted (a path with spaces,
// as ShellQuote writes it).
func firstWord(cmd string) (word, rest string) {
	if cmd == "" || (cmd[0] != '\'' && cmd[0] != '"') {
		w, r, _ := strings.Cut(cmd, " ")
		return w, r
	}
	var b strings.Builder
	for cmd != "" && (cmd[0] == '\'' || cmd[0] == '"') {
		q := cmd[0]
		end := strings.IndexByte(cmd[1:], q)
		if end < 0 {
			return cmd, ""
		}
		b.WriteString(cmd[1 : end+1])
		cmd = cmd[end+2:]
		if strings.HasPrefix(cmd, `\'`) { // the '\'' of ShellQuote
			b.WriteByte('\'')
			cmd = cmd[2:]
		}
	}
	if cmd != "" && cmd[0] != ' ' {
		return b.String() + cmd, ""
	}
	return b.String(), cmd
}
