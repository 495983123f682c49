package pgxseq

import (
	"context"
	"errors"
	"fmt"
	"strconv"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"
	"github.com/jackc/pgx/v5/pgtype"
	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/seqshim/seqshim/internal/engine"
)

// bufRows are rows held in memory, as pgx.Rows: a statement's answer made
// here (sequence functions: int8, regclass text) in PostgreSQL's text
// format, or a batch statement's result read from the database before the
// program asks for it (any format). They scan and decode exactly as the
// database's rows do, through the connection's type map.
type bufRows struct {
	conn   *pgx.Conn
	m      *pgtype.Map
	fields []pgconn.FieldDescription
	cells  [][]byte // the rows' raw values, row after row
	tag    pgconn.CommandTag
	err    error

	next   int // index of the next row
	cur    [][]byte
	closed bool

	local *engine.Rows // the engine's rows read into cells, closed with these
	text  []byte       // local rows' text
	ends  []int        // where each local value ends in text; -1-end for NULL
	ints  []int64      // local int8 rows' values, as cells: Scan into *int64 takes them as they are

	// Room for the common answer (one row of one or two columns): rows
	// answered here allocate nothing more.
	fieldsBuf [2]pgconn.FieldDescription
	cellsBuf  [4][]byte
	textBuf   [48]byte
	endsBuf   [4]int
	intsBuf   [4]int64
}

var _ pgx.Rows = (*bufRows)(nil)

// typeOID is the OID of the type of a column answered here, by the name
// the engine gives it (engine.Rows.TypeName).
func typeOID(name string) uint32 {
	switch name {
	case "INT8", "BIGINT":
		return pgtype.Int8OID
	case "TEXT":
		return pgtype.TextOID
	case "VARCHAR":
		return pgtype.VarcharOID
	case "NAME":
		return pgtype.NameOID
	}
	return 2205 // regclass
}

// localRows returns r, rows the engine answered (nil: none, for a command),
// as pgx.Rows with command tag tag. Rows the session reads itself before
// its next statement (own: QueryRow's, a batch's) are the session's own,
// reused. Others come from a slab of the session's, never reused (the
// program may read Err after Close, when a pool's connection may already
// run another goroutine's statement), as pgxpool allocates its rows: one
// allocation per slab.
func (x *session) localRows(r *engine.Rows, tag string, own bool) *bufRows {
	var b *bufRows
	if own {
		b = &x.ownRows
		*b = bufRows{}
	} else {
		if len(x.rowsSlab) == 0 {
			x.rowsSlab = make([]bufRows, rowsSlab)
		}
		b = &x.rowsSlab[len(x.rowsSlab)-1]
		x.rowsSlab = x.rowsSlab[:len(x.rowsSlab)-1]
	}
	b.conn, b.m, b.tag = x.conn, x.conn.TypeMap(), pgconn.NewCommandTag(tag)
	b.fields, b.cells, b.text, b.ends = b.fieldsBuf[:0], b.cellsBuf[:0], b.textBuf[:0], b.endsBuf[:0]
	b.ints = nil
	if r == nil {
		return b
	}
	b.local = r
	for j, name := range r.Columns() {
		b.fields = append(b.fields, pgconn.FieldDescription{Name: name, DataTypeOID: typeOID(r.TypeName(j)),
			DataTypeSize: -1, TypeModifier: -1, Format: pgx.TextFormatCode})
		if b.fields[j].DataTypeOID == pgtype.Int8OID {
			b.fields[j].DataTypeSize = 8
		}
	}
	// The text of every value first, then the cells as slices of it: the
	// text may move while it grows.
	for {
		var nulls []bool
		if r.Text() {
			texts, ns, ok := r.NextText()
			if !ok {
				break
			}
			nulls = ns
			for _, t := range texts {
				b.text = append(b.text, t...)
				b.ends = append(b.ends, len(b.text))
			}
		} else {
			values, ns, ok := r.Next()
			if !ok {
				break
			}
			nulls = ns
			if b.ints == nil {
				b.ints = b.intsBuf[:0]
			}
			b.ints = append(b.ints, values...)
			for _, v := range values {
				b.text = strconv.AppendInt(b.text, v, 10)
				b.ends = append(b.ends, len(b.text))
			}
		}
		row := b.ends[len(b.ends)-len(nulls):]
		for i := range nulls {
			if nulls[i] {
				row[i] = -1 - row[i]
			}
		}
	}
	start := 0
	for _, end := range b.ends {
		if end < 0 { // NULL
			b.cells = append(b.cells, nil)
			start = -1 - end
			continue
		}
		b.cells = append(b.cells, b.text[start:end:end])
		start = end
	}
	return b
}

