package pgxseq

import (
	"context"
	"errors"
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

	// Room for the common answer (one row of one or two columns): rows
	// answered here allocate nothing more.
	fieldsBuf [2]pgconn.FieldDescription
	cellsBuf  [4][]byte
	textBuf   [48]byte
	endsBuf   [4]int
}

var _ pgx.Rows = (*bufRows)(nil)

// typeOIDs are the OIDs of the types of columns answered here, by the
// names the engine gives them (engine.Rows.TypeName).
var typeOIDs = map[string]uint32{
	"INT8": pgtype.Int8OID, "BIGINT": pgtype.Int8OID, "TEXT": pgtype.TextOID,
	"VARCHAR": pgtype.VarcharOID, "NAME": pgtype.NameOID, "2205": 2205, // regclass
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
	if r == nil {
		return b
	}
	b.local = r
	for j, name := range r.Columns() {
		b.fields = append(b.fields, pgconn.FieldDescription{Name: name, DataTypeOID: typeOIDs[r.TypeName(j)],
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
	if err := pgx.ScanRow(b.m, b.fields, b.cur, dest...); err != nil {
		b.err = err
		b.Close()
		return err
	}
	return nil
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
	x.ownRow = row{rows: rows, err: err, pool: c}
	return &x.ownRow
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
