package pgxseq

import (
	"context"
	"slices"

	"github.com/jackc/pgx/v5"

	"github.com/seqshim/seqshim/internal/engine"
)

// Assigned receives the values a CopyFrom under [WithAssigned] filled in:
// COPY cannot return them (it has no RETURNING), seqshim can.
type Assigned struct {
	// Columns are the columns CopyFrom filled, in the order of Values.
	Columns []string
	// Values are the rows' values, row after row: row i's value of
	// Columns[j] is Values[i*len(Columns)+j]. With one column filled (a
	// table's id), Values[i] is row i's id.
	Values []int64
}

type assignedKey struct{}

// WithAssigned returns a context under which CopyFrom records the values
// it fills in into a (its Columns set, Values appended to). It works
// through code that calls CopyFrom for the program, such as sqlc's
// :copyfrom methods:
//
//	var ids pgxseq.Assigned
//	n, err := queries.CreateAuthors(pgxseq.WithAssigned(ctx, &ids), rows)
//	// ids.Values[i] is the id of rows[i]
func WithAssigned(ctx context.Context, a *Assigned) context.Context {
	return context.WithValue(ctx, assignedKey{}, a)
}

// copyFrom is CopyFrom on the session: COPY of columnNames into tableName,
// with the columns it leaves out whose default the store serves added to
// the column list and filled in every row, drawn as an INSERT leaving them
// to their defaults draws them. The first row's values are drawn before
// the COPY starts; the rest while it runs, from the cache.
func (x *session) copyFrom(ctx context.Context, tableName pgx.Identifier, columnNames []string, rowSrc pgx.CopyFromSource) (int64, error) {
	fill, err := x.s.CopyFill(ctx, tableName, columnNames)
	if err != nil {
		return 0, err
	}
	if fill == nil {
		n, err := x.conn.CopyFrom(ctx, tableName, columnNames, rowSrc)
		if err != nil {
			err = x.s.DatabaseError(ctx, err)
		}
		return n, err
	}
	src := &filledSource{ctx: ctx, src: rowSrc, fill: fill}
	if a, _ := ctx.Value(assignedKey{}).(*Assigned); a != nil {
		a.Columns = fill.Columns()
		src.assigned = a
	}
	// The first row now, so that its draws may ask the database.
	if src.pull() {
		src.primed = true
	} else if src.err != nil {
		return 0, src.err
	}
	columns := append(slices.Clip(columnNames), fill.Columns()...)
	n, err := x.conn.CopyFrom(ctx, tableName, columns, src)
	if err != nil && err != src.err {
		err = x.s.DatabaseError(ctx, err)
	}
	return n, err
}

// filledSource is the program's rows with the filled columns' values
// added.
type filledSource struct {
	ctx      context.Context
	src      pgx.CopyFromSource
	fill     *engine.CopyFill[engine.AnyArgs]
	assigned *Assigned
	row      []any
	vals     []int64
	primed   bool // row holds the first row, not handed out yet
	err      error
}

// pull reads the program's next row and draws its values.
func (s *filledSource) pull() bool {
	if !s.src.Next() {
		return false
	}
	values, err := s.src.Values()
	if err != nil {
		s.err = err
		return false
	}
	drawn, err := s.fill.Next(s.ctx)
	if err != nil {
		s.err = err
		return false
	}
	s.row = append(append(s.row[:0], values...), make([]any, len(drawn))...)
	s.vals = append(s.vals[:0], drawn...)
	for i := range drawn {
		s.row[len(values)+i] = s.vals[i]
	}
	if s.assigned != nil {
		s.assigned.Values = append(s.assigned.Values, drawn...)
	}
	return true
}

func (s *filledSource) Next() bool {
	if s.primed {
		s.primed = false
		return true
	}
	return s.err == nil && s.pull()
}

func (s *filledSource) Values() ([]any, error) { return s.row, s.err }

func (s *filledSource) Err() error {
	if s.err != nil {
		return s.err
	}
	return s.src.Err()
}
