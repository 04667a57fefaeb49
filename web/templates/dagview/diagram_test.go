package dagview

import (
	"encoding/json"
	"flag"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/plandash/plandash/internal/dag"
	"golang.org/x/net/html"
)

var update = flag.Bool("update", false, "rewrite golden files")

// samplePlan has a critical chain, an independent call with an unresolved
// read, a cycle, agent text that must be escaped, and initial state.
const samplePlan = `{"_state":{"user":"Alice"},"calls":[
 {"_id":"fetch","_tool":"fetchUserProfile","userName":"†state.user","_outputPath":"†state.profile","_status":"completed","_toolCallId":"tc-1"},
 {"_id":"sum","_tool":"summarizeProfile","profile":"†state.profile","opts":{"fields":["†state.profile.bio"]},"_outputPath":"†state.summary","_status":"in_progress"},
 {"_id":"mail","_tool":"sendMail","body":"†state.summary","_title":"Mail <b>Bob</b> & co"},
 {"_id":"odd","_tool":"lookup","q":"†state.nowhere","_status":"failed"},
 {"_id":"l1","_tool":"loopA","x":"†state.l2","_outputPath":"†state.l1"},
 {"_id":"l2","_tool":"loopB","x":"†state.l1","_outputPath":"†state.l2","_status":"skipped"}
]}`

func samplePlanView(t testing.TB) View {
	t.Helper()
	p, err := dag.Parse(json.RawMessage(samplePlan))
	if err != nil {
		t.Fatal(err)
	}
	return NewPlanView("plan-1", p)
}

// structure summarises every data-testid element in document order with
// the attributes tests and scripts rely on; it is what the golden files
// pin, so cosmetic markup changes do not break them.
func structure(root *html.Node) string {
	keys := []string{"data-node-id", "data-status", "data-problems", "data-from", "data-to", "data-kind", "data-calls", "tabindex", "class"}
	var b strings.Builder
	for _, n := range all(root, func(n *html.Node) bool { return hasAttr(n, "data-testid") }) {
		b.WriteString(attr(n, "data-testid"))
		for _, k := range keys {
			if hasAttr(n, k) {
				b.WriteString(" " + k + "=" + attr(n, k))
			}
		}
		switch attr(n, "data-testid") {
		case "dag-node":
			b.WriteString(" label=" + childText(n, "text") + "|" + text(byTag(n, "text")[1]))
		case "dag-edge", "dag-problem", "dag-critical-path":
			b.WriteString(" text=" + text(n))
		}
		b.WriteString("\n")
	}
	return b.String()
}

