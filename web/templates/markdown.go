// Package templates holds plandash's templ components. Every live fragment the socket sends is
// rendered by the same component the page uses.
package templates

import (
	"bytes"
	"context"
	"io"

	"github.com/a-h/templ"
	"github.com/yuin/goldmark"
	"github.com/yuin/goldmark/extension"
)

// md renders agent markdown. goldmark's default renderer escapes raw HTML and drops dangerous
// link schemes; html.WithUnsafe is deliberately never set. It holds no mutable state. Table
// alignment is written as align="…" because the page's CSP refuses inline style attributes.
var md = goldmark.New(goldmark.WithExtensions(
	extension.Linkify, extension.Strikethrough, extension.TaskList,
	extension.NewTable(extension.WithTableCellAlignMethod(extension.TableCellAlignAttribute)),
))

// Markdown renders src as HTML that is safe to inline.
func Markdown(src string) templ.Component {
	return templ.ComponentFunc(func(ctx context.Context, w io.Writer) error {
		var buf bytes.Buffer
		if err := md.Convert([]byte(src), &buf); err != nil {
			return templ.Raw("<pre>"+templ.EscapeString(src)+"</pre>").Render(ctx, w)
		}
		_, err := w.Write(buf.Bytes())
		return err
	})
}
