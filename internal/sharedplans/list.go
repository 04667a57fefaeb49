package sharedplans

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"sync"
)

// List returns a summary of every plan, sorted by name, without locking. It follows
// docker-agent's listing rule: non-directory entries whose extension is exactly ".json", names
// taken from file names unvalidated, and each unreadable entry reported as the warning
// `skipped "<name>": <error>` instead of failing the listing. A missing directory is an empty
// list.
func (s *Store) List(ctx context.Context) (ListResult, error) {
	res, _, err := s.scan(ctx)
	return res, err
}

// scan is List, with the name of the file each warning is about.
func (s *Store) scan(ctx context.Context) (ListResult, []string, error) {
	if err := ctx.Err(); err != nil {
		return ListResult{}, nil, err
	}
	entries, err := os.ReadDir(s.dir)
	if err != nil {
		if errors.Is(err, fs.ErrNotExist) {
			return ListResult{Plans: []Summary{}}, nil, nil
		}
		return ListResult{}, nil, err
	}
	names := make([]string, 0, len(entries))
	for _, e := range entries {
		if !e.IsDir() && filepath.Ext(e.Name()) == ".json" {
			names = append(names, e.Name())
		}
	}

	sums := make([]Summary, len(names))
	errs := make([]error, len(names))
	if err := s.loadAll(ctx, names, sums, errs); err != nil {
		return ListResult{}, nil, err
	}

	res := ListResult{Plans: make([]Summary, 0, len(names))}
	var warned []string
	// Warnings keep directory order (ReadDir sorts by file name), as docker-agent's do.
	for i, file := range names {
		name := strings.TrimSuffix(file, ".json")
		if errs[i] != nil {
			res.Warnings = append(res.Warnings, fmt.Sprintf("skipped %q: %s", name, errs[i]))
			warned = append(warned, name)
			continue
		}
		sums[i].Name = name
		res.Plans = append(res.Plans, sums[i])
	}
	slices.SortFunc(res.Plans, func(a, b Summary) int { return cmp.Compare(a.Name, b.Name) })
	return res, warned, nil
}

// loadAll reads the listed files into sums/errs by index. Each file costs a few syscalls, so a
// big directory is spread over a few goroutines; results stay in place, keeping output
// deterministic.
func (s *Store) loadAll(ctx context.Context, files []string, sums []Summary, errs []error) error {
	root, err := os.OpenRoot(s.dir)
	if err != nil {
		return err
	}
	defer root.Close()
	workers := min(runtime.GOMAXPROCS(0), 8, max(1, len(files)/64))
	var (
		wg     sync.WaitGroup
		next   = make(chan int)
		ctxErr error
	)
	for range workers {
		wg.Go(func() {
			for i := range next {
				sums[i], errs[i] = loadSummary(root, files[i])
			}
		})
	}
	for i := range files {
		if ctxErr = ctx.Err(); ctxErr != nil {
			break
		}
		next <- i
	}
	close(next)
	wg.Wait()
	return ctxErr
}

func loadSummary(root *os.Root, file string) (Summary, error) {
	data, ok, err := readPlanIn(root, file)
	if err != nil {
		return Summary{}, err
	}
	if !ok {
		// Gone between ReadDir and the open: docker-agent's listing reports that too.
		return Summary{}, errors.New("unreadable")
	}
	sum, err := decodeSummary(data)
	if err != nil {
		return Summary{}, &CorruptPlanError{File: file, Err: err}
	}
	return sum, nil
}
