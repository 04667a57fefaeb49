package notify

import (
	"bytes"
	"context"
	"crypto/aes"
	"crypto/cipher"
	"crypto/ecdh"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/hkdf"
	"crypto/rand"
	"crypto/sha256"
	"encoding/base64"
	"encoding/binary"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"time"
)

// VAPID is the server's key for RFC 8292: push services check that every push for a
// subscription is signed by the key the browser subscribed with. It is kept with the data
// (Store.Secret), so every instance and every restart signs with the same key.
type VAPID struct {
	priv *ecdsa.PrivateKey
	pub  []byte // uncompressed P-256 point, 65 bytes
}

// vapidSecret is the name the key's private scalar is stored under.
const vapidSecret = "vapid-p256"

// newVAPIDScalar makes a new private key, as its 32-byte scalar.
func newVAPIDScalar() ([]byte, error) {
	k, err := ecdh.P256().GenerateKey(rand.Reader)
	if err != nil {
		return nil, err
	}
	return k.Bytes(), nil
}

// ParseVAPID reads a key from its 32-byte private scalar.
func ParseVAPID(scalar []byte) (*VAPID, error) {
	priv, err := ecdsa.ParseRawPrivateKey(elliptic.P256(), scalar)
	if err != nil {
		return nil, fmt.Errorf("vapid key: %w", err)
	}
	pub, err := priv.PublicKey.Bytes()
	if err != nil {
		return nil, err
	}
	return &VAPID{priv: priv, pub: pub}, nil
}

// PublicKey is the application server key a browser subscribes with (base64url, no padding).
func (v *VAPID) PublicKey() string { return base64.RawURLEncoding.EncodeToString(v.pub) }

// Authorization is the RFC 8292 header for a push to endpoint: a JWT (ES256) whose audience
// is the endpoint's origin, valid for 12 hours (the RFC allows at most 24).
func (v *VAPID) Authorization(endpoint, subject string, now time.Time) (string, error) {
	u, err := url.Parse(endpoint)
	if err != nil || u.Host == "" {
		return "", fmt.Errorf("push endpoint %q: not an absolute URL", endpoint)
	}
	header := `{"typ":"JWT","alg":"ES256"}`
	claims, err := json.Marshal(map[string]any{"aud": u.Scheme + "://" + u.Host, "exp": now.Add(12 * time.Hour).Unix(), "sub": subject})
	if err != nil {
		return "", err
	}
	enc := base64.RawURLEncoding
	input := enc.EncodeToString([]byte(header)) + "." + enc.EncodeToString(claims)
	sum := sha256.Sum256([]byte(input))
	r, s, err := ecdsa.Sign(rand.Reader, v.priv, sum[:])
	if err != nil {
		return "", err
	}
	sig := make([]byte, 64) // JWS wants r and s as fixed 32-byte halves, not ASN.1
	r.FillBytes(sig[:32])
	s.FillBytes(sig[32:])
	return "vapid t=" + input + "." + enc.EncodeToString(sig) + ", k=" + v.PublicKey(), nil
}

// b64 decodes base64url with or without padding, as browsers and libraries differ.
func b64(s string) ([]byte, error) {
	return base64.RawURLEncoding.DecodeString(strings.TrimRight(s, "="))
}

// decodeSubscriberKey reads a subscription's p256dh key, checking it is a point on P-256.
func decodeSubscriberKey(s string) (*ecdh.PublicKey, error) {
	b, err := b64(s)
	if err != nil {
		return nil, errors.New("not base64url")
	}
	k, err := ecdh.P256().NewPublicKey(b)
	if err != nil {
		return nil, errors.New("not an uncompressed P-256 public key")
	}
	return k, nil
}

// recordSize is the one record's size in the aes128gcm header; a push payload is one record.
const recordSize = 4096

// maxPushPayload keeps a payload well inside one record and every push service's limit.
const maxPushPayload = 3000

