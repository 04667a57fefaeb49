package acpproxy

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"strings"
	"sync"
	"testing"

	"github.com/plandash/plandash/internal/acp"
	"github.com/santhosh-tekuri/jsonschema/v6"
)

// The official unstable v1 schema (shared/acp/schema.unstable.json), copied into testdata so the
// test runs without the shared folder; when the folder is there, the copy must match it.
const (
	schemaCopy   = "testdata/acp-schema/schema.unstable.json"
	schemaShared = "../../../shared/acp/schema.unstable.json"
	schemaURL    = "file:///acp/schema.unstable.json"
)

// methodSchemas validates frames per method, as spec §1.2 describes: params and results are
// looked up by the x-method and x-side tags of their definitions, not matched against the root
// anyOf, which would let one method's params pass for another's.
type methodSchemas struct {
	root    *jsonschema.Schema
	params  map[string]*jsonschema.Schema // requests and notifications
	results map[string]*jsonschema.Schema
	side    map[string]string // x-side: who handles the method
}

var schemas struct {
	once sync.Once
	s    *methodSchemas
	err  error
}

func loadSchemas(t *testing.T) *methodSchemas {
	t.Helper()
	schemas.once.Do(func() { schemas.s, schemas.err = compileSchemas() })
	if schemas.err != nil {
		t.Fatal(schemas.err)
	}
	return schemas.s
}

func compileSchemas() (*methodSchemas, error) {
	raw, err := os.ReadFile(schemaCopy)
	if err != nil {
		return nil, err
	}
	if shared, err := os.ReadFile(schemaShared); err == nil && !bytes.Equal(shared, raw) {
		return nil, fmt.Errorf("%s differs from %s: copy the new schema into testdata", schemaCopy, schemaShared)
	}
	doc, err := jsonschema.UnmarshalJSON(bytes.NewReader(raw))
	if err != nil {
		return nil, err
	}
	c := jsonschema.NewCompiler()
	if err := c.AddResource(schemaURL, doc); err != nil {
		return nil, err
	}
	var defs struct {
		Defs map[string]struct {
			Method string `json:"x-method"`
			Side   string `json:"x-side"`
		} `json:"$defs"`
	}
	if err := json.Unmarshal(raw, &defs); err != nil {
		return nil, err
	}
	ms := &methodSchemas{params: map[string]*jsonschema.Schema{}, results: map[string]*jsonschema.Schema{}, side: map[string]string{}}
	if ms.root, err = c.Compile(schemaURL); err != nil {
		return nil, err
	}
	for name, d := range defs.Defs {
		if d.Method == "" {
			continue
		}
		sch, err := c.Compile(schemaURL + "#/$defs/" + name)
		if err != nil {
			return nil, fmt.Errorf("%s: %w", name, err)
		}
		ms.side[d.Method] = d.Side
		if strings.HasSuffix(name, "Response") {
			ms.results[d.Method] = sch
		} else {
			ms.params[d.Method] = sch
		}
	}
	return ms, nil
}

func instance(b []byte) (any, error) { return jsonschema.UnmarshalJSON(bytes.NewReader(b)) }

// check validates the frames one peer received, in direction dir: with responses false the
// requests and notifications (recording request ids in sent), with responses true the responses
// (answered maps the other direction's request ids to their methods).
func (ms *methodSchemas) check(t *testing.T, name string, dir acp.Direction, raw []byte, responses bool, sent, answered map[string]string) {
	t.Helper()
	for i, line := range bytes.Split(raw, []byte("\n")) {
		if len(bytes.TrimSpace(line)) == 0 {
			continue
		}
		where := fmt.Sprintf("%s, %s frame %d: %s", name, dir, i+1, line)
		msgs, err := acp.DecodeLine(line)
		if err != nil || len(msgs) != 1 {
			t.Errorf("%s: not one JSON-RPC message: %v", where, err)
			continue
		}
		m := msgs[0]
		if m.IsResponse() != responses {
			continue
		}
		inst, err := instance(line)
		if err == nil {
			err = ms.root.Validate(inst)
		}
		if err != nil {
			t.Errorf("%s: invalid: %v", where, err)
			continue
		}
		var sch *jsonschema.Schema
		var part json.RawMessage
		key, _ := acp.IDKey(m.ID)
		switch {
		case m.Method != "":
			sch, part = ms.params[m.Method], m.Params
			if side := ms.side[m.Method]; side == "agent" && dir != acp.ClientToAgent || side == "client" && dir != acp.AgentToClient {
				t.Errorf("%s: %s is handled by the %s, but went %s", where, m.Method, side, dir)
			}
			if m.IsRequest() {
				sent[key] = m.Method
			}
		case m.Result != nil:
			method, ok := answered[key]
			if !ok {
				t.Errorf("%s: answers no request", where)
				continue
			}
			sch, part = ms.results[method], m.Result
		default:
			continue // an error response: the root schema covers it
		}
		if sch == nil {
			t.Errorf("%s: no schema for method %q", where, m.Method)
			continue
		}
		if inst, err = instance(part); err == nil {
			err = sch.Validate(inst)
		}
		if err != nil {
			t.Errorf("%s: invalid for its method: %v", where, err)
		}
	}
}

