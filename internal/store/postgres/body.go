package postgres

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"

	"github.com/jackc/pgx/v5"
	"github.com/plandash/plandash/internal/store/body"
)

// querier is what reads need, so the same query runs on the pool or inside a transaction.
type querier interface {
	Query(ctx context.Context, sql string, args ...any) (pgx.Rows, error)
	QueryRow(ctx context.Context, sql string, args ...any) pgx.Row
}

// mustJSON encodes domain values, which always encode.
func mustJSON(v any) []byte {
	b, err := json.Marshal(v)
	if err != nil {
		panic(fmt.Sprintf("postgres: encode %T: %v", v, err))
	}
	return b
}

// decode decodes a body this store wrote (see package body for why not encoding/json).
func decode[T any](b []byte) (T, error) { return body.Decode[T](b) }

// one runs a query for one JSON body and decodes it; notFound is returned when there is no row.
func one[T any](ctx context.Context, q querier, notFound error, query string, args ...any) (T, error) {
	var body []byte
	err := q.QueryRow(ctx, query, args...).Scan(&body)
	if errors.Is(err, pgx.ErrNoRows) {
		var zero T
		return zero, notFound
	}
	if err != nil {
		var zero T
		return zero, err
	}
	return decode[T](body)
}

// many runs a query whose one column is a JSON body and decodes every row.
func many[T any](ctx context.Context, q querier, query string, args ...any) ([]T, error) {
	rows, err := q.Query(ctx, query, args...)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var out []T
	for rows.Next() {
		var body []byte
		if err := rows.Scan(&body); err != nil {
			return nil, err
		}
		v, err := decode[T](body)
		if err != nil {
			return nil, err
		}
		out = append(out, v)
	}
	return out, rows.Err()
}

// limit is a LIMIT argument: SQLite reads a negative limit as none, PostgreSQL refuses it and
// reads NULL as none.
func limit(n int) any {
	if n < 0 {
		return nil
	}
	return n
}

// readSnapshot runs fn in a read-only REPEATABLE READ transaction: its queries all see the
// same committed state, so a sequence number read in it matches the rows read beside it.
func readSnapshot(ctx context.Context, db interface {
	BeginTx(context.Context, pgx.TxOptions) (pgx.Tx, error)
}, fn func(pgx.Tx) error) error {
	return pgx.BeginTxFunc(ctx, db, pgx.TxOptions{IsoLevel: pgx.RepeatableRead, AccessMode: pgx.ReadOnly}, fn)
}
