package dagview

import (
	"bytes"
	"context"
	"strings"
	"testing"

	"github.com/a-h/templ"
	"golang.org/x/net/html"
)

// render runs a component and parses the output as an HTML fragment inside
// <body>, the way a browser would see it.
func render(t testing.TB, c templ.Component) *html.Node {
	t.Helper()
	var buf bytes.Buffer
	if err := c.Render(context.Background(), &buf); err != nil {
		t.Fatalf("render: %v", err)
	}
	doc, err := html.Parse(strings.NewReader("<!doctype html><html><body>" + buf.String() + "</body></html>"))
	if err != nil {
		t.Fatalf("parse: %v", err)
	}
	return doc
}

func attr(n *html.Node, key string) string {
	for _, a := range n.Attr {
		if a.Key == key {
			return a.Val
		}
	}
	return ""
}

func hasAttr(n *html.Node, key string) bool {
	for _, a := range n.Attr {
		if a.Key == key {
			return true
		}
	}
	return false
}

func hasClass(n *html.Node, class string) bool {
	for _, c := range strings.Fields(attr(n, "class")) {
		if c == class {
			return true
		}
	}
	return false
}

// all returns the elements below root for which match is true, in
// document order.
func all(root *html.Node, match func(*html.Node) bool) []*html.Node {
	var out []*html.Node
	var walk func(*html.Node)
	walk = func(n *html.Node) {
		if n.Type == html.ElementNode && match(n) {
			out = append(out, n)
		}
		for c := n.FirstChild; c != nil; c = c.NextSibling {
			walk(c)
		}
	}
	walk(root)
	return out
}

func byTestID(root *html.Node, id string) []*html.Node {
	return all(root, func(n *html.Node) bool { return attr(n, "data-testid") == id })
}

func byTag(root *html.Node, tag string) []*html.Node {
	return all(root, func(n *html.Node) bool { return n.Data == tag })
}

func byID(root *html.Node, id string) *html.Node {
	found := all(root, func(n *html.Node) bool { return attr(n, "id") == id })
	if len(found) != 1 {
		return nil
	}
	return found[0]
}

// text is the concatenated text below n, spaces collapsed.
func text(n *html.Node) string {
	var b strings.Builder
	var walk func(*html.Node)
	walk = func(n *html.Node) {
		if n.Type == html.TextNode {
			b.WriteString(n.Data)
		}
		for c := n.FirstChild; c != nil; c = c.NextSibling {
			walk(c)
		}
	}
	walk(n)
	return strings.Join(strings.Fields(b.String()), " ")
}

// childText is the text of the first child element with the given tag.
func childText(n *html.Node, tag string) string {
	found := byTag(n, tag)
	if len(found) == 0 {
		return ""
	}
	return text(found[0])
}
