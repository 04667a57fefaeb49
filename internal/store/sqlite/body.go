package sqlite

import (
	"context"
	"database/sql"
	"encoding/json"
	"fmt"

	"github.com/plandash/plandash/internal/store/body"
)

// querier is what reads need, so the same query runs on a pool or inside a transaction.
type querier interface {
	QueryRowContext(ctx context.Context, q string, args ...any) *sql.Row
	QueryContext(ctx context.Context, q string, args ...any) (*sql.Rows, error)
}

// mustJSON encodes domain values, which always encode.
func mustJSON(v any) []byte {
	b, err := json.Marshal(v)
	if err != nil {
		panic(fmt.Sprintf("sqlite: encode %T: %v", v, err))
	}
	return b
}

// decode decodes a body this store wrote (see package body for why not encoding/json).
func decode[T any](b []byte) (T, error) { return body.Decode[T](b) }

// many runs a query whose one column is a JSON body and decodes every row.
func many[T any](ctx context.Context, q querier, query string, args ...any) ([]T, error) {
	rows, err := q.QueryContext(ctx, query, args...)
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
