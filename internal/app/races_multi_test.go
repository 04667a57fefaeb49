package app

import (
	"encoding/json"
	"io"
	"net/http"
	"strconv"
	"strings"
	"sync"
	"testing"

	"github.com/plandash/plandash/internal/store/postgres/pgtest"
)

// send posts or gets path on in with the token and extra headers, for a test's goroutines: no
// t.Fatal, the status and body go back to the test (status 0 on a transport error).
func (in *instance) send(method, path, body string, header map[string]string) (int, string) {
	req, err := http.NewRequest(method, in.URL+path, strings.NewReader(body))
	if err != nil {
		return 0, err.Error()
	}
	req.Header.Set("Authorization", "Bearer tok")
	req.Header.Set("Content-Type", "application/json")
	for k, v := range header {
		req.Header.Set(k, v)
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		return 0, err.Error()
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return resp.StatusCode, string(b)
}

// TestWaitersAtDeadlineOnTwoInstances: requests with a 1-second deadline and nobody deciding,
// each long-polled on A and on B; whichever instance applies the default outcome, every waiter
// gets 200 with the rejected request, never a 409 for the expiry the other instance applied.
func TestWaitersAtDeadlineOnTwoInstances(t *testing.T) {
	db := pgtest.URL(t)
	a, b := startInstance(t, db), startInstance(t, db)
	const rounds = 30
	for i := range rounds {
		sub := `{"id":"due-` + strconv.Itoa(i) + `","title":"Due","plan":{"type":"markdown","markdown":"# x"},"timeout":"1s","default":"reject"}`
		if code, body := a.call(t, "POST", "/api/v1/approvals", sub); code != http.StatusCreated {
			t.Fatalf("submit %d on A: %d %s", i, code, body)
		}
	}
	type answer struct {
		where, id string
		code      int
		body      string
	}
	answers := make(chan answer, 2*rounds)
	var wg sync.WaitGroup
	for i := range rounds {
		id := "due-" + strconv.Itoa(i)
		for name, in := range map[string]*instance{"A": a, "B": b} {
			wg.Go(func() {
				code, body := in.send("GET", "/api/v1/approvals/"+id+"?wait=5s", "", nil)
				answers <- answer{name, id, code, body}
			})
		}
	}
	wg.Wait()
	close(answers)
	for ans := range answers {
		var got struct{ Status string }
		if ans.code != http.StatusOK || json.Unmarshal([]byte(ans.body), &got) != nil || got.Status != "rejected" {
			t.Errorf("waiter on %s for %s got %d %s; want 200 with the default outcome (rejected)", ans.where, ans.id, ans.code, ans.body)
		}
	}
}

// TestSameIdempotencyKeyOnTwoInstances: one decision, sent with one Idempotency-Key to A and B
// at once (a client retrying through a load balancer), gets the same 200 from both: the loser
// of the conditional update sees its own key in the winner's decision.
func TestSameIdempotencyKeyOnTwoInstances(t *testing.T) {
	db := pgtest.URL(t)
	a, b := startInstance(t, db), startInstance(t, db)
	for round := range 30 {
		id := "key-" + strconv.Itoa(round)
		sub := strings.Replace(submission, `"deploy"`, `"`+id+`"`, 1)
		if code, body := a.call(t, "POST", "/api/v1/approvals", sub); code != http.StatusCreated {
			t.Fatalf("submit: %d %s", code, body)
		}
		codes, bodies := make([]int, 2), make([]string, 2)
		start := make(chan struct{})
		var wg sync.WaitGroup
		for i, in := range []*instance{a, b} {
			wg.Go(func() {
				<-start
				codes[i], bodies[i] = in.send("POST", "/api/v1/approvals/"+id+"/decision", `{"action":"approve","comment":"once"}`,
					map[string]string{"Idempotency-Key": "k-" + id})
			})
		}
		close(start)
		wg.Wait()
		if codes[0] != http.StatusOK || codes[1] != http.StatusOK {
			t.Fatalf("round %d: the same decision with one key answered %d %s / %d %s; want 200 from both", round, codes[0], bodies[0], codes[1], bodies[1])
		}
	}
}
