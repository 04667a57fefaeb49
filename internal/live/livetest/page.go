// Package livetest reads a live socket's frames as a page's script does (web/static/js/swap.js),
// for tests: edits ("p" frames) are applied to the markup the socket last sent of the element.
package livetest

import (
	"encoding/json"
	"fmt"
	"unicode/utf16"
)

// Frame is a socket frame, with edits already applied: T is "f" for an element's change (HTML
// empty removes it) or "resync".
type Frame struct {
	T      string `json:"t"`
	ID     string `json:"id"`
	Parent string `json:"parent,omitempty"`
	Seq    uint64 `json:"seq"`
	HTML   string `json:"html"`
	N      int    `json:"n"`
	Ops    []any  `json:"ops"`
	Size   int    `json:"-"` // on the wire
	Patch  bool   `json:"-"` // it came as edits
}

// Page is the markup a page holds of each element the socket sent it.
type Page struct{ markup map[string]string }

// Read decodes one frame, applying edits as the page would; an edit the page cannot apply is an
// error (the page would reload).
func (p *Page) Read(b []byte) (Frame, error) {
	var f Frame
	if err := json.Unmarshal(b, &f); err != nil {
		return f, err
	}
	f.Size = len(b)
	if p.markup == nil {
		p.markup = map[string]string{}
	}
	if f.T == "p" {
		base, ok := p.markup[f.ID]
		if !ok {
			return f, fmt.Errorf("edits to %s, which the page holds no markup of", f.ID)
		}
		html, err := edit(base, f.Ops)
		if err != nil {
			return f, fmt.Errorf("edits to %s: %w", f.ID, err)
		}
		if n := len(utf16.Encode([]rune(html))); n != f.N {
			return f, fmt.Errorf("edits to %s give %d code units, the frame says %d", f.ID, n, f.N)
		}
		f.T, f.HTML, f.Patch = "f", html, true
	}
	if f.T == "f" {
		if f.HTML == "" {
			delete(p.markup, f.ID)
		} else {
			p.markup[f.ID] = f.HTML
		}
	}
	f.Ops = nil
	return f, nil
}

// edit applies ops to base in UTF-16 code units, as JavaScript strings count.
func edit(base string, ops []any) (string, error) {
	src := utf16.Encode([]rune(base))
	var out []uint16
	at := 0
	for _, op := range ops {
		switch v := op.(type) {
		case string:
			out = append(out, utf16.Encode([]rune(v))...)
		case float64:
			n := int(v)
			if n > 0 {
				if at+n > len(src) {
					return "", fmt.Errorf("keeps %d past the end (%d of %d)", n, at, len(src))
				}
				out = append(out, src[at:at+n]...)
				at += n
			} else {
				at -= n
			}
		default:
			return "", fmt.Errorf("an op %v", op)
		}
	}
	if at != len(src) {
		return "", fmt.Errorf("the edits end at %d of %d", at, len(src))
	}
	return string(utf16.Decode(out)), nil
}
