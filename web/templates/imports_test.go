package templates

import (
	"go/parser"
	"go/token"
	"path/filepath"
	"strings"
	"testing"
)

// TestViewsDoNotSpeakWireFormats: the templates draw view types of their own and the domain's,
// never a wire format's (internal/acp): a change to how ACP encodes a permission request must
// not reach the markup.
func TestViewsDoNotSpeakWireFormats(t *testing.T) {
	files, err := filepath.Glob("*.go")
	if err != nil {
		t.Fatal(err)
	}
	for _, name := range files {
		f, err := parser.ParseFile(token.NewFileSet(), name, nil, parser.ImportsOnly)
		if err != nil {
			t.Fatal(err)
		}
		for _, imp := range f.Imports {
			if p := strings.Trim(imp.Path.Value, `"`); strings.HasSuffix(p, "/internal/acp") || strings.Contains(p, "/internal/acp/") {
				t.Errorf("%s imports %s", name, p)
			}
		}
	}
}
