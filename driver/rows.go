package driver

import (
	"database/sql/driver"
	"io"
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

// ColumnTypeDatabaseTypeName is "INT8" for PostgreSQL, as pgx reports bigint.
func (r *localRows) ColumnTypeDatabaseTypeName(int) string { return r.rows().TypeName() }

// ColumnTypeLength: int8 is not a variable-length type.
func (r *localRows) ColumnTypeLength(int) (int64, bool) { return 0, false }

// ColumnTypePrecisionScale: int8 is not a decimal type.
func (r *localRows) ColumnTypePrecisionScale(int) (int64, int64, bool) { return 0, 0, false }

// ColumnTypeScanType is int64, as pgx reports for int8.
func (r *localRows) ColumnTypeScanType(int) reflect.Type { return reflect.TypeFor[int64]() }
