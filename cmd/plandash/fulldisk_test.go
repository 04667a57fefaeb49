package main

import (
	"bufio"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/plandash/plandash/internal/testdisk"
)

// TestServeOnFullDisk: the real binary serves on a small disk, takes a plan, and is killed with
// SIGKILL; the disk fills up; serve starts again anyway (the address file it cannot write is
// only warned about) and answers reads from the database.
func TestServeOnFullDisk(t *testing.T) {
	data := filepath.Join(testdisk.Mount(t, 16<<20), "data")
	bin := filepath.Join(t.TempDir(), "plandash")
	if out, err := exec.Command("go", "build", "-buildvcs=false", "-o", bin, ".").CombinedOutput(); err != nil {
		t.Fatalf("go build: %v\n%s", err, out)
	}
	env := testEnv(t)
	args := []string{"serve", "--addr", "127.0.0.1:0", "--data", data, "--plans-dir", filepath.Join(t.TempDir(), "plans")}

	cmd := exec.Command(bin, args...)
	cmd.Env = []string{"HOME=" + env("HOME"), "XDG_DATA_HOME=" + env("XDG_DATA_HOME"), "PATH=" + os.Getenv("PATH")}
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cmd.Process.Kill(); cmd.Wait() })
	var base, token, printed string
	for sc := bufio.NewScanner(out); sc.Scan(); {
		printed += sc.Text() + "\n"
		if m := dashboardLine.FindStringSubmatch(printed); m != nil {
			base, token = m[1], tokenIn(t, m[2], args)
			break
		}
	}
	if base == "" {
		t.Fatalf("the first server printed no address:\n%s", printed)
	}
	line := `{"jsonrpc":"2.0","method":"session/update","params":{"sessionId":"full-1","update":{"sessionUpdate":"plan","entries":[{"content":"Survive a full disk","priority":"high","status":"pending"}]}}}`
	req, err := http.NewRequest("POST", base+"/api/v1/ingest", strings.NewReader(line))
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Authorization", "Bearer "+token)
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode/100 != 2 {
		t.Fatalf("ingest: %d", resp.StatusCode)
	}
	if err := cmd.Process.Kill(); err != nil {
		t.Fatal(err)
	}
	cmd.Wait()

	defer testdisk.Fill(t, data)()
	s := startServerEnv(t, env, args...)
	if code, body := s.get(t, "/api/v1/sessions/full-1"); code != http.StatusOK || !strings.Contains(string(body), "Survive a full disk") {
		t.Fatalf("reading on a full disk: %d %s", code, body)
	}
	if !strings.Contains(s.stderr.String(), "could not record the address") {
		t.Errorf("no warning about the address file:\n%s", s.stderr.String())
	}
}
