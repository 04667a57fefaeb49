// Package templates holds plandash's templ components. Every live fragment the socket sends is
// rendered by the same component the page uses.
package templates

import (
	"bytes"
	"context"
	"io"

	"github.com/a-h/templ"
	"github.com/yuin/goldmark"
	gast "github.com/yuin/goldmark/ast"
	"github.com/yuin/goldmark/extension"
	east "github.com/yuin/goldmark/extension/ast"
	"github.com/yuin/goldmark/renderer"
	"github.com/yuin/goldmark/util"
)

// md renders agent markdown. goldmark's default renderer escapes raw HTML and drops dangerous
// link schemes; html.WithUnsafe is deliberately never set. It holds no mutable state. Table
// alignment is written as align="…" because the page's CSP refuses inline style attributes.
var md = goldmark.New(goldmark.WithExtensions(
	extension.Linkify, extension.Strikethrough, extension.TaskList,
	extension.NewTable(extension.WithTableCellAlignMethod(extension.TableCellAlignAttribute)),
), goldmark.WithRendererOptions(renderer.WithNodeRenderers(
	// Registered after the task list's own renderer (500), which a lower value means: this one
	// replaces it.
	util.Prioritized(taskCheckBoxRenderer{}, 100),
)))

// taskCheckBoxRenderer draws a task list's box with a name, which goldmark's leaves out: a
// screen reader then says "done" or "not done" instead of an unlabelled checkbox.
type taskCheckBoxRenderer struct{}

func (taskCheckBoxRenderer) RegisterFuncs(reg renderer.NodeRendererFuncRegisterer) {
	reg.Register(east.KindTaskCheckBox, func(w util.BufWriter, _ []byte, n gast.Node, entering bool) (gast.WalkStatus, error) {
		if !entering {
			return gast.WalkContinue, nil
		}
		if n.(*east.TaskCheckBox).IsChecked {
			_, _ = w.WriteString(`<input checked="" disabled="" type="checkbox" aria-label="done"> `)
		} else {
			_, _ = w.WriteString(`<input disabled="" type="checkbox" aria-label="not done"> `)
		}
		return gast.WalkContinue, nil
	})
}

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
