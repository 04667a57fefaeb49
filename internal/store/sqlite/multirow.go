package sqlite

import (
	"context"
	"errors"
	"strings"
)

// multiRow is one INSERT prepared for several numbers of rows at once. A batch of a hundred
// updates writes a hundred revisions and dozens of sessions and plans; each statement run
// through database/sql and the driver pays for a call, a step and a reset whatever its size, and
// one row per statement spent about as much on that as SQLite spent storing the rows. A batch's
// rows go out in as few statements as chunkSizes allow: 100 rows in three.
type multiRow struct {
	cols    int
	queries []string // queries[i] inserts chunkSizes[i] rows
}

// A statement that writes several rows and may stop part way (ABORT, SQLite's default for a
// constraint) makes SQLite copy every page it touches to a statement journal first, so it can
// undo just that statement: more than the rows cost, spilling to a temporary file. The statements
// say OR FAIL instead, which stops without undoing the rows before; a batch whose statement fails
// is rolled back whole, so nothing of it is kept either way.

// chunkSizes are the numbers of rows a multiRow inserts in one statement, largest first; the
// last is 1 so any number of rows is written. The largest keeps a statement's variables (64 rows
// of at most 7 columns) far below SQLite's limit of 32,766. Powers of two write n rows in as
// many statements as n has bits set (below 64): a post of ten updates to ten sessions writes
// each table's rows in two statements, where sizes 16, 4 and 1 took four.
var chunkSizes = []int{64, 32, 16, 8, 4, 2, 1}

// newMultiRow is head + VALUES(?,…) for each chunk size, cols variables a row, + tail (an ON
// CONFLICT clause or nothing). Each is prepared the first time it is used (rawStmts).
func newMultiRow(head string, cols int, tail string) *multiRow {
	row := "(" + strings.Repeat("?,", cols-1) + "?)"
	m := &multiRow{cols: cols}
	for _, n := range chunkSizes {
		m.queries = append(m.queries, head+" VALUES"+strings.Repeat(row+",", n-1)+row+tail)
	}
	return m
}

// exec inserts the rows in args (cols values each, in order) in the batch's transaction on c.
func (m *multiRow) exec(ctx context.Context, c *rawConn, args []any) error {
	if len(args)%m.cols != 0 {
		return errors.New("sqlite: a multi-row insert given a partial row")
	}
	for i, n := range chunkSizes {
		for len(args) >= n*m.cols {
			if _, err := c.exec(ctx, m.queries[i], args[:n*m.cols]...); err != nil {
				return err
			}
			args = args[n*m.cols:]
		}
	}
	return nil
}
