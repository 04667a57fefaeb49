package main

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"time"
)

// replayAgent is the agent of the replay: it reads the IDE's session/load request, answers it
// with the whole history (the file $1), and then waits for the IDE to hang up, as an agent does.
const replayAgent = `head -n 1 >/dev/null && cat "$1" && exec cat >/dev/null`

// replayFrames is a session/load's answer of n frames: the agent's side of a long session
// (message chunks, tool calls and their updates, a plan update every turn) replayed as
// session/update notifications, then the load's result.
func replayFrames(repo string, n int) (request, replay []byte, err error) {
	mix, err := transcript(repo, 4*n)
	if err != nil {
		return nil, nil, err
	}
	var b bytes.Buffer
	k := 0
	for line := range bytes.Lines(mix) {
		if k == n-1 {
			break
		}
		if bytes.Contains(line, []byte(`"method":"session/update"`)) {
			b.Write(line)
			k++
		}
	}
	if k < n-1 {
		return nil, nil, fmt.Errorf("the transcript holds only %d session/updates", k)
	}
	b.WriteString(`{"jsonrpc":"2.0","id":7,"result":{}}` + "\n")
	request = []byte(`{"jsonrpc":"2.0","id":7,"method":"session/load","params":{"sessionId":"sess_b0c39167111088253d25ea18","cwd":"/home/user/project","mcpServers":[]}}` + "\n")
	return request, b.Bytes(), nil
}

// replayRun is one session/load through a process tree.
type replayRun struct {
	lastByte time.Duration // request written → the replay's last byte read
	exit     time.Duration // request written → the tree exited (the IDE hung up at lastByte)
	cpu      time.Duration // the tree's CPU
	stderr   string
}

// loadThrough starts cmd, writes the session/load request, reads the replay to its last byte,
// then closes stdin (the IDE hangs up) and waits for the tree; it checks every byte came back.
func loadThrough(cmd *exec.Cmd, request, replay []byte) (replayRun, error) {
	var res replayRun
	back, in, out, stderr, err := startPiped(cmd, len(replay))
	if err != nil {
		return res, err
	}
	// Let the tree start (plandash connects to its dashboard) before the clock runs.
	time.Sleep(300 * time.Millisecond)
	start := time.Now()
	_, werr := in.Write(request)
	n := 0
	var rerr error
	for n < len(replay) && werr == nil {
		m, err := out.Read(back[n:])
		n += m
		if err != nil {
			rerr = err
			break
		}
	}
	res.lastByte = time.Since(start)
	cerr := in.Close()
	rest, _ := io.ReadAll(out)
	waitErr := cmd.Wait()
	res.exit = time.Since(start)
	if err := errors.Join(werr, rerr, cerr, waitErr); err != nil {
		return res, fmt.Errorf("%w (stderr: %.500s)", err, stderr.String())
	}
	if !bytes.Equal(back[:n], replay) || len(rest) > 0 {
		return res, fmt.Errorf("%d of %d bytes came back (and %d more), or not the same bytes", n, len(replay), len(rest))
	}
	res.cpu = cmd.ProcessState.UserTime() + cmd.ProcessState.SystemTime()
	res.stderr = strings.TrimSpace(stderr.String())
	return res, nil
}

// benchReplay adds to t the session/load of a long session: n frames from the agent to the IDE
// through `plandash acp` (the tap on, posting to pd) and through `cat | agent | cat`, the proxy's
// shape with cat as its forwarders. The goal: ≤ 1.5× the yardstick's time in every run, with
// every frame on the dashboard at the end.
func benchReplay(ctx context.Context, e *env, pd *server, t *table, n int) error {
	request, replay, err := replayFrames(e.repo, n)
	if err != nil {
		return err
	}
	dir, err := e.tempDir("replay")
	if err != nil {
		return err
	}
	file := filepath.Join(dir, "replay.jsonl")
	if err := os.WriteFile(file, replay, 0o600); err != nil {
		return err
	}
	r := &row{name: fmt.Sprintf("session/load replay, %d frames agent → IDE", n), unit: "s"}
	var exits, dashCPU []float64
	var reached []string
	met := true
	for i := range e.runs {
		ours := func() error {
			cpu0, err := pd.cpu()
			if err != nil {
				return err
			}
			got0, err := e.ingested(ctx, pd)
			if err != nil {
				return err
			}
			cmd := exec.CommandContext(ctx, e.plandash, "acp", "--server", pd.URL, "--token", token,
				"--stream", fmt.Sprintf("replay-%d", i), "--flush", "2m", "--", "sh", "-c", replayAgent, "agent", file)
			cmd.Env = isolatedEnv(e.dir)
			res, err := loadThrough(cmd, request, replay)
			if err != nil {
				return fmt.Errorf("plandash acp: %w", err)
			}
			cpu1, err := pd.cpu()
			if err != nil {
				return err
			}
			got1, err := e.ingested(ctx, pd)
			if err != nil {
				return err
			}
			r.ours, r.cpuOurs = append(r.ours, res.lastByte.Seconds()), append(r.cpuOurs, cpuPer(0, res.cpu, n))
			exits, dashCPU = append(exits, res.exit.Seconds()), append(dashCPU, cpuPer(cpu0, cpu1, n))
			// The request, every frame of the replay and its answer.
			reached = append(reached, fmt.Sprint(got1-got0))
			met = met && got1-got0 >= n+1
			if res.stderr != "" {
				t.notes = append(t.notes, fmt.Sprintf("replay run %d: plandash acp said: %.500s", i+1, res.stderr))
			}
			return settle(ctx)
		}
		yard := func() error {
			cmd := exec.CommandContext(ctx, "sh", "-c", `cat | sh -c '`+replayAgent+`' agent "$0" | cat`, file)
			res, err := loadThrough(cmd, request, replay)
			if err != nil {
				return fmt.Errorf("cat | agent | cat: %w", err)
			}
			r.yard, r.cpuYard = append(r.yard, res.lastByte.Seconds()), append(r.cpuYard, cpuPer(0, res.cpu, n))
			return nil
		}
		if err := settle(ctx); err != nil {
			return err
		}
		if err := pair(i, ours, yard); err != nil {
			return err
		}
	}
	for i := range min(len(r.ours), len(r.yard)) {
		met = met && r.ours[i] <= 1.5*r.yard[i]
	}
	t.rows = append(t.rows, r)
	t.notes = append(t.notes,
		fmt.Sprintf("%s: %.1f MB; yardstick sh -c 'cat | agent | cat', the agent a shell script that answers the load with the history file; goal ≤ 1.5× the yardstick in every run, every frame on the dashboard: %s",
			r.name, float64(len(replay))/1e6, verdict(met)),
		fmt.Sprintf("replay frames that reached the dashboard, of %d (the request, %d frames, the answer), by run: %s; all of them there %s s (median) after the request, the dashboard spending %s µs/frame (median) taking them",
			n+1, n-1, strings.Join(reached, ", "), num(median(exits)), num(median(dashCPU))))
	return nil
}
