package plans

import (
	"slices"
	"strings"
	"unicode"
	"unicode/utf8"
)

// maxWordTokens bounds the tokens of one text diffed word by word; longer texts are diffed on
// their first maxWordTokens tokens and the rest shown as replaced.
const maxWordTokens = 4000

// WordDiff diffs two texts word by word: a text is split into words (letters and digits),
// runs of white space and single punctuation marks, and a minimal edit script of those tokens
// is found with Myers's algorithm. Adjacent tokens with the same operation are joined, and in
// each run of changes the removed text comes before the added text. At most maxWordChanges
// runs are returned; hidden counts the words of the runs left out. Joining the Same and Added
// runs gives b back, and joining Same and Removed gives a, unless something was hidden.
func WordDiff(a, b string) (runs []WordChange, hidden int) {
	ta, tb := tokenize(a), tokenize(b)
	ids := make(map[string]int32, len(ta)+len(tb))
	intern := func(ts []string) []int32 {
		out := make([]int32, len(ts))
		for i, t := range ts {
			id, ok := ids[t]
			if !ok {
				id = int32(len(ids))
				ids[t] = id
			}
			out[i] = id
		}
		return out
	}
	// A text past the token bound is compared on its head; its tail is one removal and one
	// addition, which still reconstructs both texts.
	ha, hb := ta[:min(len(ta), maxWordTokens)], tb[:min(len(tb), maxWordTokens)]
	spans := diffIDs(intern(ha), intern(hb), wordBudget)
	if len(ha) < len(ta) || len(hb) < len(tb) {
		spans = append(spans, span{Removed, len(ha), len(ta), len(hb), len(hb)}, span{Added, len(ta), len(ta), len(hb), len(tb)})
	}
	var out []WordChange
	var pendingDel, pendingIns strings.Builder
	flush := func() {
		if pendingDel.Len() > 0 {
			out = append(out, WordChange{Removed, pendingDel.String()})
			pendingDel.Reset()
		}
		if pendingIns.Len() > 0 {
			out = append(out, WordChange{Added, pendingIns.String()})
			pendingIns.Reset()
		}
	}
	for _, s := range spans {
		switch s.op {
		case Same:
			// A lone space kept between two changes reads better as part of them.
			text := strings.Join(ta[s.a0:s.a1], "")
			if (pendingDel.Len() > 0 || pendingIns.Len() > 0) && isSpace(text) && s.a1 < len(ta) && s.b1 < len(tb) {
				pendingDel.WriteString(text)
				pendingIns.WriteString(text)
				continue
			}
			flush()
			out = append(out, WordChange{Same, text})
		case Removed:
			for _, t := range ta[s.a0:s.a1] {
				pendingDel.WriteString(t)
			}
		case Added:
			for _, t := range tb[s.b0:s.b1] {
				pendingIns.WriteString(t)
			}
		}
	}
	flush()
	return boundRuns(mergeRuns(out))
}

// boundRuns keeps the first maxWordChanges runs and 2·maxChangeText bytes of text, cutting the
// run that crosses the byte bound on a rune boundary, and counts the words left out.
func boundRuns(rs []WordChange) ([]WordChange, int) {
	hidden, size := 0, 0
	for k, r := range rs {
		if k == maxWordChanges || size >= 2*maxChangeText {
			for _, r := range rs[k:] {
				hidden += countWords(r.Text)
			}
			return rs[:k:k], hidden
		}
		if size+len(r.Text) > 2*maxChangeText {
			i := 2*maxChangeText - size
			for i > 0 && !runeStart(r.Text[i]) {
				i--
			}
			hidden += countWords(r.Text[i:])
			rs[k].Text = r.Text[:i]
			for _, r := range rs[k+1:] {
				hidden += countWords(r.Text)
			}
			return rs[: k+1 : k+1], hidden
		}
		size += len(r.Text)
	}
	return rs, hidden
}

// mergeRuns joins neighbouring runs with the same operation (absorbed spaces can leave a
// removal next to a removal).
func mergeRuns(rs []WordChange) []WordChange {
	out := rs[:0]
	for _, r := range rs {
		if n := len(out); n > 0 && out[n-1].Op == r.Op {
			out[n-1].Text += r.Text
			continue
		}
		out = append(out, r)
	}
	return out
}

func isSpace(s string) bool {
	return s != "" && strings.TrimFunc(s, unicode.IsSpace) == ""
}

func countWords(s string) int {
	return max(len(strings.Fields(s)), 1)
}

func isWordRune(r rune) bool { return unicode.IsLetter(r) || unicode.IsDigit(r) || r == '_' }

// tokenize splits a text into words, runs of white space and single other characters; the
// tokens joined are the text again.
func tokenize(s string) []string {
	var out []string
	for i := 0; i < len(s); {
		r, n := utf8.DecodeRuneInString(s[i:])
		j := i + n
		switch {
		case isWordRune(r):
			for j < len(s) {
				r, n := utf8.DecodeRuneInString(s[j:])
				if !isWordRune(r) {
					break
				}
				j += n
			}
		case unicode.IsSpace(r):
			for j < len(s) {
				r, n := utf8.DecodeRuneInString(s[j:])
				if !unicode.IsSpace(r) {
					break
				}
				j += n
			}
		}
		out = append(out, s[i:j])
		i = j
	}
	return out
}

// tokenSets turns texts into sorted sets of word ids for similarity, sharing one dictionary.
type tokenSets struct{ ids map[string]int32 }

func newTokenSets() *tokenSets { return &tokenSets{ids: make(map[string]int32)} }

// set is the sorted, distinct word ids of s (words lower-cased; the first maxWordTokens tokens).
func (t *tokenSets) set(s string) []int32 {
	toks := tokenize(s)
	out := make([]int32, 0, len(toks)/2+1)
	for _, w := range toks[:min(len(toks), maxWordTokens)] {
		r, _ := utf8.DecodeRuneInString(w)
		if !isWordRune(r) {
			continue
		}
		w = strings.ToLower(w)
		id, ok := t.ids[w]
		if !ok {
			id = int32(len(t.ids))
			t.ids[w] = id
		}
		out = append(out, id)
	}
	slices.Sort(out)
	return slices.Compact(out)
}

// dice is the Dice coefficient of two sorted sets: 2·|a∩b| / (|a|+|b|), 1 for two empty sets.
func dice(a, b []int32) float64 {
	if len(a)+len(b) == 0 {
		return 1
	}
	common := 0
	for i, j := 0, 0; i < len(a) && j < len(b); {
		switch {
		case a[i] == b[j]:
			common++
			i++
			j++
		case a[i] < b[j]:
			i++
		default:
			j++
		}
	}
	return float64(2*common) / float64(len(a)+len(b))
}