// checkRun validates everything the proxy wrote to both peers of a run.
func checkRun(t *testing.T, name string, toAgent, toIDE []byte) {
	t.Helper()
	ms := loadSchemas(t)
	c2a, a2c := map[string]string{}, map[string]string{}
	ms.check(t, name, acp.ClientToAgent, toAgent, false, c2a, nil)
	ms.check(t, name, acp.AgentToClient, toIDE, false, a2c, nil)
	ms.check(t, name, acp.ClientToAgent, toAgent, true, nil, a2c)
	ms.check(t, name, acp.AgentToClient, toIDE, true, nil, c2a)
}

func TestProxyFramesValidateAgainstSchema(t *testing.T) {
	answerIDE := func(id, _ json.RawMessage) string { return `{"outcome":{"outcome":"selected","optionId":"allow"}}` }
	t.Run("transparent, IDE with plan", func(t *testing.T) {
		r := startRun(t, &Proxy{Tap: NewTap(TapOptions{})})
		r.ide.answer = answerIDE
		sess := r.ide.open(true)
		r.ide.prompt(sess, "plans progress remove permission done")
		r.wait()
		checkRun(t, "transparent", r.agentReceived(), r.ide.received())
	})
	t.Run("bridge toward an IDE without plan", func(t *testing.T) {
		r := startRun(t, &Proxy{PlanUpdates: true})
		sess := r.ide.open(false)
		r.ide.prompt(sess, "plans progress remove cancelled done")
		r.wait()
		checkRun(t, "bridge", r.agentReceived(), r.ide.received())
		if n := len(updates(t, r.ide.received())); n != 5 {
			t.Errorf("the IDE got %d plan frames, want 5", n)
		}
	})
	t.Run("dashboard answers first", func(t *testing.T) {
		broker := newFakeBroker()
		r := startRun(t, &Proxy{Approvals: ApprovalsBoth, Broker: broker, PlanUpdates: true})
		sess := r.ide.open(false)
		promptUntilDone(t, r.ide, sess, "plans permission", func(m acp.Message) {
			switch m.Method {
			case acp.MethodRequestPermission:
				if err := broker.offer(t).answer(allow); err != nil {
					t.Fatal(err)
				}
			case acp.MethodCancelRequest:
				r.ide.send(fmt.Sprintf(`{"jsonrpc":"2.0","id":%s,"result":{"outcome":{"outcome":"cancelled"}}}`, m.Params[len(`{"requestId":`):len(m.Params)-1]))
			}
		})
		r.wait()
		checkRun(t, "dashboard first", r.agentReceived(), r.ide.received())
	})
	t.Run("dashboard only, turn cancelled", func(t *testing.T) {
		broker := newFakeBroker()
		pp := startPipes(t, &Proxy{Approvals: ApprovalsDashboard, Broker: broker})
		var toAgent, toIDE bytes.Buffer
		io.WriteString(pp.agentW, permReq+"\n")
		broker.offer(t)
		io.WriteString(pp.ideW, `{"jsonrpc":"2.0","method":"session/cancel","params":{"sessionId":"s1"}}`+"\n")
		toAgent.WriteString(readLine(t, pp.agent) + "\n" + readLine(t, pp.agent) + "\n")
		io.WriteString(pp.agentW, `{"jsonrpc":"2.0","method":"session/update","params":{"sessionId":"s1","update":{"sessionUpdate":"plan","entries":[]}}}`+"\n")
		toIDE.WriteString(readLine(t, pp.ide) + "\n")
		ms := loadSchemas(t)
		asked := map[string]string{"sp-1": acp.MethodRequestPermission}
		ms.check(t, "dashboard only", acp.ClientToAgent, toAgent.Bytes(), false, map[string]string{}, nil)
		ms.check(t, "dashboard only", acp.ClientToAgent, toAgent.Bytes(), true, nil, asked)
		ms.check(t, "dashboard only", acp.AgentToClient, toIDE.Bytes(), false, map[string]string{}, nil)
	})
	t.Run("Go SDK exchange", func(t *testing.T) {
		raw, err := os.ReadFile(gosdkExchange)
		if err != nil {
			t.Fatal(err)
		}
		var fromIDE, fromAgent bytes.Buffer
		for _, line := range bytes.SplitAfter(raw, []byte("\n")) {
			msgs, err := acp.DecodeLine(line)
			if err != nil {
				continue
			}
			// The agent sends what the client handles, and the answers to the client's requests;
			// the only answer the client sends here is the permission outcome.
			m := msgs[0]
			if m.Method != "" && acp.MethodSender(m.Method) == acp.AgentToClient || m.IsResponse() && !bytes.Contains(line, []byte(`"outcome"`)) {
				fromAgent.Write(line)
			} else {
				fromIDE.Write(line)
			}
		}
		pp := startPipes(t, &Proxy{Tap: NewTap(TapOptions{})})
		go io.Copy(pp.ideW, bytes.NewReader(fromIDE.Bytes()))
		go io.Copy(pp.agentW, bytes.NewReader(fromAgent.Bytes()))
		toAgent := readN(t, pp.agent, bytes.Count(fromIDE.Bytes(), []byte("\n")))
		toIDE := readN(t, pp.ide, bytes.Count(fromAgent.Bytes(), []byte("\n")))
		if !bytes.Equal(toAgent, fromIDE.Bytes()) || !bytes.Equal(toIDE, fromAgent.Bytes()) {
			t.Fatal("the Go SDK exchange was changed in transit")
		}
		checkRun(t, "go sdk", toAgent, toIDE)
	})
}

