package web

import (
	"log/slog"
	"net/http/httptest"
	"strings"
	"testing"
)

// FuzzAuthCredentials: whatever a client puts in the Authorization header, the cookie and the
// socket's subprotocols, it is let in only when one of them carries the server's token (the
// cookie one the server made), and never as anyone but the server's own principal when no
// per-agent tokens are configured.
func FuzzAuthCredentials(f *testing.F) {
	const token = "s3cret-token"
	a := NewAuth(token, slog.New(slog.DiscardHandler), nil)
	minted := a.cookieFor(principal{})
	f.Add("", minted, "")
	f.Add("", minted+"x", "")
	f.Add("", "2.1.00.name", "")
	for _, seed := range [][3]string{
		{"Bearer " + token, "", ""}, {"Bearer  " + token + " ", "", ""}, {"bearer " + token, "", ""},
		{"Basic " + token, "", ""}, {"", "x", ""}, {"", "", "plandash.v1, plandash.token." + token},
		{"", "", "plandash.token.pdt_abc"}, {"Bearer pdt_" + strings.Repeat("A", 43), "", ""}, {"Bearer", "", ""},
	} {
		f.Add(seed[0], seed[1], seed[2])
	}
	f.Fuzz(func(t *testing.T, authz, cookie, protocols string) {
		r := httptest.NewRequest("GET", "/api/v1/plans", nil)
		if authz != "" {
			r.Header.Set("Authorization", authz)
		}
		if cookie != "" {
			r.Header.Set("Cookie", cookieName+"="+cookie)
		}
		if protocols != "" {
			r.Header.Set("Sec-WebSocket-Protocol", protocols)
		}
		who, err := a.verdict(r)
		if err != nil {
			return
		}
		if !who.admin() {
			t.Fatalf("a per-agent principal without per-agent tokens: %+v", who)
		}
		bearer := strings.HasPrefix(authz, "Bearer ") && strings.TrimSpace(authz[len("Bearer "):]) == token
		socket := authz == "" && strings.Contains(r.Header.Get("Sec-WebSocket-Protocol"), socketTokenProtocol+token)
		c, err := r.Cookie(cookieName)
		cookieOK := authz == "" && err == nil && c.Value == minted
		if !bearer && !socket && !cookieOK {
			t.Fatalf("let in with Authorization %q, cookie %q, protocols %q", authz, cookie, protocols)
		}
	})
}
