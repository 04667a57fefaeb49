package dag

import (
	"encoding/json"
	"errors"
	"strings"
)

// Check refuses tool-call plans that cannot run as written: a person should not approve a plan
// whose calls form a cycle or read state nobody writes. The error lists every problem.
func Check(raw json.RawMessage) error {
	p, err := Parse(raw)
	if err != nil {
		return errors.New(strings.TrimPrefix(err.Error(), ErrInvalid.Error()+": "))
	}
	if len(p.Problems) == 0 {
		return nil
	}
	msgs := make([]string, len(p.Problems))
	for i, pr := range p.Problems {
		msgs[i] = pr.Message
	}
	return errors.New(strings.Join(msgs, "; "))
}
