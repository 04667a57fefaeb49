package sharedplans

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/plandash/plandash/internal/files"
)

// toolCase runs one tool call against a fresh store and a scratch directory (the working
// directory the file tools resolve against). In args and texts, {{dir}} is the scratch directory.
type toolCase struct {
	name    string
	setup   func(t *testing.T, s *Store, scratch string)
	args    string
	want    string // exact success text
	wantErr string // exact error text
	kind    error  // sentinel the error must match; nil for storage errors
}

const (
	planP1 = `{"name":"p","content":"body","revision":1,"updatedAt":"` + fixedStamp + `"}`
	badP   = `invalid plan name "P": use only lowercase letters, digits, '-' and '_', starting with a letter or digit`
)

func withPlan(name, content string) func(*testing.T, *Store, string) {
	return func(t *testing.T, s *Store, _ string) { mustWrite(t, s, name, content) }
}

func withRaw(file, data string) func(*testing.T, *Store, string) {
	return func(t *testing.T, s *Store, _ string) { writeRaw(t, s, file, data) }
}

func withFile(rel, data string) func(*testing.T, *Store, string) {
	return func(t *testing.T, _ *Store, scratch string) {
		p := filepath.Join(scratch, rel)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(data), 0o644); err != nil {
			t.Fatal(err)
		}
	}
}

func steps(fs ...func(*testing.T, *Store, string)) func(*testing.T, *Store, string) {
	return func(t *testing.T, s *Store, d string) {
		for _, f := range fs {
			f(t, s, d)
		}
	}
}

func runToolCases(t *testing.T, tool string, cases []toolCase) {
	t.Helper()
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			s, scratch := newTestStore(t), t.TempDir()
			if tc.setup != nil {
				tc.setup(t, s, scratch)
			}
			tl, ok := NewToolset(s, files.WorkingDir(scratch)).Tool(tool)
			if !ok {
				t.Fatalf("no tool %s", tool)
			}
			sub := func(x string) string { return strings.ReplaceAll(x, "{{dir}}", scratch) }
			got, err := tl.Call(context.Background(), []byte(sub(tc.args)))
			if tc.wantErr != "" {
				if err == nil || err.Error() != sub(tc.wantErr) {
					t.Fatalf("error = %v, want %q", err, sub(tc.wantErr))
				}
				if tc.kind != nil && !errors.Is(err, tc.kind) {
					t.Errorf("error %v does not match %v", err, tc.kind)
				}
				return
			}
			if err != nil {
				t.Fatalf("unexpected error: %v", err)
			}
			if got != sub(tc.want) {
				t.Errorf("got  %s\nwant %s", got, sub(tc.want))
			}
		})
	}
}

func TestWritePlanTool(t *testing.T) {
	runToolCases(t, "write_plan", []toolCase{
		{name: "create", args: `{"name":"release","content":"Step 1","title":"Release plan","author":"planner","status":"draft"}`,
			want: `{"name":"release","title":"Release plan","content":"Step 1","author":"planner","status":"draft","revision":1,"updatedAt":"` + fixedStamp + `"}`},
		{name: "html escaped like docker-agent", args: `{"name":"p","content":"<b>&"}`,
			want: `{"name":"p","content":"\u003cb\u003e\u0026","revision":1,"updatedAt":"` + fixedStamp + `"}`},
		{name: "empty content checked before the name", args: `{"name":"BAD","content":""}`, wantErr: "content must not be empty", kind: ErrInvalid},
		{name: "invalid name", args: `{"name":"P","content":"x"}`, wantErr: badP, kind: ErrInvalid},
		{name: "traversal name", args: `{"name":"../etc/passwd","content":"x"}`,
			wantErr: `invalid plan name "../etc/passwd": use only lowercase letters, digits, '-' and '_', starting with a letter or digit`, kind: ErrInvalid},
		{name: "empty metadata keeps the old", setup: func(t *testing.T, s *Store, _ string) {
			if _, err := s.Upsert(context.Background(), UpsertRequest{Name: "p", Content: strp("a"), Title: strp("T"), Status: strp("s")}); err != nil {
				t.Fatal(err)
			}
		}, args: `{"name":"p","content":"b","title":"","last_known_revision":1}`,
			want: `{"name":"p","title":"T","content":"b","status":"s","revision":2,"updatedAt":"` + fixedStamp + `"}`},
		{name: "stale guard", setup: steps(withPlan("p", "a"), withPlan("p", "b")), args: `{"name":"p","content":"c","last_known_revision":1}`,
			wantErr: `version conflict on plan "p": last_known_revision 1 does not match current revision 2; re-read the plan and retry`, kind: ErrConflict},
		{name: "guard 0 creates only if absent", setup: withPlan("p", "a"), args: `{"name":"p","content":"c","last_known_revision":0}`,
			wantErr: `version conflict on plan "p": last_known_revision 0 does not match current revision 1; re-read the plan and retry`, kind: ErrConflict},
		{name: "non-zero guard on a missing plan", args: `{"name":"p","content":"c","last_known_revision":3}`,
			wantErr: `version conflict on plan "p": last_known_revision 3 does not match current revision 0; re-read the plan and retry`, kind: ErrConflict},
		{name: "null guard is no guard", setup: withPlan("p", "a"), args: `{"name":"p","content":"body","last_known_revision":null}`,
			want: `{"name":"p","content":"body","revision":2,"updatedAt":"` + fixedStamp + `"}`},
		{name: "corrupt file stops the write", setup: withRaw("p.json", `{"name":`), args: `{"name":"p","content":"x"}`,
			wantErr: "plan file p.json is corrupt: unexpected end of JSON input", kind: ErrCorrupt},
		{name: "content over 10 MiB", args: `{"name":"p","content":"` + strings.Repeat("x", MaxContentSize+1) + `"}`,
			wantErr: `plan "p" content is too large to store (10485761 bytes; max 10485760)`, kind: ErrInvalid},
		{name: "bad arguments", args: `{"name":1}`, wantErr: `argument "name" must be a string, not an integer`, kind: ErrInvalid},
	})
}

