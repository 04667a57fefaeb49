package plans

import (
	"cmp"
	"slices"
)

// unit is one comparable piece of a revision: an entry, a markdown block or a line. key is what
// must be equal for two units to be the same unit; text is what a person reads and what is
// diffed word by word.
type unit struct {
	key, text        string
	kind             string
	level            int
	status, priority string
}

// Similarity pairing: a removed and an added unit whose words overlap at least this much
// (Dice coefficient) are one unit edited. Up to pairBudget pairs are scored across the whole
// diff; beyond that, only pairs within one run of changes and near each other are, so a huge
// rewrite stays fast.
const (
	minSimilarity = 0.5
	pairBudget    = 40_000
)

// diffUnits is the structured diff of two unit lists. It runs Myers on the keys, so equal units
// in the same order are kept in O((N+M)·D); then it pairs what was removed with what was added:
// equal keys elsewhere in the order are moves (when moves is set), similar texts in the same
// run of changes are edits in place, similar texts elsewhere are moves with an edit.
func diffUnits(a, b []unit, moves bool) StructuredDiff {
	type kindKey struct{ kind, key string }
	ids := make(map[kindKey]int32, len(a)+len(b))
	intern := func(us []unit) []int32 {
		out := make([]int32, len(us))
		for i, u := range us {
			k := kindKey{u.kind, u.key}
			id, ok := ids[k]
			if !ok {
				id = int32(len(ids))
				ids[k] = id
			}
			out[i] = id
		}
		return out
	}
	ia, ib := intern(a), intern(b)
	spans := diffIDs(ia, ib, unitBudget)

	// The run of changes (hunk) each removed and added unit belongs to.
	hunkA, hunkB := make([]int32, len(a)), make([]int32, len(b))
	var removed, added []int
	hunk := int32(0)
	for _, s := range spans {
		switch s.op {
		case Same:
			hunk++
		case Removed:
			for i := s.a0; i < s.a1; i++ {
				hunkA[i] = hunk
				removed = append(removed, i)
			}
		case Added:
			for j := s.b0; j < s.b1; j++ {
				hunkB[j] = hunk
				added = append(added, j)
			}
		}
	}
	pairA := make(map[int]int) // removed index in a → added index in b
	pairB := make(map[int]int)
	if moves {
		pairExact(ia, ib, removed, added, pairA, pairB)
	}
	pairSimilar(a, b, removed, added, hunkA, hunkB, moves, pairA, pairB)

	// Every unit of b that is in a too, by Myers or by pairing: matchB[j] is its index in a.
	matchB := make([]int, len(b))
	for j := range matchB {
		matchB[j] = -1
	}
	for _, s := range spans {
		if s.op == Same {
			for k := range s.a1 - s.a0 {
				matchB[s.b0+k] = s.a0 + k
			}
		}
	}
	for j, i := range pairB {
		matchB[j] = i
	}
	all, st := emitChanges(a, b, matchB, moves)
	shown, hidden := collapse(all)
	// Words are diffed only for what is shown: a huge rewrite costs MaxChanges word diffs.
	for k, c := range shown {
		if (c.Op == ChangeEdited || c.Op == ChangeMoved) && a[c.From-1].text != b[c.To-1].text {
			shown[k].Words, shown[k].WordsHidden = WordDiff(a[c.From-1].text, b[c.To-1].text)
		}
	}
	return StructuredDiff{Changes: shown, Stats: st, Hidden: hidden}
}

