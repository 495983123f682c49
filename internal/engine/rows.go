package engine

import "github.com/seqshim/seqshim/rewrite"

// Rows are the rows of a statement answered in process: int8 columns named
// as the database names them. A front end reads them with [Rows.Next] and
// presents them in its own type (database/sql's driver.Rows, pgx.Rows); the
// zero value has no columns and no rows.
type Rows struct {
	columns  []string // the plan's: never modified
	typeName string
	values   []int64  // row-major; 0 where NULL
	nulls    []bool   // nil, or which of values are NULL
	next     int      // index in values of the next row
	small    [2]int64 // values of the common single row: one allocation less
	spare    **Rows   // its session's slot for reuse; nil once closed
}

// newRows returns empty rows with columns, reusing the last rows the
// session's front end closed: a statement answered in process allocates
// nothing for its result.
func (s *Session[A]) newRows(columns []string) *Rows {
	r := s.spareRows
	if r == nil {
		r = new(Rows)
	}
	s.spareRows = nil
	*r = Rows{columns: columns, typeName: s.eng.intTypeName(), spare: &s.spareRows}
	return r
}

// Columns returns the column names, shared with the plan: do not modify.
func (r *Rows) Columns() []string { return r.columns }

// TypeName is the database type name of every column: "INT8" for
// PostgreSQL, as pgx reports bigint, "BIGINT" for the other dialects.
func (r *Rows) TypeName() string { return r.typeName }

// NumRows returns the number of rows.
func (r *Rows) NumRows() int {
	if len(r.columns) == 0 {
		return 0
	}
	return len(r.values) / len(r.columns)
}

// Next returns the next row's values and, when some of them are NULL,
// which (nulls is nil otherwise). ok is false after the last row. The slices
// are the rows' own: read them before the next call.
func (r *Rows) Next() (values []int64, nulls []bool, ok bool) {
	n := len(r.columns)
	if n == 0 || r.next >= len(r.values) {
		return nil, nil, false
	}
	i := r.next
	r.next += n
	if r.nulls != nil {
		nulls = r.nulls[i : i+n]
	}
	return r.values[i : i+n], nulls, true
}

// Close skips the remaining rows. The front end closes rows at most once
// and reads nothing of them after: the session reuses them for the next
// statement answered in process.
func (r *Rows) Close() {
	r.next = len(r.values)
	if r.spare != nil && *r.spare == nil {
		*r.spare, r.spare = r, nil
	}
}

// add appends a value, or a NULL.
func (r *Rows) add(v int64, null bool) {
	if null && r.nulls == nil {
		r.nulls = make([]bool, len(r.values), cap(r.values))
	}
	if null {
		v = 0
	}
	r.values = append(r.values, v)
	if r.nulls != nil {
		r.nulls = append(r.nulls, null)
	}
}

// intTypeName is the database type name of a sequence function's result.
func (e *Engine) intTypeName() string {
	if e.dialect == rewrite.Postgres {
		return "INT8" // what pgx reports for bigint
	}
	return "BIGINT"
}
