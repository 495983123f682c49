package driver

import (
	"database/sql/driver"
	"io"
	"math"
	"reflect"

	"github.com/seqshim/seqshim/internal/engine"
)

// localRows are the rows of a statement answered in process, with the
// column-type methods pgx's rows have. It is engine.Rows under another
// name: the engine's rows become database/sql's by a pointer conversion,
// without an allocation of their own.
type localRows engine.Rows

var (
	_ driver.Rows                           = (*localRows)(nil)
	_ driver.RowsColumnTypeDatabaseTypeName = (*localRows)(nil)
	_ driver.RowsColumnTypeLength           = (*localRows)(nil)
	_ driver.RowsColumnTypePrecisionScale   = (*localRows)(nil)
	_ driver.RowsColumnTypeScanType         = (*localRows)(nil)
)

func (r *localRows) rows() *engine.Rows { return (*engine.Rows)(r) }

func (r *localRows) Columns() []string { return r.rows().Columns() }

func (r *localRows) Close() error {
	r.rows().Close()
	return nil
}

func (r *localRows) Next(dest []driver.Value) error {
	if r.rows().Text() {
		texts, nulls, ok := r.rows().NextText()
		if !ok {
			return io.EOF
		}
		for i := range min(len(dest), len(texts)) {
			if nulls != nil && nulls[i] {
				dest[i] = nil
			} else {
				dest[i] = texts[i]
			}
		}
		return nil
	}
	values, nulls, ok := r.rows().Next()
	if !ok {
		return io.EOF
	}
	for i := range min(len(dest), len(values)) {
		if nulls != nil && nulls[i] {
			dest[i] = nil
		} else {
			dest[i] = values[i]
		}
	}
	return nil
}

// ColumnTypeDatabaseTypeName is "INT8" for PostgreSQL, as pgx reports bigint;
// a text column's is pgx's name for its type (see engine.Rows.TypeName).
func (r *localRows) ColumnTypeDatabaseTypeName(j int) string { return r.rows().TypeName(j) }

// ColumnTypeLength is pgx's: int8, name and regclass are not
// variable-length types; text is unbounded, and a varchar without a length
// is the type modifier -1 less pgx's header size of 4.
func (r *localRows) ColumnTypeLength(j int) (int64, bool) {
	switch r.rows().TypeName(j) {
	case "TEXT":
		return math.MaxInt64, true
	case "VARCHAR":
		return -1 - 4, true
	}
	return 0, false
}

// ColumnTypePrecisionScale: no column is a decimal type.
func (r *localRows) ColumnTypePrecisionScale(int) (int64, int64, bool) { return 0, 0, false }

// ColumnTypeScanType is int64, as pgx reports for int8; string for text
// columns.
func (r *localRows) ColumnTypeScanType(int) reflect.Type {
	if r.rows().Text() {
		return reflect.TypeFor[string]()
	}
	return reflect.TypeFor[int64]()
}
