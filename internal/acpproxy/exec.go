package acpproxy

import (
	"io"
	"os"
	"os/exec"
	"runtime"
	"sync"
	"time"
)

// Agent runs the real agent process behind a Proxy: its stdin and stdout are the proxy's agent
// side, its stderr is whatever Cmd.Stderr is (the proxy's own stderr, passed straight through),
// and it gets the signals the proxy gets.
//
// The agent runs in a process group of its own (so a terminal's Ctrl-C reaches it once, through
// the proxy), which also means nothing the IDE does to the proxy's group reaches the agent's
// children. So the proxy ends the agent's whole group itself, whenever it ends: after the
// agent exited and its output was drained, and (on unix) even when the proxy is killed with
// SIGKILL, through a guard process in the agent's group that outlives it (see startGuard). On
// Linux the agent also gets SIGTERM the moment the proxy dies (Pdeathsig). A descendant that
// left the group on purpose (setsid, a daemon) is not followed.
type Agent struct {
	Cmd *exec.Cmd
	// Signals are forwarded to the agent as they arrive. The proxy does not stop on them: it
	// ends when the agent does, with its exit code.
	Signals <-chan os.Signal
	// StopGrace is how long the agent may run on after the IDE closed its input (and again after
	// SIGTERM) before it is stopped harder. Default 5 s.
	StopGrace time.Duration
	// Drain is how long output is still read after the agent exited, for a child of the agent
	// that holds its stdout open. Default 2 s.
	Drain time.Duration
}

// Run starts the agent, proxies p to it until it has exited and its output is drained, and
// returns its exit code: the code it exited with, or 128+N when signal N ended it, as a shell
// reports it.
func (a *Agent) Run(p *Proxy) (int, error) {
	if a.StopGrace <= 0 {
		a.StopGrace = 5 * time.Second
	}
	if a.Drain <= 0 {
		a.Drain = 2 * time.Second
	}
	// Pipes of our own rather than StdinPipe/StdoutPipe: Wait then never closes the read end
	// under the forwarding goroutine, and the child gets real files, so exec adds no copying
	// goroutine of its own.
	inR, inW, err := os.Pipe()
	if err != nil {
		return 1, err
	}
	outR, outW, err := os.Pipe()
	if err != nil {
		inR.Close()
		inW.Close()
		return 1, err
	}
	a.Cmd.Stdin, a.Cmd.Stdout = inR, outW
	// The guard first, the agent in its group: the group ends when Run returns or the process
	// dies, whichever comes first.
	pgid, endGroup := startGuard()
	ownProcessGroup(a.Cmd, pgid)
	exited := make(chan struct{})
	if err := a.start(exited); err != nil {
		for _, f := range []*os.File{inR, inW, outR, outW} {
			f.Close()
		}
		if endGroup != nil {
			endGroup()
		}
		return 127, err
	}
	inR.Close()
	outW.Close()
	if endGroup == nil {
		pid := a.Cmd.Process.Pid
		endGroup = func() { killGroup(pid) }
	}
	defer endGroup()
	go a.forwardSignals(exited)

	stdinClosed := make(chan struct{})
	agentIn := &closeNotifier{Writer: inW, c: inW, closed: stdinClosed}
	p.AgentIn, p.AgentOut = agentIn, outR
	// An IDE that stops reading is gone: end the agent's input so it ends too.
	gone := p.OnClientGone
	p.OnClientGone = func() {
		agentIn.Close()
		if gone != nil {
			gone()
		}
	}
	go a.stopAfterInputEnds(stdinClosed, exited)

	done := make(chan error, 1)
	go func() { done <- p.Run() }()
	var runErr error
	select {
	case runErr = <-done:
		// The agent closed its output: it can never answer again. Closing its input tells it so;
		// if it lingers, stopAfterInputEnds ends it.
		agentIn.Close()
		<-exited
	case <-exited:
		select {
		case runErr = <-done:
		case <-time.After(a.Drain):
			outR.Close() // a grandchild holds the pipe open; stop reading it
			runErr = <-done
		}
	}
	outR.Close()
	agentIn.Close()
	return exitStatus(a.Cmd.ProcessState), runErr
}

// start starts the agent and waits for it on a goroutine locked to the OS thread that forked it,
// closing exited when it has exited. Pdeathsig fires when the forking thread ends, not the
// process: the thread is kept, locked, until the agent is gone, so the Go runtime cannot retire
// it and kill the agent early.
func (a *Agent) start(exited chan<- struct{}) error {
	started := make(chan error, 1)
	go func() {
		runtime.LockOSThread()
		defer runtime.UnlockOSThread()
		err := a.Cmd.Start()
		started <- err
		if err != nil {
			return
		}
		a.Cmd.Wait()
		close(exited)
	}()
	return <-started
}

func (a *Agent) forwardSignals(exited <-chan struct{}) {
	for {
		select {
		case <-exited:
			return
		case s, ok := <-a.Signals:
			if !ok {
				return
			}
			a.Cmd.Process.Signal(s)
		}
	}
}

// stopAfterInputEnds ends an agent that keeps running after its input closed: without input it
// can never be asked anything again.
func (a *Agent) stopAfterInputEnds(stdinClosed, exited <-chan struct{}) {
	select {
	case <-exited:
		return
	case <-stdinClosed:
	}
	for _, stop := range []func() error{a.terminate, a.Cmd.Process.Kill} {
		select {
		case <-exited:
			return
		case <-time.After(a.StopGrace):
		}
		stop()
	}
}

// closeNotifier closes the agent's stdin once and says so.
type closeNotifier struct {
	io.Writer
	c      io.Closer
	once   sync.Once
	closed chan struct{}
}

// Close closes the pipe the first time; later calls do nothing.
func (n *closeNotifier) Close() error {
	var err error
	n.once.Do(func() {
		err = n.c.Close()
		close(n.closed)
	})
	return err
}