func readN(t *testing.T, r interface{ ReadString(byte) (string, error) }, n int) []byte {
	t.Helper()
	var out bytes.Buffer
	for range n {
		s, err := r.ReadString('\n')
		if err != nil {
			t.Fatalf("after %d lines: %v", out.Len(), err)
		}
		out.WriteString(s)
	}
	return out.Bytes()
}

// TestSchemaCheckRejects makes sure the per-method lookup has teeth: frames the bridge must
// never write fail it.
func TestSchemaCheckRejects(t *testing.T) {
	ms := loadSchemas(t)
	for _, tc := range []struct {
		method, params string
		ok             bool
	}{
		{acp.MethodSessionUpdate, `{"sessionId":"s","update":{"sessionUpdate":"plan","entries":[{"content":"a","priority":"high","status":"pending"}]}}`, true},
		{acp.MethodSessionUpdate, `{"sessionId":"s","update":{"sessionUpdate":"plan","entries":[{"content":"a","priority":"high","status":"cancelled"}]}}`, false},
		{acp.MethodSessionUpdate, `{"sessionId":"s","update":{"sessionUpdate":"plan_update","plan":{"type":"items","id":"old","entries":[]}}}`, false},
		{acp.MethodSessionUpdate, `{"sessionId":"s","update":{"sessionUpdate":"plan_update","plan":{"type":"items","planId":"p","entries":[]}}}`, true},
		{acp.MethodInitialize, `{"clientCapabilities":{"plan":{}}}`, false},
		{acp.MethodInitialize, `{"protocolVersion":1,"clientCapabilities":{"plan":{}}}`, true},
		{acp.MethodCancelRequest, `{"requestId":"p-1"}`, true},
	} {
		inst, err := instance([]byte(tc.params))
		if err != nil {
			t.Fatal(err)
		}
		if err := ms.params[tc.method].Validate(inst); (err == nil) != tc.ok {
			t.Errorf("%s %s: valid = %v, want %v (%v)", tc.method, tc.params, err == nil, tc.ok, err)
		}
	}
}