// errRows are the rows of a query that failed, as pgx returns with the
// error.
func errRows(err error) pgx.Rows { return &bufRows{err: err, closed: true} }

func (b *bufRows) Close() {
	if b.closed {
		return
	}
	b.closed = true
	b.cur = nil
	if b.local != nil {
		b.local.Close()
		b.local = nil
	}
}

// rowsSlab is the number of rows wrappers a session allocates at once.
const rowsSlab = 32

func (b *bufRows) Err() error                                   { return b.err }
func (b *bufRows) CommandTag() pgconn.CommandTag                { return b.tag }
func (b *bufRows) FieldDescriptions() []pgconn.FieldDescription { return b.fields }
func (b *bufRows) RawValues() [][]byte                          { return b.cur }
func (b *bufRows) Conn() *pgx.Conn                              { return b.conn }
func (b *bufRows) TypeMap() *pgtype.Map                         { return b.m }

func (b *bufRows) Next() bool {
	n := len(b.fields)
	if b.closed || n == 0 || b.next+n > len(b.cells) {
		b.Close()
		return false
	}
	b.cur = b.cells[b.next : b.next+n : b.next+n]
	b.next += n
	return true
}

func (b *bufRows) Scan(dest ...any) error {
	if b.closed || b.cur == nil {
		return errors.New("pgxseq: Scan without a row: call Next first")
	}
	if len(dest) == 1 {
		if rs, ok := dest[0].(pgx.RowScanner); ok {
			return rs.ScanRow(b)
		}
	}
	if b.ints != nil && b.scanInts(dest) {
		return nil
	}
	if err := pgx.ScanRow(b.m, b.fields, b.cur, dest...); err != nil {
		b.err = err
		b.Close()
		return err
	}
	return nil
}

// scanInts scans the current row of int8 values answered here into dest
// when every destination is an *int64 and no value is NULL, as pgx would
// (without its text round trip), and reports whether it did.
func (b *bufRows) scanInts(dest []any) bool {
	if len(dest) != len(b.cur) {
		return false
	}
	start := b.next - len(b.cur)
	for i, d := range dest {
		if _, ok := d.(*int64); !ok || b.cur[i] == nil {
			return false
		}
	}
	for i, d := range dest {
		*d.(*int64) = b.ints[start+i]
	}
	return true
}

func (b *bufRows) Values() ([]any, error) {
	if b.closed || b.cur == nil {
		return nil, errors.New("rows is closed")
	}
	values := make([]any, len(b.fields))
	for i, raw := range b.cur {
		if raw == nil {
			continue
		}
		fd := &b.fields[i]
		t, ok := b.m.TypeForOID(fd.DataTypeOID)
		if !ok {
			if fd.Format == pgx.TextFormatCode {
				values[i] = string(raw)
			} else {
				values[i] = append([]byte{}, raw...)
			}
			continue
		}
		v, err := t.Codec.DecodeValue(b.m, fd.DataTypeOID, fd.Format, raw)
		if err != nil {
			b.err = err
			b.Close()
			return nil, err
		}
		values[i] = v
	}
	return values, nil
}

// readRows reads rows, the database's, into memory (a batch's result
// read before the program asks for it).
func readRows(rows pgx.Rows) *bufRows {
	b := &bufRows{conn: rows.Conn(), m: rows.TypeMap()}
	b.fields = append(b.fields, rows.FieldDescriptions()...)
	for rows.Next() {
		for _, v := range rows.RawValues() {
			if v != nil {
				v = append(make([]byte, 0, len(v)), v...)
			}
			b.cells = append(b.cells, v)
		}
	}
	rows.Close()
	b.tag, b.err = rows.CommandTag(), rows.Err()
	return b
}