// Encrypt encrypts plaintext for a subscription as RFC 8291 says (aes128gcm, RFC 8188): an
// ephemeral ECDH key with the browser's p256dh key, mixed with its auth secret, gives the
// content key and nonce; the body is the header (salt, record size, the ephemeral public key)
// and one record.
func Encrypt(keys PushKeys, plaintext []byte) ([]byte, error) {
	if len(plaintext) > maxPushPayload {
		return nil, fmt.Errorf("push payload of %d bytes is over %d", len(plaintext), maxPushPayload)
	}
	ua, err := decodeSubscriberKey(keys.P256DH)
	if err != nil {
		return nil, fmt.Errorf("p256dh: %w", err)
	}
	auth, err := b64(keys.Auth)
	if err != nil || len(auth) != 16 {
		return nil, errors.New("auth: want 16 bytes, base64url")
	}
	as, err := ecdh.P256().GenerateKey(rand.Reader)
	if err != nil {
		return nil, err
	}
	shared, err := as.ECDH(ua)
	if err != nil {
		return nil, err
	}
	asPub := as.PublicKey().Bytes()
	prkKey, err := hkdf.Extract(sha256.New, shared, auth)
	if err != nil {
		return nil, err
	}
	keyInfo := "WebPush: info\x00" + string(ua.Bytes()) + string(asPub)
	ikm, err := hkdf.Expand(sha256.New, prkKey, keyInfo, 32)
	if err != nil {
		return nil, err
	}
	salt := make([]byte, 16)
	rand.Read(salt)
	prk, err := hkdf.Extract(sha256.New, ikm, salt)
	if err != nil {
		return nil, err
	}
	cek, err := hkdf.Expand(sha256.New, prk, "Content-Encoding: aes128gcm\x00", 16)
	if err != nil {
		return nil, err
	}
	nonce, err := hkdf.Expand(sha256.New, prk, "Content-Encoding: nonce\x00", 12)
	if err != nil {
		return nil, err
	}
	block, err := aes.NewCipher(cek)
	if err != nil {
		return nil, err
	}
	gcm, err := cipher.NewGCM(block)
	if err != nil {
		return nil, err
	}
	var out bytes.Buffer
	out.Write(salt)
	binary.Write(&out, binary.BigEndian, uint32(recordSize))
	out.WriteByte(byte(len(asPub)))
	out.Write(asPub)
	record := append(append([]byte{}, plaintext...), 2) // 2: the last record, no padding
	return gcm.Seal(out.Bytes(), nonce, record, nil), nil
}

// pushPayload is what the service worker receives (web/static/sw.js reads it).
type pushPayload struct {
	Type    string       `json:"type"` // began or ended
	Tag     string       `json:"tag"`  // the wait's id: the ended push closes the notification with this tag
	Title   string       `json:"title,omitempty"`
	Body    string       `json:"body,omitempty"`
	URL     string       `json:"url,omitempty"` // the page to open (a path)
	Actions []pushAction `json:"actions,omitempty"`
}

type pushAction struct {
	Action string `json:"action"`
	Title  string `json:"title"`
	Link   string `json:"link"` // the capability link's path
}

// pushRequest encrypts m for the subscription and signs the request with the VAPID key.
func (n *Notifier) pushRequest(ctx context.Context, t Target, m message) (outgoing, error) {
	w := m.Waits[0]
	p := pushPayload{Type: string(m.Event), Tag: w.ID}
	if m.Event == Began {
		p.Title, p.Body, p.URL = m.Title(), clip(m.Body(), 1000), w.URL
		for _, b := range m.Buttons {
			p.Actions = append(p.Actions, pushAction{Action: b.Action, Title: b.Label, Link: LinkPath + b.URL[strings.LastIndex(b.URL, "/")+1:]})
		}
	}
	plain, err := json.Marshal(p)
	if err != nil {
		return outgoing{}, err
	}
	body, err := Encrypt(*t.Push, plain)
	if err != nil {
		return outgoing{}, err
	}
	v, err := n.VAPID(ctx)
	if err != nil {
		return outgoing{}, err
	}
	auth, err := v.Authorization(t.URL, n.cfg.Subject, n.cfg.Now())
	if err != nil {
		return outgoing{}, err
	}
	ttl := 24 * 3600
	if !w.Deadline.IsZero() {
		ttl = max(60, min(ttl, int(w.Deadline.Sub(n.cfg.Now()).Seconds())))
	}
	urgency := "high"
	if m.Event == Ended {
		urgency = "normal"
	}
	return outgoing{URL: t.URL, Body: body, Header: http.Header{
		"Content-Type":     {"application/octet-stream"},
		"Content-Encoding": {"aes128gcm"},
		"Ttl":              {strconv.Itoa(ttl)},
		"Urgency":          {urgency},
		"Topic":            {pushTopic(w.ID)},
		"Authorization":    {auth},
	}}, nil
}

// pushTopic names the wait's push for the push service (RFC 8030 §5.4): the ended push
// replaces an undelivered began one. Topics are at most 32 base64url characters.
func pushTopic(waitID string) string {
	return HashToken(waitID)[:32]
}
