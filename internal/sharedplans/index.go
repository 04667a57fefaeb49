package sharedplans

import (
	"context"
	"fmt"
	"slices"
	"sort"
	"sync"
)

// index is the plans directory as lists show it: every plan's summary and every file that is
// not a readable plan, kept in memory. The Service fills it from one scan when its watcher
// starts and then changes one plan per observation, so a list costs a page of work instead of a
// directory scan. It is trusted only while the watcher runs (live); otherwise lists scan.
type index struct {
	mu       sync.RWMutex
	live     bool
	plans    map[string]Summary
	names    []string          // the keys of plans, sorted
	warnings map[string]string // file name without .json → the listing's warning for it
}

// reset replaces the index with a scan's result and makes it live.
func (x *index) reset(list ListResult, names []string) {
	x.mu.Lock()
	defer x.mu.Unlock()
	x.plans = make(map[string]Summary, len(list.Plans))
	x.names = make([]string, 0, len(list.Plans))
	for _, p := range list.Plans {
		x.plans[p.Name] = p
		x.names = append(x.names, p.Name)
	}
	slices.Sort(x.names)
	x.warnings = make(map[string]string, len(list.Warnings))
	for i, w := range list.Warnings {
		x.warnings[names[i]] = w
	}
	x.live = true
}

// stop marks the index stale: nothing keeps it up to date any more.
func (x *index) stop() {
	x.mu.Lock()
	defer x.mu.Unlock()
	x.live, x.plans, x.names, x.warnings = false, nil, nil, nil
}

// put records a plan as read from disk.
func (x *index) put(p Summary) {
	x.mu.Lock()
	defer x.mu.Unlock()
	if !x.live {
		return
	}
	delete(x.warnings, p.Name)
	if _, ok := x.plans[p.Name]; !ok {
		i, _ := slices.BinarySearch(x.names, p.Name)
		x.names = slices.Insert(x.names, i, p.Name)
	}
	x.plans[p.Name] = p
}

// remove records a plan gone (bad is false) or unreadable (bad is the reason).
func (x *index) remove(name, bad string) {
	x.mu.Lock()
	defer x.mu.Unlock()
	if !x.live {
		return
	}
	if bad != "" {
		x.warnings[name] = fmt.Sprintf("skipped %q: %s", name, bad)
	} else {
		delete(x.warnings, name)
	}
	if _, ok := x.plans[name]; ok {
		delete(x.plans, name)
		i, _ := slices.BinarySearch(x.names, name)
		x.names = slices.Delete(x.names, i, i+1)
	}
}

// ListPage is one page of the plans, by name.
type ListPage struct {
	Plans []Summary `json:"plans"`
	// Warnings are the files that are not readable plans (list_plans's warnings); only the first
	// page has them.
	Warnings []string `json:"warnings,omitempty"`
	Total    int      `json:"total"` // plans in all
	Next     string   `json:"next"`  // the last name of this page when more follow, else ""
}

// maxWarnings bounds the warnings one page carries: a directory of 10,000 broken files says so
// in a count, not a 10,000-line list.
const maxWarnings = 100

// page cuts names after `after` to limit plans.
func (x *index) page(after string, limit int) ListPage {
	x.mu.RLock()
	defer x.mu.RUnlock()
	lp := ListPage{Total: len(x.names), Plans: []Summary{}}
	i, found := slices.BinarySearch(x.names, after)
	if found {
		i++
	}
	end := min(len(x.names), i+limit)
	for _, n := range x.names[i:end] {
		lp.Plans = append(lp.Plans, x.plans[n])
	}
	if end < len(x.names) {
		lp.Next = x.names[end-1]
	}
	if after == "" {
		lp.Warnings = x.warningList()
	}
	return lp
}

func (x *index) warningList() []string {
	names := make([]string, 0, len(x.warnings))
	for n := range x.warnings {
		names = append(names, n)
	}
	slices.Sort(names)
	out := make([]string, 0, min(len(names), maxWarnings))
	for _, n := range names[:min(len(names), maxWarnings)] {
		out = append(out, x.warnings[n])
	}
	if len(names) > maxWarnings {
		out = append(out, fmt.Sprintf("… and %d more files that are not readable plans", len(names)-maxWarnings))
	}
	return out
}

// newest is the n most recently updated plans and how many there are.
func (x *index) newest(n int) ([]Summary, int) {
	x.mu.RLock()
	defer x.mu.RUnlock()
	top := make([]Summary, 0, n+1)
	for _, name := range x.names {
		p := x.plans[name]
		if len(top) == n && p.UpdatedAt <= top[n-1].UpdatedAt {
			continue
		}
		// Keep the n newest seen so far, newest first; names are visited in order, so among
		// equal times the first name stays first, as a stable sort by name would have it.
		i := sort.Search(len(top), func(i int) bool { return top[i].UpdatedAt < p.UpdatedAt })
		if i >= n {
			continue
		}
		top = slices.Insert(top, i, p)
		if len(top) > n {
			top = top[:n]
		}
	}
	return top, len(x.names)
}

// ListPage lists up to limit plans by name after the name after ("" for the first page),
// from the index while the watcher keeps it, else from a scan of the directory.
func (s *Service) ListPage(ctx context.Context, after string, limit int) (ListPage, error) {
	if s.idx.isLive() {
		return s.idx.page(after, limit), nil
	}
	list, names, err := s.store.scan(ctx)
	if err != nil {
		return ListPage{}, err
	}
	var x index
	x.reset(list, names)
	return x.page(after, limit), nil
}

// Strip lists the n most recently updated plans (summaries only, never contents) and how many
// there are, from the index while the watcher keeps it.
func (s *Service) Strip(ctx context.Context, n int) ([]Summary, int, error) {
	if s.idx.isLive() {
		top, total := s.idx.newest(n)
		return top, total, nil
	}
	list, err := s.store.List(ctx)
	if err != nil {
		return nil, 0, err
	}
	sums := list.Plans
	sort.SliceStable(sums, func(i, j int) bool { return sums[i].UpdatedAt > sums[j].UpdatedAt })
	return sums[:min(len(sums), n)], len(sums), nil
}

func (x *index) isLive() bool {
	x.mu.RLock()
	defer x.mu.RUnlock()
	return x.live
}

// Indexed reports whether lists are served from the watcher's index (the watcher runs and has
// caught up with the directory) rather than by scanning the directory.
func (s *Service) Indexed() bool { return s.idx.isLive() }
