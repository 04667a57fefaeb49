package dagview

import (
	"context"
	"encoding/json"
	"os"
	"testing"

	"github.com/plandash/plandash/internal/dag"
)

func TestQuickRender(t *testing.T) {
	raw := `{"calls":[
  {"_tool": "fetchUserProfile", "userName": "Alice <b>", "_outputPath": "†state.userProfileData", "_status":"completed"},
  {"_tool": "summarizeProfile", "profile": "†state.userProfileData", "opts": {"x": ["†state.userProfileData.name"]}, "_outputPath": "†state.profileSummary", "_status":"in_progress"},
  {"_tool": "x", "a": "†state.nothing", "_id": "z", "b": "†state.q"},
  {"_tool": "loop1", "a": "†state.l2", "_outputPath": "†state.l1"},
  {"_tool": "loop2", "a": "†state.l1", "_outputPath": "†state.l2"},
  {"_tool": "lonely", "_title": "<script>alert(1)</script>"}
], "_state": {"q": 1}}`
	p, err := dag.Parse(json.RawMessage(raw))
	if err != nil {
		t.Fatal(err)
	}
	v := NewPlanView("p1", p)
	f, _ := os.Create("/tmp/scratch/out.html")
	f.WriteString(`<!doctype html><html><head><meta charset="utf-8"><link rel="stylesheet" href="/work/main/web/templates/dagview/dag.css"></head><body>`)
	Diagram(v).Render(context.Background(), f)
	Table(v).Render(context.Background(), f)
	Problems(v).Render(context.Background(), f)
	DryRun(v).Render(context.Background(), f)
	f.WriteString(`</body></html>`)
	f.Close()
}
