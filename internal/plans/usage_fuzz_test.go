package plans

import "testing"

// FuzzDecodeUsage: any usage_update body decodes or is refused without panicking, and what
// decodes holds only non-negative counts and bounded names.
func FuzzDecodeUsage(f *testing.F) {
	for _, s := range []string{`{"used":1,"size":2}`, `{"used":1,"size":2,"cost":{"amount":1.5,"currency":"USD"}}`,
		`{"used":1,"size":0,"_meta":{"plandash":{"model":"m","inputTokens":3,"outputTokens":4}}}`,
		`{"used":-1,"size":2}`, `{"used":1e30,"size":2}`, `{"used":1,"size":2,"cost":{"amount":"x"}}`, `[]`, `null`} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		u, ok := decodeUsage(b)
		if !ok {
			return
		}
		if u.Used < 0 || u.Size < 0 || u.InputTokens < 0 || u.OutputTokens < 0 || len(u.Model) > maxModelName {
			t.Fatalf("decoded %+v", u)
		}
		if u.Cost != nil && (u.Cost.Amount < 0 || len(u.Cost.Currency) > 8) {
			t.Fatalf("cost %+v", u.Cost)
		}
		if f, known := u.Fill(); known && (f < 0 || f > 1) {
			t.Fatalf("fill %v", f)
		}
	})
}