func TestWritePlanAcceptsExactly10MiB(t *testing.T) {
	s := newTestStore(t)
	p, err := NewToolset(s, nil).WritePlan(context.Background(), WritePlanArgs{Name: "big", Content: strings.Repeat("\x00", MaxContentSize)})
	if err != nil || p.Revision != 1 {
		t.Fatalf("%v", err)
	}
	// Worst-case escaping (6 bytes per byte) must still load back.
	if _, ok, err := s.Get(context.Background(), "big"); !ok || err != nil {
		t.Fatalf("reload: %v %v", ok, err)
	}
}

func TestReadPlanTool(t *testing.T) {
	runToolCases(t, "read_plan", []toolCase{
		{name: "ok", setup: withPlan("p", "body"), args: `{"name":"p"}`, want: planP1},
		{name: "missing", args: `{"name":"p"}`, wantErr: `plan "p" not found`, kind: ErrPlanNotFound},
		{name: "invalid name", args: `{"name":"P"}`, wantErr: badP, kind: ErrInvalid},
		{name: "empty arguments are {}", args: ``, wantErr: `missing required argument "name"`, kind: ErrInvalid},
		{name: "double-encoded arguments", setup: withPlan("p", "body"), args: `"{\"name\":\"p\"}"`, want: planP1},
		{name: "corrupt", setup: withRaw("broken.json", `{name}`), args: `{"name":"broken"}`,
			wantErr: "plan file broken.json is corrupt: invalid character 'n' looking for beginning of object key string", kind: ErrCorrupt},
		{name: "empty file", setup: withRaw("p.json", ``), args: `{"name":"p"}`, wantErr: "plan file p.json is corrupt: unexpected end of JSON input", kind: ErrCorrupt},
	})
}

func TestUpdatePlanFromFileTool(t *testing.T) {
	runToolCases(t, "update_plan_from_file", []toolCase{
		{name: "ok relative to the working dir", setup: withFile("notes/p.md", "body"), args: `{"name":"p","path":"notes/p.md"}`, want: planP1},
		{name: "ok absolute", setup: withFile("p.md", "body"), args: `{"name":"p","path":"{{dir}}/p.md"}`, want: planP1},
		{name: "empty path", args: `{"name":"p","path":""}`, wantErr: "path must not be empty", kind: ErrInvalid},
		{name: "missing source", args: `{"name":"p","path":"nope.md"}`, wantErr: `file "nope.md" does not exist`, kind: ErrInvalid},
		{name: "source is a directory", setup: withFile("d/x", "x"), args: `{"name":"p","path":"d"}`, wantErr: `path "d" is a directory, not a file`, kind: ErrInvalid},
		{name: "empty source", setup: withFile("e.md", ""), args: `{"name":"p","path":"e.md"}`, wantErr: "file is empty; plan content must not be empty", kind: ErrInvalid},
		{name: "name checked after the file", setup: withFile("p.md", "x"), args: `{"name":"P","path":"p.md"}`, wantErr: badP, kind: ErrInvalid},
		{name: "bad name, missing file: file error first", args: `{"name":"P","path":"nope.md"}`, wantErr: `file "nope.md" does not exist`, kind: ErrInvalid},
		{name: "stale guard", setup: steps(withPlan("p", "a"), withFile("p.md", "x")), args: `{"name":"p","path":"p.md","last_known_revision":7}`,
			wantErr: `version conflict on plan "p": last_known_revision 7 does not match current revision 1; re-read the plan and retry`, kind: ErrConflict},
	})
}