func golden(t *testing.T, name, got string) {
	t.Helper()
	path := filepath.Join("testdata", name+".golden")
	if *update {
		if err := os.MkdirAll("testdata", 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, []byte(got), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (run go test -update to create it)", err)
	}
	if got != string(want) {
		t.Errorf("%s differs from %s (run go test -update if intended):\n%s", name, path, got)
	}
}

func TestGoldenStructure(t *testing.T) {
	v := samplePlanView(t)
	golden(t, "diagram", structure(render(t, Diagram(v))))
	golden(t, "table", structure(render(t, Table(v))))
	golden(t, "problems", structure(render(t, Problems(v))))
	golden(t, "dryrun", structure(render(t, DryRun(v))))
}

func TestDiagram(t *testing.T) {
	v := samplePlanView(t)
	doc := render(t, Diagram(v))

	svgs := byTestID(doc, "dag-svg")
	if len(svgs) != 1 || svgs[0].Data != "svg" || attr(svgs[0], "viewBox") == "" || attr(svgs[0], "aria-label") == "" {
		t.Fatalf("want one labelled <svg> with a viewBox, got %d", len(svgs))
	}
	nodes := byTestID(doc, "dag-node")
	var ids []string
	for _, n := range nodes {
		ids = append(ids, attr(n, "data-node-id"))
		if attr(n, "tabindex") != "0" {
			t.Errorf("node %s is not focusable", attr(n, "data-node-id"))
		}
		panel := byID(doc, attr(n, "data-details"))
		if panel == nil || attr(panel, "data-testid") != "dag-node-details" || attr(panel, "data-node-id") != attr(n, "data-node-id") {
			t.Errorf("node %s: no details panel %q", attr(n, "data-node-id"), attr(n, "data-details"))
		}
		if attr(n, "aria-controls") != attr(n, "data-details") {
			t.Errorf("node %s: aria-controls does not name its panel", attr(n, "data-node-id"))
		}
		if !hasClass(n, "dag-status-"+attr(n, "data-status")) {
			t.Errorf("node %s: status class missing", attr(n, "data-node-id"))
		}
		if len(byTag(n, "title")) != 1 || !strings.Contains(text(byTag(n, "title")[0]), statusText(dag.Status(attr(n, "data-status")))) {
			t.Errorf("node %s: status not in its title text", attr(n, "data-node-id"))
		}
	}
	if want := []string{"fetch", "sum", "mail", "odd", "l1", "l2"}; !slices.Equal(ids, want) {
		t.Errorf("node ids = %q, want %q", ids, want)
	}
	if got := attr(nodes[0], "data-status"); got != "completed" {
		t.Errorf("fetch status = %q", got)
	}
	// Agent text is text, never markup.
	if len(byTag(doc, "b")) != 0 || !strings.Contains(text(nodes[2]), "Mail <b>Bob</b> & co") {
		t.Errorf("title not escaped: %q", text(nodes[2]))
	}
	edges := byTestID(doc, "dag-edge")
	var pairs []string
	for _, e := range edges {
		pairs = append(pairs, attr(e, "data-from")+">"+attr(e, "data-to"))
	}
	if want := []string{"fetch>sum", "sum>mail", "l2>l1", "l1>l2"}; !slices.Equal(pairs, want) {
		t.Errorf("edges = %q, want %q", pairs, want)
	}
	if got := childText(edges[0], "text"); got != "†state.profile, †state.profile.bio" {
		t.Errorf("edge label = %q", got)
	}
	for _, i := range []int{0, 1} {
		if !hasClass(edges[i], "dag-critical") || !hasClass(nodes[i], "dag-critical") {
			t.Errorf("critical path not highlighted at %d", i)
		}
	}
	for _, i := range []int{2, 3} {
		if !hasClass(edges[i], "dag-has-problem") || !strings.Contains(attr(byTag(edges[i], "path")[0], "marker-end"), "arrow-problem") {
			t.Errorf("cycle edge %d not highlighted", i)
		}
	}
	if attr(nodes[3], "data-problems") != "unresolved_read" || attr(nodes[4], "data-problems") != "cycle" || !hasClass(nodes[4], "dag-has-problem") {
		t.Errorf("problem nodes: %q %q", attr(nodes[3], "data-problems"), attr(nodes[4], "data-problems"))
	}
	sum := byID(doc, attr(nodes[1], "data-details"))
	args := byTestID(sum, "dag-node-args")
	if len(args) != 1 || !strings.Contains(text(args[0]), `"profile": "†state.profile"`) {
		t.Errorf("arguments panel = %q", text(sum))
	}
	inputs := byTestID(byID(doc, attr(nodes[0], "data-details")), "dag-node-inputs")
	if len(inputs) != 1 || !strings.Contains(text(inputs[0]), `initial state: "Alice"`) {
		t.Errorf("resolved inputs of fetch = %q", text(inputs[0]))
	}
	inputs = byTestID(sum, "dag-node-inputs")
	if !strings.Contains(text(inputs[0]), "fetchUserProfile (fetch)") {
		t.Errorf("resolved inputs of sum = %q", text(inputs[0]))
	}
	if len(byTag(doc, "script")) != 0 || len(byTag(doc, "style")) != 0 {
		t.Error("components must not emit <script> or <style>")
	}
}

func TestLiveStatuses(t *testing.T) {
	v := samplePlanView(t)
	v.Statuses = map[string]dag.Status{"sum": dag.StatusCompleted}
	doc := render(t, Diagram(v))
	n := byTestID(doc, "dag-node")[1]
	if attr(n, "data-status") != "completed" || !hasClass(n, "dag-status-completed") || !strings.Contains(text(n), "✓") {
		t.Errorf("override not shown: %s %q", attr(n, "data-status"), text(n))
	}
}

func TestTable(t *testing.T) {
	doc := render(t, Table(samplePlanView(t)))
	tables := byTestID(doc, "dag-table")
	if len(tables) != 1 || len(byTag(tables[0], "caption")) != 1 {
		t.Fatal("want one captioned table")
	}
	for _, th := range byTag(tables[0], "th") {
		if s := attr(th, "scope"); s != "col" && s != "row" {
			t.Errorf("header %q without scope", text(th))
		}
	}
	rows := byTestID(doc, "dag-table-row")
	if len(rows) != 6 {
		t.Fatalf("%d rows", len(rows))
	}
	cells := byTag(rows[1], "td")
	got := []string{text(cells[0]), text(cells[1]), text(cells[2]), text(cells[3]), text(cells[4])}
	want := []string{"summarizeProfile", "†state.profile from fetchUserProfile (fetch) †state.profile.bio from fetchUserProfile (fetch)", "†state.summary", "1", "◐ in progress"}
	if !slices.Equal(got, want) {
		t.Errorf("row = %q\nwant %q", got, want)
	}
	if got := text(byTag(rows[4], "td")[3]); got != "blocked" {
		t.Errorf("cycle call level = %q", got)
	}
}

func TestProblemsList(t *testing.T) {
	doc := render(t, Problems(samplePlanView(t)))
	items := byTestID(doc, "dag-problem")
	if len(items) != 2 || attr(items[0], "data-kind") != "unresolved_read" || attr(items[1], "data-kind") != "cycle" || attr(items[1], "data-calls") != "l1 l2" {
		t.Fatalf("problems = %s", structure(doc))
	}
	p, _ := dag.Parse(json.RawMessage(`[{"_tool":"a"}]`))
	doc = render(t, Problems(NewPlanView("ok", p)))
	if len(byTestID(doc, "dag-no-problems")) != 1 || len(byTestID(doc, "dag-problem")) != 0 {
		t.Error("valid plan should say so")
	}
}

func TestDryRunSummary(t *testing.T) {
	doc := render(t, DryRun(samplePlanView(t)))
	if got := len(byTag(byTestID(doc, "dag-order")[0], "li")); got != 4 {
		t.Errorf("order has %d entries", got)
	}
	levels := byTag(byTestID(doc, "dag-levels")[0], "li")
	if len(levels) != 3 || text(levels[0]) != "fetchUserProfile (fetch), lookup (odd)" {
		t.Errorf("levels = %q", text(byTestID(doc, "dag-levels")[0]))
	}
	if got := text(byTestID(doc, "dag-critical-path")[0]); got != "fetchUserProfile (fetch) → summarizeProfile (sum) → Mail <b>Bob</b> & co (mail) (3 calls)" {
		t.Errorf("critical path = %q", got)
	}
	var keys []string
	for _, li := range byTag(byTestID(doc, "dag-final-keys")[0], "li") {
		keys = append(keys, text(li))
	}
	if !slices.Equal(keys, []string{"†state.profile", "†state.summary", "†state.user"}) {
		t.Errorf("final keys = %q", keys)
	}
	if len(byTestID(doc, "dag-blocked")) != 1 || len(byTestID(doc, "dag-unresolved")) != 1 {
		t.Error("blocked calls and unresolved reads should be listed")
	}
}

func TestInstancesDryRun(t *testing.T) {
	p, err := dag.Parse(json.RawMessage(`{"_instances":[{"u":1},{}],"calls":[{"_tool":"t","x":"†state.u","_outputPath":"†state.o"}]}`))
	if err != nil {
		t.Fatal(err)
	}
	doc := render(t, DryRun(NewPlanView("i", p)))
	runs := byTestID(doc, "dag-run")
	if len(runs) != 2 || len(byTestID(runs[0], "dag-unresolved")) != 0 || len(byTestID(runs[1], "dag-unresolved")) != 1 {
		t.Errorf("runs = %s", structure(doc))
	}
}

func TestGenericGraph(t *testing.T) {
	g, err := dag.ParseGraph([]byte(`{"type":"_graph","nodes":[{"id":"a","label":"Start"},{"id":"b","status":"completed"},{"id":"c"}],
		"edges":[{"from":"a","to":"b","label":"go"},{"from":"b","to":"c"},{"from":"c","to":"a","label":"again"},{"from":"c","to":"c","label":"retry"}]}`))
	if err != nil {
		t.Fatal(err)
	}
	v := NewGraphView("g", g)
	doc := render(t, Diagram(v))
	golden(t, "graph", structure(doc))
	var back []*html.Node
	for _, e := range byTestID(doc, "dag-edge") {
		if hasClass(e, "dag-edge-back") {
			back = append(back, e)
		}
	}
	if len(back) != 2 {
		t.Errorf("%d back edges (want the cycle closer and the self-loop)", len(back))
	}
	if attr(byTestID(doc, "dag-node")[0], "data-status") != "none" {
		t.Error("nodes without status")
	}
	rows := byTestID(render(t, Table(v)), "dag-table-row")
	if len(rows) != 3 || text(byTag(rows[2], "td")[1]) != "Start (again), c (retry)" {
		t.Errorf("graph table rows = %d %q", len(rows), text(byTag(rows[2], "td")[1]))
	}
	if len(byTestID(render(t, DryRun(v)), "dag-dryrun")) != 0 {
		t.Error("generic graphs have no dry run")
	}
}
