package web

import (
	"context"
	"encoding/json"
	"io"
	"net/http"
	"slices"
	"strings"
	"testing"
	"time"
)

// TestRuleMatchesClaudeCodeByAnyName: Claude Code's plan hook submits its requests as "Claude
// Code"; a rule written as the form suggests ("claude-code"), with the display name, in another
// case, or with the ACP adapter's name auto-approves them, and a rule for another agent does not.
func TestRuleMatchesClaudeCodeByAnyName(t *testing.T) {
	for _, tc := range []struct {
		rule string
		auto bool
	}{
		{"claude-code", true},
		{"Claude Code", true},
		{"CLAUDE-CODE", true},
		{"claude-agent-acp", true},
		{"codex", false},
	} {
		t.Run(tc.rule, func(t *testing.T) {
			ts := newTestServer(t, testConfig{User: "ann"})
			body, _ := json.Marshal(map[string]string{"agent": tc.rule})
			if code, raw := ts.api(t, "POST", "/api/v1/approvals/rules", string(body)); code != 201 {
				t.Fatalf("add rule: %d %s", code, raw)
			}
			ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
			t.Cleanup(cancel) // before the server closes: a hook left waiting ends
			got := make(chan string, 1)
			go func() {
				req, _ := http.NewRequestWithContext(ctx, "POST", ts.URL+"/api/v1/hooks/claude", strings.NewReader(fixture(t, "permission_exitplanmode.json")))
				req.Header.Set("Authorization", "Bearer "+testToken)
				resp, err := http.DefaultClient.Do(req)
				if err != nil {
					got <- "error: " + err.Error()
					return
				}
				defer resp.Body.Close()
				b, _ := io.ReadAll(resp.Body)
				got <- string(b)
			}()
			if tc.auto {
				if a := <-got; !strings.Contains(a, `"behavior":"allow"`) {
					t.Fatalf("a rule for %q: the hook got %s, want an allow", tc.rule, a)
				}
				return
			}
			for deadline := time.Now().Add(10 * time.Second); ; time.Sleep(20 * time.Millisecond) {
				if time.Now().After(deadline) {
					t.Fatalf("a rule for %q: the plan never waited in the inbox", tc.rule)
				}
				_, raw := ts.api(t, "GET", "/api/v1/approvals?status=pending", nil)
				var list struct{ Requests []struct{ Agent string } }
				if err := json.Unmarshal(raw, &list); err != nil {
					t.Fatalf("pending list %s: %v", raw, err)
				}
				if len(list.Requests) == 1 {
					break
				}
			}
			select {
			case a := <-got:
				t.Fatalf("a rule for %q decided Claude Code's plan: %s", tc.rule, a)
			default:
			}
		})
	}
}

// TestRuleFormOffersWhatWasSeen: the rule form offers the agents plandash has seen, once each by
// their canonical id whatever spelling they came with, and the sessions with their machine and
// directory.
func TestRuleFormOffersWhatWasSeen(t *testing.T) {
	ts := newTestServer(t, testConfig{User: "ann"})
	code, res := ts.ingest(t, strings.Join([]string{
		`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":1}}`,
		`{"jsonrpc":"2.0","id":1,"result":{"protocolVersion":1,"agentInfo":{"name":"claude-agent-acp","title":"Claude Code"}}}`,
		`{"jsonrpc":"2.0","id":2,"method":"session/new","params":{"cwd":"/home/dev/shop","mcpServers":[]}}`,
		`{"jsonrpc":"2.0","id":2,"result":{"sessionId":"s1"}}`,
		update("s1", planA),
	}, "\n"))
	if code != 200 {
		t.Fatalf("ingest: %d %+v", code, res)
	}
	ts.create(t, `{"title":"lint","agent":"Claude Code","sessionId":"s1","plan":{"entries":[{"content":"Run gofmt"}]}}`)
	ts.create(t, `{"title":"review","agent":"My Linter","plan":{"entries":[{"content":"Read the diff"}]}}`)

	_, doc := ts.page(t, "/approvals")
	form := all(doc, `[data-testid=rule-form]`)
	if len(form) != 1 {
		t.Fatalf("%d rule forms", len(form))
	}
	for _, tc := range []struct {
		input, option string
		want          []string
	}{
		{"agent", "rule-agent-option", []string{"claude-code", "my-linter"}},
		{"session", "rule-session-option", []string{"s1"}},
	} {
		in := all(form[0], `input[name=`+tc.input+`]`)
		if len(in) != 1 || attr(in[0], "list") == "" {
			t.Fatalf("the %s field offers no list", tc.input)
		}
		opts := all(doc, `datalist#`+attr(in[0], "list")+` [data-testid=`+tc.option+`]`)
		var got []string
		for _, o := range opts {
			got = append(got, attr(o, "value"))
		}
		if !slices.Equal(got, tc.want) {
			t.Errorf("the %s field offers %v, want %v", tc.input, got, tc.want)
		}
	}
	var labels []string
	for _, o := range all(doc, `[data-testid=rule-agent-option]`) {
		labels = append(labels, attr(o, "label"))
	}
	if !slices.Equal(labels, []string{"Claude Code", "My Linter"}) {
		t.Errorf("the agents read %v", labels)
	}
	s := all(doc, `[data-testid=rule-session-option]`)
	if len(s) != 1 || !strings.Contains(attr(s[0], "label"), "Claude Code") || !strings.Contains(attr(s[0], "label"), "/home/dev/shop") {
		t.Errorf("the session reads %v", s)
	}
}