// emitChanges lists the changes in b's order. The matched units that keep their relative order
// (the longest increasing run of their old positions) stay in place; the other matched units
// are moved, so a single entry dragged to the top is one move, not every other entry shifted.
// A removed unit is listed right after the in-place unit it followed in a.
func emitChanges(a, b []unit, matchB []int, moves bool) ([]Change, DiffStats) {
	anchor := inPlace(matchB)
	if !moves {
		// Lines are only ever paired within a run of changes, in order: all are in place.
		for j, i := range matchB {
			anchor[j] = i >= 0
		}
	}
	matchedA := make([]bool, len(a))
	for _, i := range matchB {
		if i >= 0 {
			matchedA[i] = true
		}
	}
	// nextAnchor[j] is the old position of the first in-place unit after b[j] (len(a) if none).
	nextAnchor := make([]int, len(b)+1)
	nextAnchor[len(b)] = len(a)
	for j := len(b) - 1; j >= 0; j-- {
		nextAnchor[j] = nextAnchor[j+1]
		if anchor[j] {
			nextAnchor[j] = matchB[j]
		}
	}
	all := make([]Change, 0, max(len(a), len(b)))
	var st DiffStats
	r := 0
	flushRemoved := func(limit int) {
		for ; r < len(a) && r < limit; r++ {
			if matchedA[r] {
				continue
			}
			t, cut := boundText(a[r].text)
			all = append(all, Change{Op: ChangeRemoved, From: r + 1, Kind: a[r].kind, Level: a[r].level, Text: t, TextCut: cut,
				OldStatus: a[r].status, Status: a[r].status, OldPriority: a[r].priority, Priority: a[r].priority})
			st.Removed++
		}
	}
	flushRemoved(nextAnchor[0])
	for j := range b {
		i := matchB[j]
		switch {
		case i < 0:
			t, cut := boundText(b[j].text)
			all = append(all, Change{Op: ChangeAdded, To: j + 1, Kind: b[j].kind, Level: b[j].level, Text: t, TextCut: cut,
				OldStatus: b[j].status, Status: b[j].status, OldPriority: b[j].priority, Priority: b[j].priority})
			st.Added++
		case !anchor[j]:
			all = append(all, keptChange(a[i], b[j], i, j, ChangeMoved))
			st.Moved++
		default:
			op := ChangeSame
			if a[i].status != b[j].status || a[i].priority != b[j].priority || a[i].text != b[j].text {
				op = ChangeEdited
				st.Edited++
			} else {
				st.Same++
			}
			all = append(all, keptChange(a[i], b[j], i, j, op))
			flushRemoved(nextAnchor[j+1])
		}
	}
	flushRemoved(len(a))
	return all, st
}

// inPlace marks the matched units of b that form a longest run whose old positions increase
// (patience-style longest increasing subsequence, O(n log n)); ties keep earlier units.
func inPlace(matchB []int) []bool {
	var tails []int // tails[k]: index in b of the smallest old position ending a run of k+1
	prev := make([]int, len(matchB))
	for j, i := range matchB {
		prev[j] = -1
		if i < 0 {
			continue
		}
		k, _ := slices.BinarySearchFunc(tails, i, func(t, target int) int { return cmp.Compare(matchB[t], target) })
		if k > 0 {
			prev[j] = tails[k-1]
		}
		if k == len(tails) {
			tails = append(tails, j)
		} else {
			tails[k] = j
		}
	}
	out := make([]bool, len(matchB))
	if len(tails) > 0 {
		for j := tails[len(tails)-1]; j >= 0; j = prev[j] {
			out[j] = true
		}
	}
	return out
}

// keptChange is the change of a unit present in both revisions. Its words are diffed later,
// for the changes shown; its text is kept when it did not change.
func keptChange(a, b unit, i, j int, op ChangeOp) Change {
	c := Change{Op: op, From: i + 1, To: j + 1, Kind: b.kind, Level: b.level,
		OldStatus: a.status, Status: b.status, OldPriority: a.priority, Priority: b.priority}
	if a.text == b.text {
		c.Text, c.TextCut = boundText(b.text)
	}
	return c
}

// collapse bounds a full change list for showing: unchanged runs keep contextUnits units next
// to a change and fold the rest into one Skipped change; after MaxChanges changes the list
// stops and the rest are counted.
func collapse(all []Change) ([]Change, int) {
	var out []Change
	shown, hidden := 0, 0
	for k := 0; k < len(all); {
		if all[k].Op != ChangeSame {
			if shown < MaxChanges {
				out = append(out, all[k])
				shown++
			} else {
				hidden++
			}
			k++
			continue
		}
		// A run of unchanged units is one only while it is contiguous in both revisions: a
		// unit moved away from between two kept ones splits it.
		end := k + 1
		for end < len(all) && all[end].Op == ChangeSame && all[end].From == all[end-1].From+1 && all[end].To == all[end-1].To+1 {
			end++
		}
		if shown >= MaxChanges {
			k = end
			continue
		}
		lead, trail := contextUnits, contextUnits
		if k == 0 {
			lead = 0 // nothing before to give context to
		}
		if end == len(all) {
			trail = 0
		}
		if end-k <= lead+trail+1 {
			out = append(out, all[k:end]...)
		} else {
			out = append(out, all[k:k+lead]...)
			first := all[k+lead]
			out = append(out, Change{Op: ChangeSkipped, From: first.From, To: first.To, Count: end - k - lead - trail})
			out = append(out, all[end-trail:end]...)
		}
		k = end
	}
	return out, hidden
}
