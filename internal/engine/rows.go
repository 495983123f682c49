package engine

import "github.com/seqshim/seqshim/rewrite"

// Rows are the rows of a statement answered in process, with columns named
// as the database names them: int8 columns (sequence functions), or text
// columns (regclass values, [Rows.Text]). A front end reads them with
// [Rows.Next] or [Rows.NextText] and presents them in its own type
// (database/sql's driver.Rows, pgx.Rows); the zero value has no columns and
// no rows.
type Rows struct {
	columns  []string // the plan's: never modified
	typeName string   // every column's type, for int8 columns
	types    []string // text columns: each one's type name; nil for int8 columns
	values   []int64  // row-major; 0 where NULL
	texts    []string // text columns: row-major; "" where NULL
	nulls    []bool   // nil, or which of values (texts) are NULL
	next     int      // index in values (texts) of the next row
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
	// Field by field rather than *r = Rows{…}: a whole-struct store into
	// the heap is a bulk write barrier, and this is the hot path of
	// SELECT nextval('s'). small needs no reset: values are appended to it.
	r.columns, r.typeName, r.types = columns, s.eng.intTypeName(), nil
	r.values, r.texts, r.nulls, r.next = nil, nil, nil, 0
	r.spare = &s.spareRows
	return r
}

// Columns returns the column names, shared with the plan: do not modify.
func (r *Rows) Columns() []string { return r.columns }

// Text reports whether the columns are text columns, read with
// [Rows.NextText], rather than int8 ones.
func (r *Rows) Text() bool { return r.types != nil }

// TypeName is the database type name of column j as pgx's database/sql
// driver reports it: "INT8" for a sequence function's result in
// PostgreSQL ("BIGINT" for the other dialects); for text columns "TEXT",
// "VARCHAR", "NAME", or "2205" for regclass, which pgx's type map does not
// name (it reports the type's OID).
func (r *Rows) TypeName(j int) string {
	if r.types != nil {
		return r.types[j]
	}
	return r.typeName
}

// NumRows returns the number of rows.
func (r *Rows) NumRows() int {
	if len(r.columns) == 0 {
		return 0
	}
	if r.types != nil {
		return len(r.texts) / len(r.columns)
	}
	return len(r.values) / len(r.columns)
}

// Next returns the next row's values and, when some of them are NULL,
// which (nulls is nil otherwise). ok is false after the last row. The slices
// are the rows' own: read them before the next call. Rows of text columns
// have none: see [Rows.NextText].
func (r *Rows) Next() (values []int64, nulls []bool, ok bool) {
	n := len(r.columns)
	if n == 0 || r.types != nil || r.next >= len(r.values) {
		return nil, nil, false
	}
	i := r.next
	r.next += n
	if r.nulls != nil {
		nulls = r.nulls[i : i+n]
	}
	return r.values[i : i+n], nulls, true
}

// NextText is [Rows.Next] for rows of text columns.
func (r *Rows) NextText() (texts []string, nulls []bool, ok bool) {
	n := len(r.columns)
	if n == 0 || r.types == nil || r.next >= len(r.texts) {
		return nil, nil, false
	}
	i := r.next
	r.next += n
	if r.nulls != nil {
		nulls = r.nulls[i : i+n]
	}
	return r.texts[i : i+n], nulls, true
}

// Close skips the remaining rows. The front end closes rows at most once
// and reads nothing of them after: the session reuses them for the next
// statement answered in process.
func (r *Rows) Close() {
	r.next = max(len(r.values), len(r.texts))
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

// addText appends a text value, or a NULL, to rows of text columns.
func (r *Rows) addText(v string, null bool) {
	if null && r.nulls == nil {
		r.nulls = make([]bool, len(r.texts), cap(r.texts))
	}
	if null {
		v = ""
	}
	r.texts = append(r.texts, v)
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
