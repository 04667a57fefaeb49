package dagview

import (
	"context"
	"fmt"
	"os"
	"testing"
	"time"
)

func TestQuickBig(t *testing.T) {
	for _, n := range []int{40, 100, 1000, 5000} {
		p := randomPlan(t, n, 1)
		st := time.Now()
		v := NewPlanView("p1", p)
		el := time.Since(st)
		f, _ := os.Create(fmt.Sprintf("/tmp/scratch/big%d.html", n))
		f.WriteString(`<!doctype html><html><head><meta charset="utf-8"><link rel="stylesheet" href="/work/main/web/templates/dagview/dag.css"></head><body>`)
		Diagram(v).Render(context.Background(), f)
		f.WriteString(`</body></html>`)
		f.Close()
		fmt.Println(n, len(p.Graph.Edges), v.Geometry.Engine, el, v.Geometry.Width, v.Geometry.Height)
	}
}
