package sqlite

import (
	"context"
	"database/sql"
	"database/sql/driver"
	"errors"
	"fmt"
	"io"
)

// rawConn is the writer's connection held for one batch's transaction (txn), whose statements
// run on the driver's connection directly, through sql.Conn.Raw, instead of in a sql.Tx.
// database/sql starts a goroutine for every transaction, and for every query in one, to watch
// its context; for one poster posting one message at a time, waking those on the other core
// and the path of each statement through database/sql cost more than SQLite's own work for
// the message. The statements are local and short and run without the caller's cancellation
// (the driver would watch a cancellable context with a goroutine of its own): a stop waits
// for them, as it waits for the commit.
type rawConn struct {
	conn  *sql.Conn
	stmts *rawStmts
}

// rawStmts are statements prepared on the writer's driver connection, by query. Only the batch
// holding that connection uses them, inside Raw.
type rawStmts struct {
	dc      any // the driver connection they were prepared on
	byQuery map[string]driver.Stmt
}

// get is q prepared on dc, preparing it the first time. A new driver connection (database/sql
// replaced a broken one) starts over: the old statements went with the old connection.
func (s *rawStmts) get(ctx context.Context, dc any, q string) (driver.Stmt, error) {
	if s.dc != dc {
		s.dc, s.byQuery = dc, map[string]driver.Stmt{}
	}
	if st, ok := s.byQuery[q]; ok {
		return st, nil
	}
	st, err := dc.(driver.ConnPrepareContext).PrepareContext(ctx, q)
	if err != nil {
		return nil, err
	}
	s.byQuery[q] = st
	return st, nil
}

// close finalizes the statements; the caller holds the connection they were prepared on.
func (s *rawStmts) close() {
	for _, st := range s.byQuery {
		st.Close()
	}
	s.dc, s.byQuery = nil, nil
}

// conn takes the writer's one connection, waiting for it as long as ctx allows.
func (s *rawStmts) conn(ctx context.Context, w *sql.DB) (*rawConn, error) {
	conn, err := w.Conn(ctx)
	if err != nil {
		return nil, err
	}
	return &rawConn{conn: conn, stmts: s}, nil
}

// begin begins the transaction on the driver's connection (IMMEDIATE: see Open).
func (c *rawConn) begin(ctx context.Context) (tx driver.Tx, err error) {
	err = c.conn.Raw(func(dc any) error {
		tx, err = dc.(driver.ConnBeginTx).BeginTx(context.WithoutCancel(ctx), driver.TxOptions{})
		return err
	})
	return tx, err
}

// end commits or rolls back tx, then hands the connection back.
func (c *rawConn) end(tx driver.Tx, commit bool) error {
	err := c.conn.Raw(func(any) error {
		if commit {
			return tx.Commit()
		}
		return tx.Rollback()
	})
	return errors.Join(err, c.conn.Close())
}

// exec runs q with args.
func (c *rawConn) exec(ctx context.Context, q string, args ...any) (res driver.Result, err error) {
	nv, err := namedValues(args)
	if err != nil {
		return nil, err
	}
	err = c.conn.Raw(func(dc any) error {
		st, err := c.stmts.get(ctx, dc, q)
		if err != nil {
			return err
		}
		res, err = st.(driver.StmtExecContext).ExecContext(context.WithoutCancel(ctx), nv)
		return err
	})
	return res, err
}

// query runs q with args and reads all its rows.
func (c *rawConn) query(ctx context.Context, q string, args ...any) (*rawRows, error) {
	nv, err := namedValues(args)
	if err != nil {
		return nil, err
	}
	out := &rawRows{}
	err = c.conn.Raw(func(dc any) error {
		st, err := c.stmts.get(ctx, dc, q)
		if err != nil {
			return err
		}
		rows, err := st.(driver.StmtQueryContext).QueryContext(context.WithoutCancel(ctx), nv)
		if err != nil {
			return err
		}
		defer rows.Close()
		for {
			row := make([]driver.Value, len(rows.Columns()))
			if err := rows.Next(row); err == io.EOF {
				return nil
			} else if err != nil {
				return err
			}
			out.rows = append(out.rows, row)
		}
	})
	return out, err
}

// queryRow runs q with args and scans its first row into dest; sql.ErrNoRows when it has none.
func (c *rawConn) queryRow(ctx context.Context, q string, args []any, dest ...any) error {
	rows, err := c.query(ctx, q, args...)
	if err != nil {
		return err
	}
	if !rows.Next() {
		return sql.ErrNoRows
	}
	return rows.Scan(dest...)
}

// namedValues converts args as database/sql does for a driver without a converter of its own
// (modernc's has none).
func namedValues(args []any) ([]driver.NamedValue, error) {
	nv := make([]driver.NamedValue, len(args))
	for i, a := range args {
		v, err := driver.DefaultParameterConverter.ConvertValue(a)
		if err != nil {
			return nil, fmt.Errorf("sqlite: argument %d: %w", i+1, err)
		}
		nv[i] = driver.NamedValue{Ordinal: i + 1, Value: v}
	}
	return nv, nil
}

// rawRows are a query's rows, read whole (rawConn.query), scanned as *sql.Rows scans them
// into the few types this store reads.
type rawRows struct {
	rows [][]driver.Value
	cur  []driver.Value
}

// Next moves to the next row; false after the last.
func (r *rawRows) Next() bool {
	if len(r.rows) == 0 {
		return false
	}
	r.cur, r.rows = r.rows[0], r.rows[1:]
	return true
}

// Scan copies the current row's columns into dest: *int, *int64, *[]byte or *string.
func (r *rawRows) Scan(dest ...any) error {
	if len(dest) != len(r.cur) {
		return fmt.Errorf("sqlite: scan of %d columns into %d values", len(r.cur), len(dest))
	}
	for i, v := range r.cur {
		switch d := dest[i].(type) {
		case *int64:
			n, ok := v.(int64)
			if !ok {
				return fmt.Errorf("sqlite: column %d is %T, not an integer", i, v)
			}
			*d = n
		case *int:
			n, ok := v.(int64)
			if !ok {
				return fmt.Errorf("sqlite: column %d is %T, not an integer", i, v)
			}
			*d = int(n)
		case *[]byte:
			switch b := v.(type) {
			case []byte: // the driver's own copy
				*d = b
			case string:
				*d = []byte(b)
			case nil:
				*d = nil
			default:
				return fmt.Errorf("sqlite: column %d is %T, not bytes", i, v)
			}
		case *string:
			switch b := v.(type) {
			case string:
				*d = b
			case []byte:
				*d = string(b)
			default:
				return fmt.Errorf("sqlite: column %d is %T, not text", i, v)
			}
		default:
			return fmt.Errorf("sqlite: scan into %T", dest[i])
		}
	}
	return nil
}

// Err is nil: rawConn.query returns a failure to read the rows itself.
func (r *rawRows) Err() error { return nil }