func TestExportPlanToFileTool(t *testing.T) {
	runToolCases(t, "export_plan_to_file", []toolCase{
		{name: "ok, path echoed as given", setup: func(t *testing.T, s *Store, _ string) {
			if _, err := s.Upsert(context.Background(), UpsertRequest{Name: "p", Content: strp("héllo"), Title: strp("T"), Status: strp("s")}); err != nil {
				t.Fatal(err)
			}
		}, args: `{"name":"p","path":"./out/../out/p.md"}`, want: `{"name":"p","path":"./out/../out/p.md","title":"T","status":"s","revision":1,"bytesWritten":6}`},
		{name: "empty path", setup: withPlan("p", "x"), args: `{"name":"p","path":""}`, wantErr: "path must not be empty", kind: ErrInvalid},
		{name: "missing plan", args: `{"name":"p","path":"x.md"}`, wantErr: `plan "p" not found`, kind: ErrPlanNotFound},
		{name: "invalid name", args: `{"name":"P","path":"x.md"}`, wantErr: badP, kind: ErrInvalid},
		{name: "destination is a directory", setup: steps(withPlan("p", "x"), withFile("d/f", "")), args: `{"name":"p","path":"d"}`,
			wantErr: `path "d" is a directory, not a file`, kind: ErrInvalid},
	})
}

func TestExportWritesFile(t *testing.T) {
	s, scratch := newTestStore(t), t.TempDir()
	mustWrite(t, s, "p", "new body")
	dest := filepath.Join(scratch, "a", "b", "p.md")
	if err := os.MkdirAll(filepath.Dir(filepath.Dir(dest)), 0o755); err != nil {
		t.Fatal(err)
	}
	ts := NewToolset(s, files.WorkingDir(scratch))
	for range 2 { // the second export overwrites the first
		if _, err := ts.ExportPlanToFile(context.Background(), ExportPlanToFileArgs{Name: "p", Path: "a/b/p.md"}); err != nil {
			t.Fatal(err)
		}
	}
	if got := readRaw(t, dest); got != "new body" {
		t.Errorf("content %q", got)
	}
	if m := mode(t, dest); m != 0o600 {
		t.Errorf("file mode %o, want 600", m)
	}
	if m := mode(t, filepath.Dir(dest)); m != 0o700 {
		t.Errorf("created parent mode %o, want 700", m)
	}
	// Round trip: edit on disk, commit back.
	if err := os.WriteFile(dest, []byte("edited"), 0o600); err != nil {
		t.Fatal(err)
	}
	p, err := ts.UpdatePlanFromFile(context.Background(), UpdatePlanFromFileArgs{Name: "p", Path: dest, LastKnownRevision: intp(1)})
	if err != nil || p.Content != "edited" || p.Revision != 2 {
		t.Fatalf("%+v %v", p, err)
	}
}

func TestSetPlanStatusTool(t *testing.T) {
	runToolCases(t, "set_plan_status", []toolCase{
		{name: "keeps the body, bumps the revision", setup: withPlan("p", "body"), args: `{"name":"p","status":"done","last_known_revision":1}`,
			want: `{"name":"p","status":"done","revision":2}`},
		{name: "empty status", args: `{"name":"P","status":""}`, wantErr: "status must not be empty", kind: ErrInvalid},
		{name: "missing plan", args: `{"name":"p","status":"done"}`, wantErr: `plan not found: "p"`, kind: ErrPlanNotFound},
		{name: "missing plan beats the guard", args: `{"name":"p","status":"done","last_known_revision":4}`, wantErr: `plan not found: "p"`, kind: ErrPlanNotFound},
		{name: "invalid name", args: `{"name":"P","status":"done"}`, wantErr: badP, kind: ErrInvalid},
		{name: "stale guard", setup: withPlan("p", "x"), args: `{"name":"p","status":"done","last_known_revision":0}`,
			wantErr: `version conflict on plan "p": last_known_revision 0 does not match current revision 1; re-read the plan and retry`, kind: ErrConflict},
	})
}

