package web

import (
	"context"
	"encoding/json"
	"net/http"
	"net/url"
	"testing"
	"time"

	"github.com/plandash/plandash/internal/acp"
	"github.com/plandash/plandash/internal/acpproxy"
	"github.com/plandash/plandash/internal/client"
	"github.com/plandash/plandash/internal/testkit"
)

// A relayed plan gate rejected in the inbox with a reason: the reason reaches the proxy with
// the rejecting option (which sends it to the agent in the outcome's _meta); an allow carries none.
func TestAcpRejectFeedbackReachesProxy(t *testing.T) {
	for _, tc := range []struct {
		option, feedback, want string
	}{
		{"reject", "Split the router first\r\nthen ask again", "Split the router first\nthen ask again"},
		{"allow", "ignored with an allow", ""},
	} {
		t.Run(tc.option, func(t *testing.T) {
			ts := newTestServer(t, testConfig{})
			b := &acpproxy.RemoteBroker{API: client.New(ts.URL, testToken), Stream: "st"}
			ctx, cancel := context.WithCancel(context.Background())
			defer cancel()
			go b.Run(ctx)
			params := json.RawMessage(`{"sessionId":"s1","toolCall":{"toolCallId":"c1","title":"Ready to code?","rawInput":{"plan":"# Plan"}},` +
				`"options":[{"optionId":"allow","name":"Yes","kind":"allow_once"},{"optionId":"reject","name":"No, keep planning","kind":"reject_once"}]}`)
			answered := make(chan acp.PermissionOutcome, 1)
			b.Offer(acpproxy.PermissionRequest{ID: json.RawMessage(`7`), SessionID: "s1", Params: params},
				func(o acp.PermissionOutcome) error { answered <- o; return nil })

			_, doc := ts.page(t, "/approvals")
			if n := len(all(doc, `[data-testid=acp-permission] textarea[data-testid=acp-feedback][name=feedback]`)); n != 1 {
				t.Fatalf("%d feedback fields", n)
			}
			resp, err := ts.client.PostForm(ts.URL+"/approvals/acp/answer", url.Values{"stream": {"st"}, "id": {"7"}, "option": {tc.option}, "feedback": {tc.feedback}})
			if err != nil {
				t.Fatal(err)
			}
			resp.Body.Close()
			if resp.StatusCode != http.StatusOK {
				t.Fatalf("answer: %d", resp.StatusCode)
			}
			o := testkit.Recv(t, answered, 10*time.Second, "the proxy's answer")
			if o.OptionID != tc.option || o.Feedback != tc.want {
				t.Fatalf("the proxy got %+v, want option %s with feedback %q", o, tc.option, tc.want)
			}
		})
	}
}
