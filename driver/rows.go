package driver

import (
	"database/sql/driver"
	"io"
	"reflect"
)

// localRows are the rows of a statement answered in process: int8 columns
// named as PostgreSQL names them, with the column-type methods pgx's rows
// have.
type localRows struct {
	columns  []string
	typeName string
	values   []driver.Value // row-major
	next     int            // index in values of the next row
	small    [2]driver.Value
}

var (
	_ driver.Rows                           = (*localRows)(nil)
	_ driver.RowsColumnTypeDatabaseTypeName = (*localRows)(nil)
	_ driver.RowsColumnTypeLength           = (*localRows)(nil)
	_ driver.RowsColumnTypePrecisionScale   = (*localRows)(nil)
	_ driver.RowsColumnTypeScanType         = (*localRows)(nil)
)

func (r *localRows) numRows() int {
	if len(r.columns) == 0 {
		return 0
	}
	return len(r.values) / len(r.columns)
}

func (r *localRows) Columns() []string { return r.columns }

func (r *localRows) Close() error {
	r.next = len(r.values)
	return nil
}

func (r *localRows) Next(dest []driver.Value) error {
	if len(r.columns) == 0 || r.next >= len(r.values) {
		return io.EOF
	}
	r.next += copy(dest, r.values[r.next:r.next+len(r.columns)])
	return nil
}

// ColumnTypeDatabaseTypeName is "INT8" for PostgreSQL, as pgx reports bigint.
func (r *localRows) ColumnTypeDatabaseTypeName(int) string { return r.typeName }

// ColumnTypeLength: int8 is not a variable-length type.
func (r *localRows) ColumnTypeLength(int) (int64, bool) { return 0, false }

// ColumnTypePrecisionScale: int8 is not a decimal type.
func (r *localRows) ColumnTypePrecisionScale(int) (int64, int64, bool) { return 0, 0, false }

// ColumnTypeScanType is int64, as pgx reports for int8.
func (r *localRows) ColumnTypeScanType(int) reflect.Type { return reflect.TypeFor[int64]() }