func TestGetPlanStatusTool(t *testing.T) {
	runToolCases(t, "get_plan_status", []toolCase{
		{name: "unset status is an empty string", setup: withPlan("p", "x"), args: `{"name":"p"}`, want: `{"name":"p","status":"","revision":1}`},
		{name: "missing", args: `{"name":"p"}`, wantErr: `plan "p" not found`, kind: ErrPlanNotFound},
		{name: "invalid name", args: `{"name":"P"}`, wantErr: badP, kind: ErrInvalid},
	})
}

func TestListPlansTool(t *testing.T) {
	runToolCases(t, "list_plans", []toolCase{
		{name: "missing directory", args: ``, want: `{"plans":[]}`},
		{name: "empty directory", setup: withRaw(LockFileName, ""), args: `{}`, want: `{"plans":[]}`},
		{name: "sorted, no content, warnings for bad files, foreign entries skipped",
			setup: steps(withPlan("zeta", "z"), withPlan("alpha", "a"),
				withRaw("broken.json", `{name}`), withRaw("empty.json", ``),
				withRaw("zeta.json1234567", "temp file"), withRaw("notes.txt", "x"), withRaw("UPPER.json", `{"revision":2}`),
				func(t *testing.T, s *Store, _ string) {
					if err := os.Mkdir(filepath.Join(s.Dir(), "dir.json"), 0o700); err != nil {
						t.Fatal(err)
					}
				}),
			args: `{}`,
			want: `{"plans":[{"name":"UPPER","revision":2,"updatedAt":""},` +
				`{"name":"alpha","revision":1,"updatedAt":"` + fixedStamp + `"},{"name":"zeta","revision":1,"updatedAt":"` + fixedStamp + `"}],` +
				`"warnings":["skipped \"broken\": plan file broken.json is corrupt: invalid character 'n' looking for beginning of object key string",` +
				`"skipped \"empty\": plan file empty.json is corrupt: unexpected end of JSON input"]}`},
	})
}

func TestDeletePlanTool(t *testing.T) {
	runToolCases(t, "delete_plan", []toolCase{
		{name: "ok", setup: withPlan("p", "x"), args: `{"name":"p"}`, want: `{"deleted":"p"}`},
		{name: "guarded ok", setup: withPlan("p", "x"), args: `{"name":"p","last_known_revision":1}`, want: `{"deleted":"p"}`},
		{name: "missing", args: `{"name":"p"}`, wantErr: `plan "p" not found`, kind: ErrPlanNotFound},
		{name: "guarded missing is not found, not a conflict", args: `{"name":"p","last_known_revision":2}`, wantErr: `plan "p" not found`, kind: ErrPlanNotFound},
		{name: "stale guard", setup: withPlan("p", "x"), args: `{"name":"p","last_known_revision":2}`,
			wantErr: `version conflict on plan "p": last_known_revision 2 does not match current revision 1; re-read the plan and retry`, kind: ErrConflict},
		{name: "invalid name", args: `{"name":"P"}`, wantErr: badP, kind: ErrInvalid},
		{name: "unguarded delete removes a corrupt plan", setup: withRaw("p.json", "garbage"), args: `{"name":"p"}`, want: `{"deleted":"p"}`},
		{name: "guarded delete of a corrupt plan", setup: withRaw("p.json", "garbage"), args: `{"name":"p","last_known_revision":1}`,
			wantErr: "plan file p.json is corrupt: invalid character 'g' looking for beginning of value", kind: ErrCorrupt},
	})
}

func TestToolTable(t *testing.T) {
	tools := NewToolset(newTestStore(t), nil).Tools()
	var names []string
	for _, tl := range tools {
		names = append(names, tl.Name)
	}
	want := "write_plan read_plan update_plan_from_file export_plan_to_file set_plan_status get_plan_status list_plans delete_plan"
	if got := strings.Join(names, " "); got != want {
		t.Fatalf("order %s", got)
	}
	checkSchemas(t, tools)
}

func TestFileToolsDisabledWithoutPolicy(t *testing.T) {
	ts := NewToolset(newTestStore(t), nil)
	_, err := ts.UpdatePlanFromFile(context.Background(), UpdatePlanFromFileArgs{Name: "p", Path: "/etc/hostname"})
	if !errors.Is(err, ErrPathDenied) {
		t.Fatalf("update: %v", err)
	}
	mustWrite(t, ts.Store(), "p", "x")
	if _, err := ts.ExportPlanToFile(context.Background(), ExportPlanToFileArgs{Name: "p", Path: "/tmp/x"}); !errors.Is(err, ErrPathDenied) {
		t.Fatalf("export: %v", err)
	}
}
