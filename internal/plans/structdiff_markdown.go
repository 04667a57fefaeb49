package plans

import (
	"bytes"
	"strings"

	"github.com/yuin/goldmark"
	"github.com/yuin/goldmark/ast"
	"github.com/yuin/goldmark/extension"
	east "github.com/yuin/goldmark/extension/ast"
	"github.com/yuin/goldmark/text"
)

// markdownParser parses plans the way the pages render them (GitHub tables, task lists,
// strikethrough), so a diff's blocks are the blocks a person sees. It holds no mutable state.
var markdownParser = goldmark.New(goldmark.WithExtensions(
	extension.Strikethrough, extension.TaskList, extension.Table,
)).Parser()

// MarkdownDiff compares two markdown texts block by block as rendered: headings, paragraphs,
// list items, quotes, code blocks and table rows; a block edited in place or moved is diffed
// word by word. A block's text is its markdown source without the block's own markers.
func MarkdownDiff(a, b string) StructuredDiff {
	ba, bb := MarkdownBlocks(a), MarkdownBlocks(b)
	d := diffUnits(blockUnits(ba), blockUnits(bb), true)
	d.Mode = ModeBlocks
	d.notCompared("blocks", len(ba), len(bb))
	return d
}

// Block is one rendered block of a markdown text.
type Block struct {
	Kind  string // heading, paragraph, item, task, quote, code, row, rule, html
	Level int    // a heading's level; a list item's depth (1 for a top-level item)
	// Status is a task item's box: "done" or "open"; its text is without the box.
	Status string
	Text   string
	// Line is the source line the block starts on, from 1: where comments on a markdown plan,
	// which name source lines, find the block a diff numbers.
	Line int
}

// BlockAtLine is the number (from 1, as diffs count blocks) of the block a source line belongs
// to: the last block starting on or before it; 0 for a line before the first block.
func BlockAtLine(blocks []Block, line int) int {
	n := 0
	for i, b := range blocks {
		if b.Line > line {
			break
		}
		n = i + 1
	}
	return n
}

func blockUnits(bs []Block) []unit {
	us := make([]unit, min(len(bs), maxUnits))
	for i := range us {
		us[i] = unit{key: bs[i].Text, text: bs[i].Text, kind: bs[i].Kind, level: bs[i].Level, status: bs[i].Status}
	}
	return us
}

// MarkdownBlocks splits a markdown text into its rendered blocks, in document order. Container
// blocks (lists, quotes, tables) contribute their leaves: each list item's paragraphs, each
// quoted paragraph, each table row.
func MarkdownBlocks(src string) []Block {
	source := []byte(src)
	doc := markdownParser.Parse(text.NewReader(source))
	var out []Block
	// Blocks come in document order, so their lines are counted from where the last one began.
	at, line := 0, 1
	lineOf := func(n ast.Node) int {
		if p := n.Pos(); p >= at && p <= len(source) {
			line += bytes.Count(source[at:p], []byte{'\n'})
			at = p
		}
		return line
	}
	_ = ast.Walk(doc, func(n ast.Node, entering bool) (ast.WalkStatus, error) {
		if !entering {
			return ast.WalkContinue, nil
		}
		start := len(out)
		defer func() {
			if len(out) > start {
				out[start].Line = lineOf(n)
			}
		}()
		switch n := n.(type) {
		case *ast.Heading:
			out = append(out, Block{Kind: "heading", Level: n.Level, Text: linesText(n, source, true)})
			return ast.WalkSkipChildren, nil
		case *ast.FencedCodeBlock, *ast.CodeBlock:
			out = append(out, Block{Kind: "code", Text: linesText(n, source, false)})
			return ast.WalkSkipChildren, nil
		case *ast.HTMLBlock:
			out = append(out, Block{Kind: "html", Text: linesText(n, source, false)})
			return ast.WalkSkipChildren, nil
		case *ast.ThematicBreak:
			out = append(out, Block{Kind: "rule", Text: "---"})
		case *ast.Paragraph, *ast.TextBlock:
			kind, level := container(n)
			b := Block{Kind: kind, Level: level, Text: linesText(n, source, true)}
			if box, ok := n.FirstChild().(*east.TaskCheckBox); ok && kind == "item" {
				b.Kind, b.Status = "task", "open"
				if box.IsChecked {
					b.Status = "done"
				}
				// The box is "[ ]", "[x]" or "[X]" and a space: its state is the status.
				if i := strings.IndexByte(b.Text, ']'); i >= 0 {
					b.Text = strings.TrimLeft(b.Text[i+1:], " \t")
				}
			}
			out = append(out, b)
			return ast.WalkSkipChildren, nil
		case *east.TableHeader, *east.TableRow:
			var cells []string
			for c := n.FirstChild(); c != nil; c = c.NextSibling() {
				cells = append(cells, inlineText(c, source))
			}
			out = append(out, Block{Kind: "row", Text: strings.Join(cells, " | ")})
			return ast.WalkSkipChildren, nil
		}
		return ast.WalkContinue, nil
	})
	return out
}

// container names what a paragraph is part of: the innermost list item (with its nesting
// depth) or quote, or nothing.
func container(n ast.Node) (string, int) {
	kind, depth := "paragraph", 0
	for p := n.Parent(); p != nil; p = p.Parent() {
		switch p.Kind() {
		case ast.KindListItem:
			if kind == "paragraph" {
				kind = "item"
			}
			depth++
		case ast.KindBlockquote:
			if kind == "paragraph" {
				kind = "quote"
			}
		}
	}
	return kind, depth
}

// linesText is a block's source lines joined; trim drops the spaces around each line (a
// paragraph's continuation indent is not part of its text), code keeps them.
func linesText(n ast.Node, source []byte, trim bool) string {
	lines := n.Lines()
	var sb strings.Builder
	for i := range lines.Len() {
		seg := lines.At(i)
		l := string(seg.Value(source))
		if trim {
			l = strings.TrimSpace(l)
			if sb.Len() > 0 {
				sb.WriteByte('\n')
			}
		}
		sb.WriteString(l)
	}
	if !trim {
		return strings.TrimSuffix(sb.String(), "\n")
	}
	return sb.String()
}

// inlineText is the text of a table cell: its inline text and code, without markup.
func inlineText(n ast.Node, source []byte) string {
	var sb strings.Builder
	_ = ast.Walk(n, func(c ast.Node, entering bool) (ast.WalkStatus, error) {
		if !entering {
			return ast.WalkContinue, nil
		}
		switch c := c.(type) {
		case *ast.Text:
			sb.Write(c.Segment.Value(source))
		case *ast.String:
			sb.Write(c.Value)
		}
		return ast.WalkContinue, nil
	})
	return strings.TrimSpace(sb.String())
}
