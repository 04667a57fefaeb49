package main

import (
	"context"
	"strings"
	"testing"
)

func TestDidYouMean(t *testing.T) {
	for got, want := range map[string]string{
		"serv": `did you mean "serve"?`, "instal": `did you mean "install"?`, "isntall": `did you mean "install"?`,
		"tokns": `did you mean "tokens"?`, "dem": `did you mean "demo"?`, "xyzzy": "", "serve": "", "": "",
	} {
		if h := didYouMean(got, commands...); h != want {
			t.Errorf("didYouMean(%q) = %q, want %q", got, h, want)
		}
	}
	if h := didYouMean("claud", "claude", "codex", "gemini", "opencode"); h != `did you mean "claude"?` {
		t.Errorf("agent: %q", h)
	}
	if h := didYouMean("open", "claude", "codex", "gemini", "opencode"); h != `did you mean "opencode"?` {
		t.Errorf("agent prefix: %q", h)
	}
}

// A typo in a command or an agent's name is answered with the name meant, on stderr, exit 2.
func TestTyposGetASuggestion(t *testing.T) {
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"instal", "claude"}, `unknown command "instal": did you mean "install"?`},
		{[]string{"install", "cluade"}, `unknown agent "cluade": did you mean "claude"?`},
		{[]string{"hook", "gemni"}, `unknown agent "gemni": did you mean "gemini"?`},
	} {
		var out, errOut strings.Builder
		err := run(context.Background(), c.args, func(string) string { return "" }, strings.NewReader(""), &out, &errOut)
		if err != errUsage || !strings.Contains(errOut.String(), c.want) {
			t.Errorf("%v: %v, stderr %q", c.args, err, errOut.String())
		}
	}
}

// The names suggestions are drawn from are the commands the usage lists: a command added to one
// and not the other would never be suggested, or be suggested and unknown.
func TestSuggestedCommandsAreTheUsage(t *testing.T) {
	listed := map[string]bool{"help": true}
	for _, line := range strings.Split(usage(), "\n") {
		if f := strings.Fields(line); len(f) >= 2 && f[0] == "plandash" && !strings.HasPrefix(f[1], "-") {
			listed[f[1]] = true
		}
	}
	known := map[string]bool{}
	for _, c := range commands {
		known[c] = true
		if !listed[c] {
			t.Errorf("%q is suggested but not in the usage", c)
		}
	}
	for c := range listed {
		if !known[c] {
			t.Errorf("the usage lists %q, which is never suggested", c)
		}
	}
}
