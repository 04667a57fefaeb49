package sharedplans

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"
)

// The test binary re-runs itself as a child process when this variable names a mode.
const childEnv = "SHAREDPLANS_TEST_CHILD"

// childResult is what a writer child reports: each successful write as the revision it guarded
// on and the line it appended.
type childResult struct {
	Wins      []childWin
	Conflicts int
}

type childWin struct {
	Guard int
	Line  string
}

// TestChildProcess is not a test: it is the body of the child processes the cross-process and
// watcher tests start. Run normally it does nothing.
func TestChildProcess(t *testing.T) {
	switch os.Getenv(childEnv) {
	case "":
		t.Skip("only runs as a child process")
	case "writer":
		childWriter(t)
	case "write-once":
		s := New(os.Getenv("SHAREDPLANS_DIR"))
		content := os.Getenv("SHAREDPLANS_CONTENT")
		if _, err := s.Upsert(ctxTimeout(t, 30*time.Second), UpsertRequest{Name: os.Getenv("SHAREDPLANS_NAME"), Content: &content}); err != nil {
			t.Fatal(err)
		}
	}
}

// childWriter appends its own lines to one plan with guarded read-modify-write rounds until it
// has won the wanted number of them, counting the rounds it lost.
func childWriter(t *testing.T) {
	id := os.Getenv("SHAREDPLANS_ID")
	want, _ := strconv.Atoi(os.Getenv("SHAREDPLANS_WINS"))
	ts := NewToolset(New(os.Getenv("SHAREDPLANS_DIR")), nil)
	ctx := ctxTimeout(t, 2*time.Minute)
	startLine(t, os.Getenv("SHAREDPLANS_SYNC"), id)

	var res childResult
	for len(res.Wins) < want {
		cur, err := ts.ReadPlan(ctx, ReadPlanArgs{Name: "shared"})
		if err != nil && !errors.Is(err, ErrPlanNotFound) {
			t.Fatal(err)
		}
		line := fmt.Sprintf("%s-%d", id, len(res.Wins))
		// Hold the read a moment so the other process often reads the same revision: most
		// rounds then really are races with one winner and one loser.
		time.Sleep(rand.N(time.Millisecond))
		_, err = ts.WritePlan(ctx, WritePlanArgs{Name: "shared", Content: cur.Content + line + "\n",
			Author: id, LastKnownRevision: intp(cur.Revision)})
		switch {
		case err == nil:
			res.Wins = append(res.Wins, childWin{Guard: cur.Revision, Line: line})
		case errors.Is(err, ErrConflict):
			res.Conflicts++
		default:
			t.Fatal(err)
		}
	}
	out, _ := json.Marshal(res)
	if err := os.WriteFile(os.Getenv("SHAREDPLANS_OUT"), out, 0o600); err != nil {
		t.Fatal(err)
	}
}

// startLine makes the children start their rounds together, so they really compete.
func startLine(t *testing.T, dir, id string) {
	if err := os.WriteFile(filepath.Join(dir, "ready-"+id), nil, 0o600); err != nil {
		t.Fatal(err)
	}
	for deadline := time.Now().Add(time.Minute); time.Now().Before(deadline); time.Sleep(time.Millisecond) {
		if entries, _ := os.ReadDir(dir); len(entries) >= 2 {
			return
		}
	}
	t.Fatal("the other writer never started")
}

func startChild(t *testing.T, ctx context.Context, mode string, env ...string) *exec.Cmd {
	t.Helper()
	cmd := exec.CommandContext(ctx, os.Args[0], "-test.run=^TestChildProcess$", "-test.count=1", "-test.v")
	cmd.Env = append(os.Environ(), append([]string{childEnv + "=" + mode}, env...)...)
	var out strings.Builder
	cmd.Stdout, cmd.Stderr = &out, &out
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		if t.Failed() {
			t.Logf("child %s output:\n%s", mode, out.String())
		}
	})
	return cmd
}

func TestCrossProcessGuardedWriters(t *testing.T) {
	if testing.Short() {
		t.Skip("starts two processes")
	}
	const wins = 200
	dir, scratch, sync := filepath.Join(t.TempDir(), "plans"), t.TempDir(), t.TempDir()
	ctx := ctxTimeout(t, 3*time.Minute)
	var cmds []*exec.Cmd
	for _, id := range []string{"a", "b"} {
		cmds = append(cmds, startChild(t, ctx, "writer", "SHAREDPLANS_DIR="+dir, "SHAREDPLANS_ID="+id,
			"SHAREDPLANS_WINS="+strconv.Itoa(wins), "SHAREDPLANS_SYNC="+sync,
			"SHAREDPLANS_OUT="+filepath.Join(scratch, id+".json")))
	}
	for _, c := range cmds {
		if err := c.Wait(); err != nil {
			t.Fatalf("child: %v", err)
		}
	}

	byGuard := map[int]string{}
	conflicts := 0
	for _, id := range []string{"a", "b"} {
		var res childResult
		if err := json.Unmarshal([]byte(readRaw(t, filepath.Join(scratch, id+".json"))), &res); err != nil {
			t.Fatal(err)
		}
		conflicts += res.Conflicts
		for _, w := range res.Wins {
			// Exactly one winner per round: no revision was the base of two successful writes.
			if other, dup := byGuard[w.Guard]; dup {
				t.Fatalf("revision %d won twice: %s and %s", w.Guard, other, w.Line)
			}
			byGuard[w.Guard] = w.Line
		}
	}
	p, ok, err := New(dir).Get(context.Background(), "shared")
	if err != nil || !ok {
		t.Fatal(ok, err)
	}
	// Nothing lost: every revision comes from a recorded win, and the content holds every
	// winner's line in revision order.
	if p.Revision != 2*wins {
		t.Fatalf("final revision %d, want %d", p.Revision, 2*wins)
	}
	var want []string
	for g := range 2 * wins {
		line, ok := byGuard[g]
		if !ok {
			t.Fatalf("no recorded win for revision %d", g)
		}
		want = append(want, line)
	}
	if got := strings.Split(strings.TrimSuffix(p.Content, "\n"), "\n"); !slices.Equal(got, want) {
		t.Fatalf("content does not account for every win:\n%v\nwant\n%v", got, want)
	}
	if conflicts == 0 {
		t.Fatal("the writers never raced; the test proved nothing")
	}
	t.Logf("%d rounds, %d lost races", 2*wins, conflicts)
}