// lazyRows are rows answered here that the session reads itself (own):
// read into bufRows only when something reads them but QueryRow's Scan
// into *int64 destinations, which takes the values as they are.
type lazyRows struct {
	x      *session
	r      *engine.Rows // nil once read
	tag    string
	b      *bufRows // nil until read
	closed bool
}

var _ pgx.Rows = (*lazyRows)(nil)

func (l *lazyRows) rows() *bufRows {
	if l.b == nil {
		l.b = l.x.localRows(l.r, l.tag, true)
		l.r = nil
		if l.closed {
			l.b.Close()
		}
	}
	return l.b
}

func (l *lazyRows) Close() {
	switch {
	case l.b != nil:
		l.b.Close()
	case l.r != nil:
		l.r.Close()
		l.r = nil
	}
	l.closed = true
}

func (l *lazyRows) Err() error {
	if l.b == nil {
		return nil
	}
	return l.b.Err()
}

func (l *lazyRows) CommandTag() pgconn.CommandTag {
	if l.b == nil {
		return pgconn.NewCommandTag(l.tag)
	}
	return l.b.CommandTag()
}

func (l *lazyRows) FieldDescriptions() []pgconn.FieldDescription { return l.rows().FieldDescriptions() }
func (l *lazyRows) Next() bool                                   { return l.rows().Next() }
func (l *lazyRows) Scan(dest ...any) error                       { return l.rows().Scan(dest...) }
func (l *lazyRows) Values() ([]any, error)                       { return l.rows().Values() }
func (l *lazyRows) RawValues() [][]byte                          { return l.rows().RawValues() }
func (l *lazyRows) Conn() *pgx.Conn                              { return l.x.conn }
func (l *lazyRows) TypeMap() *pgtype.Map                         { return l.x.conn.TypeMap() }

// scanFirst is QueryRow's Scan of rows not read yet into *int64
// destinations (SELECT nextval('s') … Scan(&id)): the first row's values
// as they are, as pgx would scan them. It reports false, having read
// nothing, for other rows or destinations.
func (l *lazyRows) scanFirst(dest []any) (bool, error) {
	r := l.r
	if l.b != nil || r == nil || r.Text() || len(dest) != len(r.Columns()) {
		return false, nil
	}
	for _, d := range dest {
		if _, ok := d.(*int64); !ok {
			return false, nil
		}
	}
	values, nulls, ok := r.Next()
	if !ok {
		return true, pgx.ErrNoRows
	}
	for i, d := range dest {
		if nulls != nil && nulls[i] {
			return true, pgx.ScanArgError{ColumnIndex: i, FieldName: r.Columns()[i], Err: fmt.Errorf("cannot scan NULL into %T", d)}
		}
		*d.(*int64) = values[i]
	}
	return true, nil
}

// row is QueryRow's answer: the first row of rows, or its error.
type row struct {
	rows pgx.Rows
	err  error
	pool *pgxpool.Conn // released once the row is scanned, or nil
}

// queryRow is QueryRow on the session, on a connection of a pool (which
// Scan gives back) or not (nil). Its answer is the session's own, reused:
// pgx's Row is scanned once, before the connection runs anything else.
func (x *session) queryRow(ctx context.Context, c *pgxpool.Conn, sql string, args []any) pgx.Row {
	rows, err := x.query(ctx, sql, args, true)
	r := &x.ownRow
	r.rows, r.err, r.pool = rows, err, c // not r = row{…}: see engine's newRows
	return r
}

func (r *row) Scan(dest ...any) error {
	if r.pool != nil {
		defer r.pool.Release()
	}
	if r.err != nil {
		return r.err
	}
	rows := r.rows
	defer rows.Close()
	if l, ok := rows.(*lazyRows); ok {
		if done, err := l.scanFirst(dest); done {
			return err
		}
	}
	if !rows.Next() {
		if err := rows.Err(); err != nil {
			return err
		}
		return pgx.ErrNoRows
	}
	if err := rows.Scan(dest...); err != nil {
		return err
	}
	rows.Close()
	return rows.Err()
}
