package web

import (
	"context"
	"crypto/hmac"
	"crypto/sha256"
	"encoding/hex"
	"net/http"
	"strconv"
	"strings"
	"time"

	"github.com/plandash/plandash/internal/errs"
)

// The browser's cookie stands for the credential that made it: the server's own token, or the
// admin-scoped per-agent token an embedding panel traded for it. It is
//
//	2.<issued, Unix seconds>.<hex MAC>.<token name, empty for the server's own token>
//
// and the MAC, keyed by the server's token, covers the issue time, the name and the per-agent
// token's stored hash. So a cookie is refused once it is older than cookieMaxAge, and a
// cookie made from a per-agent token is checked against the live token store on every request:
// it dies with its token (revoked, expired, or its name given to a new token) on every
// instance. The hash is only inside the MAC: the browser never holds anything the API takes.
const cookieVersion = "2"

// cookieMaxAge is the longest a cookie is honoured, whatever the browser keeps.
const cookieMaxAge = 30 * 24 * time.Hour

// cookieSkew tolerates an issue time a little ahead of this instance's clock (another instance
// minted it).
const cookieSkew = time.Minute

// maxCookieLen bounds what is parsed: a real cookie is under 150 bytes.
const maxCookieLen = 512

// cookieMAC is the MAC of a cookie issued at issued for the token named name (stored hash
// hash), both empty for the server's own token.
func (a *Auth) cookieMAC(issued, name, hash string) []byte {
	m := hmac.New(sha256.New, a.token)
	m.Write([]byte("plandash browser cookie v2\x00" + issued + "\x00" + name + "\x00" + hash))
	return m.Sum(nil)
}

// cookieFor is a fresh cookie value for who.
func (a *Auth) cookieFor(who principal) string {
	issued := strconv.FormatInt(a.now().Unix(), 10)
	name, hash := "", ""
	if who.agent != nil {
		name, hash = who.agent.Name, who.agent.Hash
	}
	return cookieVersion + "." + issued + "." + hex.EncodeToString(a.cookieMAC(issued, name, hash)) + "." + name
}

// errStaleCookie is a cookie of another server, an older format or past its age.
var errStaleCookie = errs.New(errs.Unauthorized, "the browser's cookie is not valid (expired, or from another server or token); open the address `plandash url` prints")

// cookieVerdict is who a cookie value stands for, or why it stands for no one.
func (a *Auth) cookieVerdict(ctx context.Context, v string) (principal, error) {
	if len(v) > maxCookieLen {
		return principal{}, errStaleCookie
	}
	parts := strings.SplitN(v, ".", 4)
	if len(parts) != 4 || parts[0] != cookieVersion {
		return principal{}, errStaleCookie
	}
	issuedS, macHex, name := parts[1], parts[2], parts[3]
	issued, err := strconv.ParseInt(issuedS, 10, 64)
	if err != nil || issued <= 0 {
		return principal{}, errStaleCookie
	}
	now := a.now()
	at := time.Unix(issued, 0)
	if now.Sub(at) > cookieMaxAge || at.Sub(now) > cookieSkew {
		return principal{}, errStaleCookie
	}
	mac, err := hex.DecodeString(macHex)
	if err != nil || len(mac) != sha256.Size {
		return principal{}, errStaleCookie
	}
	if name == "" {
		if !hmac.Equal(mac, a.cookieMAC(issuedS, "", "")) {
			return principal{}, errStaleCookie
		}
		return principal{viaCookie: true}, nil
	}
	if a.tokens == nil {
		return principal{}, errStaleCookie
	}
	tok, err := a.tokens.Named(ctx, name)
	if err != nil {
		return principal{}, err // Unauthorized (revoked, expired, gone) or the store's failure
	}
	if !hmac.Equal(mac, a.cookieMAC(issuedS, tok.Name, tok.Hash)) {
		// Made by a token of this name that is no more (revoked, its name given to a new
		// token), or forged.
		return principal{}, errStaleCookie
	}
	return principal{agent: &tok, viaCookie: true}, nil
}

// SetCookie gives the browser its proof of the server's token, for pages opened in their own
// tab.
func (a *Auth) SetCookie(w http.ResponseWriter, r *http.Request) {
	http.SetCookie(w, &http.Cookie{
		Name: cookieName, Value: a.cookieFor(principal{}), Path: "/", HttpOnly: true,
		SameSite: http.SameSiteStrictMode, Secure: r.TLS != nil, MaxAge: int(cookieMaxAge / time.Second),
	})
}

// embedCookieAge is short: an embedding host hands a fresh token in the URL fragment whenever it
// opens the panel, so a leaked third-party cookie is worth little.
const embedCookieAge = 12 * 3600

// SetEmbedCookie gives an iframe its proof of who's credential. A third-party iframe only keeps
// SameSite=None cookies, which must be Secure; browsers accept Secure cookies from loopback
// over plain HTTP.
func (a *Auth) SetEmbedCookie(w http.ResponseWriter, who principal) {
	http.SetCookie(w, &http.Cookie{
		Name: cookieName, Value: a.cookieFor(who), Path: "/", HttpOnly: true,
		SameSite: http.SameSiteNoneMode, Secure: true, MaxAge: embedCookieAge,
	})
}
