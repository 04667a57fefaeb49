package changes_test

import (
	"go/ast"
	"go/parser"
	"go/token"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/plandash/plandash/internal/changes"
)

// constBlock is the names and values of the constants in changes.go's block whose doc starts
// with doc.
func constBlock(t *testing.T, doc string) map[string]string {
	t.Helper()
	f, err := parser.ParseFile(token.NewFileSet(), "changes.go", nil, parser.ParseComments)
	if err != nil {
		t.Fatal(err)
	}
	out := map[string]string{}
	for _, d := range f.Decls {
		g, ok := d.(*ast.GenDecl)
		if !ok || g.Tok != token.CONST || g.Doc == nil || !strings.HasPrefix(g.Doc.Text(), doc) {
			continue
		}
		for _, s := range g.Specs {
			v := s.(*ast.ValueSpec)
			lit, ok := v.Values[0].(*ast.BasicLit)
			if !ok {
				t.Fatalf("%s is not a string literal", v.Names[0])
			}
			out[v.Names[0].Name], _ = strconv.Unquote(lit.Value)
		}
	}
	if len(out) == 0 {
		t.Fatalf("no constant block %q in changes.go", doc)
	}
	return out
}

// TestKindsIsWhole: Kinds lists every kind constant, so the checks that range over it (every
// kind has a topic and a stream, and is handled from other instances) cover a kind added here.
func TestKindsIsWhole(t *testing.T) {
	for name, v := range constBlock(t, "Kinds of change") {
		if !slices.Contains(changes.Kinds(), v) {
			t.Errorf("%s (%q) is not in Kinds: add it", name, v)
		}
	}
}

// TestPublishedKindsAreNamed: no live.Change or postgres.Note is written with a kind spelled
// out, so every kind published is one of changes.Kinds, which the listeners are held to.
func TestPublishedKindsAreNamed(t *testing.T) {
	fset := token.NewFileSet()
	err := filepath.WalkDir("..", func(path string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() || !strings.HasSuffix(path, ".go") || strings.HasSuffix(path, "_test.go") {
			return err
		}
		f, err := parser.ParseFile(fset, path, nil, 0)
		if err != nil {
			return err
		}
		ast.Inspect(f, func(n ast.Node) bool {
			lit, ok := n.(*ast.CompositeLit)
			if !ok || !isChangeType(f.Name.Name, lit.Type) {
				return true
			}
			for _, e := range lit.Elts {
				if kv, ok := e.(*ast.KeyValueExpr); ok && isIdent(kv.Key, "Kind") {
					if _, spelled := kv.Value.(*ast.BasicLit); spelled {
						t.Errorf("%s: a change of kind %s spelled out: use a constant of package changes", fset.Position(kv.Pos()), kv.Value.(*ast.BasicLit).Value)
					}
				}
			}
			return true
		})
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
}

func isChangeType(pkg string, x ast.Expr) bool {
	switch x := x.(type) {
	case *ast.SelectorExpr:
		return isIdent(x.X, "live") && x.Sel.Name == "Change" || isIdent(x.X, "postgres") && x.Sel.Name == "Note"
	case *ast.Ident:
		return pkg == "live" && x.Name == "Change" || pkg == "postgres" && x.Name == "Note"
	}
	return false
}

func isIdent(x ast.Expr, name string) bool {
	id, ok := x.(*ast.Ident)
	return ok && id.Name == name
}

// TestOtherInstancesHandleEveryKind: the listener of PostgreSQL notes (app's remote.note) has a
// case for every kind, so a change made on one instance is not lost on the others.
func TestOtherInstancesHandleEveryKind(t *testing.T) {
	f, err := parser.ParseFile(token.NewFileSet(), "../app/multi.go", nil, 0)
	if err != nil {
		t.Fatal(err)
	}
	handled := map[string]bool{}
	for _, d := range f.Decls {
		fn, ok := d.(*ast.FuncDecl)
		if !ok || fn.Name.Name != "note" {
			continue
		}
		ast.Inspect(fn.Body, func(n ast.Node) bool {
			if cc, ok := n.(*ast.CaseClause); ok {
				for _, e := range cc.List {
					if sel, ok := e.(*ast.SelectorExpr); ok && isIdent(sel.X, "changes") {
						handled[sel.Sel.Name] = true
					}
				}
			}
			return true
		})
	}
	for name := range constBlock(t, "Kinds of change") {
		if !handled[name] {
			t.Errorf("app's remote.note has no case changes.%s: a change of it on another instance is not shown here", name)
		}
	}
}

// TestMainJSGatePage: the regular expression by which main.js tells a gate page (the inbox, a
// request's page) from the others matches exactly those topics.
func TestMainJSGatePage(t *testing.T) {
	js, err := os.ReadFile("../../web/static/js/main.js")
	if err != nil {
		t.Fatal(err)
	}
	m := regexp.MustCompile(`const gatePage = /(.+)/\.test\(topic\);`).FindSubmatch(js)
	if m == nil {
		t.Fatal("main.js has no `const gatePage = /…/.test(topic);`: update this test with it")
	}
	re := regexp.MustCompile(string(m[1]))
	for _, topic := range constBlock(t, "Topics a page") {
		gate := topic == changes.TopicApprovals || topic == changes.TopicApproval
		for _, sub := range []string{topic, topic + ":r1"} {
			if re.MatchString(sub) != gate && !(topic == changes.TopicApproval && sub == topic) {
				t.Errorf("main.js's gatePage /%s/ on topic %q is %v, want %v", m[1], sub, !gate, gate)
			}
		}
	}
}

// TestPagesNameTheirTopics: no template gives its page a topic spelled out ("session:"+id or
// "all"), so a page subscribes only to topics named here, which the renderers are registered
// under.
func TestPagesNameTheirTopics(t *testing.T) {
	files, err := filepath.Glob("../../web/templates/*.templ")
	if err != nil || len(files) == 0 {
		t.Fatalf("no templates: %v", err)
	}
	topics := constBlock(t, "Topics a page")
	pages := 0
	for _, f := range files {
		b, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		for line := range strings.Lines(string(b)) {
			if !strings.Contains(line, "@Page(") && !strings.Contains(line, "@EmbedPage(") {
				continue
			}
			pages++
			for name, v := range topics {
				if strings.Contains(line, `"`+v+`:"`) || strings.Contains(line, `, "`+v+`",`) {
					t.Errorf("%s: a page's topic is spelled out, not changes.%s: %s", filepath.Base(f), name, strings.TrimSpace(line))
				}
			}
		}
	}
	if pages < 10 {
		t.Fatalf("found %d pages in the templates: update this test", pages)
	}
}
