package acp

import (
	"strconv"
	"testing"
)

func msg(t *testing.T, dir Direction, line string) Message {
	t.Helper()
	msgs, err := DecodeLine([]byte(line))
	if err != nil {
		t.Fatalf("%s: %v", line, err)
	}
	msgs[0].Dir = dir
	return msgs[0]
}

func TestCorrelator(t *testing.T) {
	type step struct {
		dir  Direction
		line string
		want string // for responses: the method of the matched request, "" for no match
	}
	tests := []struct {
		name  string
		steps []step
	}{
		{"same id both directions", []step{
			{ClientToAgent, `{"jsonrpc":"2.0","id":1,"method":"session/prompt","params":{}}`, ""},
			{AgentToClient, `{"jsonrpc":"2.0","id":1,"method":"session/request_permission","params":{}}`, ""},
			{ClientToAgent, `{"jsonrpc":"2.0","id":1,"result":{"outcome":{"outcome":"cancelled"}}}`, "session/request_permission"},
			{AgentToClient, `{"jsonrpc":"2.0","id":1,"result":{"stopReason":"end_turn"}}`, "session/prompt"},
			{AgentToClient, `{"jsonrpc":"2.0","id":1,"result":{}}`, ""},
		}},
		{"number and string ids differ", []step{
			{ClientToAgent, `{"jsonrpc":"2.0","id":1,"method":"a"}`, ""},
			{AgentToClient, `{"jsonrpc":"2.0","id":"1","result":{}}`, ""},
			{AgentToClient, `{"jsonrpc":"2.0","id":1.0,"result":{}}`, ""},
			{AgentToClient, `{"jsonrpc":"2.0","id": 1 ,"result":{}}`, "a"},
		}},
		{"escaped string ids meet", []step{
			{ClientToAgent, `{"jsonrpc":"2.0","id":"a","method":"x"}`, ""},
			{AgentToClient, `{"jsonrpc":"2.0","id":"\u0061","error":{"code":-32601,"message":"no"}}`, "x"},
		}},
		{"response in the wrong direction", []step{
			{ClientToAgent, `{"jsonrpc":"2.0","id":7,"method":"a"}`, ""},
			{ClientToAgent, `{"jsonrpc":"2.0","id":7,"result":{}}`, ""},
		}},
		{"null id answers nothing", []step{
			{ClientToAgent, `{"jsonrpc":"2.0","id":7,"method":"a"}`, ""},
			{AgentToClient, `{"jsonrpc":"2.0","id":null,"error":{"code":-32700,"message":"x"}}`, ""},
		}},
		{"no directions: one candidate", []step{
			{"", `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{}}`, ""},
			{"", `{"jsonrpc":"2.0","id":1,"result":{"protocolVersion":1}}`, "initialize"},
		}},
		{"no directions: inferred sides keep both", []step{
			{"", `{"jsonrpc":"2.0","id":3,"method":"session/prompt","params":{}}`, ""},
			{"", `{"jsonrpc":"2.0","id":3,"method":"session/request_permission","params":{}}`, ""},
			{"", `{"jsonrpc":"2.0","id":3,"result":{"outcome":{"outcome":"selected","optionId":"a"}}}`, "session/request_permission"},
			{"", `{"jsonrpc":"2.0","id":3,"result":{"stopReason":"end_turn"}}`, "session/prompt"},
		}},
		{"no directions: client-sent preferred when the result says nothing", []step{
			{"", `{"jsonrpc":"2.0","id":4,"method":"fs/write_text_file","params":{}}`, ""},
			{"", `{"jsonrpc":"2.0","id":4,"method":"session/set_mode","params":{}}`, ""},
			{"", `{"jsonrpc":"2.0","id":4,"result":null}`, "session/set_mode"},
			{"", `{"jsonrpc":"2.0","id":4,"result":null}`, "fs/write_text_file"},
		}},
		{"no directions: oldest when nothing else decides", []step{
			{"", `{"jsonrpc":"2.0","id":5,"method":"_a"}`, ""},
			{AgentToClient, `{"jsonrpc":"2.0","id":5,"method":"_b"}`, ""},
			{"", `{"jsonrpc":"2.0","id":5,"error":{"code":1,"message":"m"}}`, "_a"},
			{"", `{"jsonrpc":"2.0","id":5,"error":{"code":1,"message":"m"}}`, "_b"},
		}},
		{"unknown-direction request found from a directed response", []step{
			{"", `{"jsonrpc":"2.0","id":6,"method":"_custom"}`, ""},
			{AgentToClient, `{"jsonrpc":"2.0","id":6,"result":{}}`, "_custom"},
		}},
		{"replaced request", []step{
			{ClientToAgent, `{"jsonrpc":"2.0","id":8,"method":"first"}`, ""},
			{ClientToAgent, `{"jsonrpc":"2.0","id":8,"method":"second"}`, ""},
			{AgentToClient, `{"jsonrpc":"2.0","id":8,"result":{}}`, "second"},
			{AgentToClient, `{"jsonrpc":"2.0","id":8,"result":{}}`, ""},
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c := NewCorrelator(0)
			for i, s := range tt.steps {
				m := msg(t, s.dir, s.line)
				if m.IsRequest() {
					c.Request(m)
					continue
				}
				c.Request(m) // ignored
				req, ok := c.Response(m)
				if ok != (s.want != "") || req.Method != s.want {
					t.Errorf("step %d: matched %q (%v), want %q", i, req.Method, ok, s.want)
				}
			}
		})
	}
}

func TestCorrelatorBounded(t *testing.T) {
	c := NewCorrelator(3)
	for i := range 5 {
		c.Request(msg(t, ClientToAgent, `{"jsonrpc":"2.0","id":`+strconv.Itoa(i)+`,"method":"m`+strconv.Itoa(i)+`"}`))
		c.Request(msg(t, AgentToClient, `{"jsonrpc":"2.0","id":`+strconv.Itoa(i)+`,"method":"a`+strconv.Itoa(i)+`"}`))
	}
	if c.Len() != 6 {
		t.Fatalf("Len = %d, want 3 per direction", c.Len())
	}
	for i := range 5 {
		req, ok := c.Response(msg(t, AgentToClient, `{"jsonrpc":"2.0","id":`+strconv.Itoa(i)+`,"result":{}}`))
		if want := i >= 2; ok != want || ok && req.Method != "m"+strconv.Itoa(i) {
			t.Errorf("id %d: matched %q %v, want match %v", i, req.Method, ok, want)
		}
	}
	if c.Len() != 3 {
		t.Errorf("Len = %d after answering the client's requests, want 3", c.Len())
	}
}

// The §14.2 exchange has the client's initialize and the agent's permission request both at id 1.
func TestCorrelatorGoSDKExchange(t *testing.T) {
	for _, file := range []string{"gosdk_exchange.jsonl", "gosdk_transcript.jsonl"} {
		msgs := readTestdata(t, file)
		c := NewCorrelator(16)
		var pairs []string
		for _, m := range msgs {
			c.Request(m)
			if req, ok := c.Response(m); ok {
				pairs = append(pairs, string(req.ID)+"="+req.Method)
			}
		}
		want := []string{"1=initialize", "2=session/new", "1=session/request_permission", "3=session/prompt"}
		if !equalStrings(pairs, want) || c.Len() != 0 {
			t.Errorf("%s: pairs %q (pending %d), want %q", file, pairs, c.Len(), want)
		}
	}
}
