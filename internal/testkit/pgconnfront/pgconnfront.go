// Package pgconnfront is a second front end of seqshim's core, for tests
// only: the engine's statement lifecycle over a bare *pgconn.PgConn, with
// no database/sql in sight. It exists to show that the core serves any
// front end without copying the driver: every method here only converts
// between pgconn's types and the engine's, as the database/sql driver's do.
package pgconnfront

import (
	"context"
	"errors"
	"fmt"
	"strconv"
	"strings"

	"github.com/jackc/pgx/v5/pgconn"
	"github.com/jackc/pgx/v5/pgtype"

	"github.com/seqshim/seqshim/conformance"
	"github.com/seqshim/seqshim/internal/engine"
)

// Conn is one session: a PostgreSQL connection and its engine session.
type Conn struct {
	pc   *pgconn.PgConn
	eng  *engine.Engine
	sess *engine.Session[engine.AnyArgs]
	m    *pgtype.Map
}

var _ conformance.Conn = (*Conn)(nil)

// Connect opens a connection to connString and a session of an engine of
// cfg (the process's store and cache of cfg's store, shared with every
// other front end on it). Close releases both.
func Connect(ctx context.Context, connString string, cfg engine.Config) (*Conn, error) {
	eng, err := engine.Open(ctx, cfg)
	if err != nil {
		return nil, err
	}
	pc, err := pgconn.Connect(ctx, connString)
	if err != nil {
		eng.Close()
		return nil, err
	}
	sess, err := engine.NewSession[engine.AnyArgs](ctx, eng, engine.PgConn(pc))
	if err != nil {
		pc.Close(ctx)
		eng.Close()
		return nil, err
	}
	return &Conn{pc: pc, eng: eng, sess: sess, m: pgtype.NewMap()}, nil
}

// Target is the conformance target of sessions Connect opens on
// connString with cfg: plain [conformance.Conn]s (no prepared statements,
// no pgx query modes) on one database, conformance.DefaultDB, opened
// without parameters (no dsn=). Open refuses any other database or
// parameters: run only the scenarios [conformance.RunConns] accepts.
func Target(connString string, cfg engine.Config) conformance.ConnTarget {
	return conformance.ConnTarget{
		Open: func(ctx context.Context, db, params string) (conformance.Conn, error) {
			if db != conformance.DefaultDB {
				return nil, fmt.Errorf("pgconnfront: one database only, not db=%s", db)
			}
			if params != "" {
				return nil, fmt.Errorf("pgconnfront: no connection parameters (dsn=%s)", params)
			}
			c, err := Connect(ctx, connString, cfg)
			if err != nil {
				return nil, err // not a nil *Conn in a non-nil Conn
			}
			return c, nil
		},
	}
}

// Exec runs sql with args and returns the rows it affected: by the simple
// protocol without arguments, as pgx does.
func (c *Conn) Exec(ctx context.Context, sql string, args []any) (int64, error) {
	step, err := c.sess.Run(ctx, sql, args, engine.Request{Extended: len(args) > 0})
	if err != nil {
		return 0, err
	}
	if step.SQL == "" {
		return step.RowsAffected, nil
	}
	res, err := c.send(ctx, &step, sql, args, true)
	if err = c.sess.Finish(ctx, &step, err); err != nil {
		return 0, err
	}
	if step.Affected {
		return step.RowsAffected, nil
	}
	return res.CommandTag.RowsAffected(), nil
}

// Query runs sql with args and returns its rows, by the extended protocol
// as pgx's default mode does.
func (c *Conn) Query(ctx context.Context, sql string, args []any) (*conformance.Result, error) {
	step, err := c.sess.Run(ctx, sql, args, engine.Request{Rows: true, Extended: true})
	if err != nil {
		return nil, err
	}
	if step.SQL == "" {
		return c.local(step.Rows), nil
	}
	res, err := c.send(ctx, &step, sql, args, step.Rows != nil)
	if err = c.sess.Finish(ctx, &step, err); err != nil {
		return nil, err
	}
	if step.Rows != nil {
		return c.local(step.Rows), nil
	}
	return c.result(res)
}

// Begin begins a transaction block.
func (c *Conn) Begin(ctx context.Context, readOnly bool) error {
	c.sess.Begin(readOnly)
	sql := "BEGIN"
	if readOnly {
		sql = "BEGIN READ ONLY"
	}
	_, err := c.pc.Exec(ctx, sql).ReadAll()
	return err
}

// Commit commits the transaction: the sequence DDL it holds reaches the
// store first (the engine's commit protocol). A COMMIT that rolled back (a
// failed transaction) is an error, as pgx's Tx.Commit says.
func (c *Conn) Commit(ctx context.Context) error {
	commit := func(ctx context.Context) error {
		tag, err := c.pc.Exec(ctx, "COMMIT").ReadAll()
		if err == nil && len(tag) == 1 && tag[0].CommandTag.String() == "ROLLBACK" {
			return errCommitRollback
		}
		return err
	}
	return c.sess.Commit(ctx, commit, c.command("ROLLBACK"))
}

var errCommitRollback = errors.New("commit unexpectedly resulted in rollback")

// Rollback rolls the transaction back.
func (c *Conn) Rollback(ctx context.Context) error {
	return c.sess.Rollback(ctx, c.command("ROLLBACK"))
}

// Close closes the connection and releases the engine.
func (c *Conn) Close(ctx context.Context) error {
	err := c.pc.Close(ctx)
	if cerr := c.eng.Close(); err == nil {
		err = cerr
	}
	return err
}

func (c *Conn) command(sql string) func(context.Context) error {
	return func(ctx context.Context) error {
		_, err := c.pc.Exec(ctx, sql).ReadAll()
		return err
	}
}

// send sends what the engine said as pgx would: a command without
// arguments by the simple protocol (several statements may be in it; the
// result is the last one's), anything else by the extended protocol, the
// caller's arguments then the call values bound, in text format.
func (c *Conn) send(ctx context.Context, step *engine.Step, sql string, args []any, command bool) (*pgconn.Result, error) {
	if !step.AsIs {
		sql = step.SQL
	}
	params := make([][]byte, 0, len(args)+len(step.Values))
	for _, a := range args {
		p, err := encode(a)
		if err != nil {
			return nil, err
		}
		params = append(params, p)
	}
	if step.Bound {
		for _, v := range step.Values {
			params = append(params, strconv.AppendInt(nil, v, 10))
		}
	}
	if command && len(params) == 0 {
		results, err := c.pc.Exec(ctx, sql).ReadAll()
		if err != nil {
			return nil, err
		}
		if len(results) == 0 {
			return &pgconn.Result{}, nil
		}
		return results[len(results)-1], nil
	}
	// Not ResultReader.Read, which leaves out the fields of a result
	// without rows.
	rr := c.pc.ExecParams(ctx, sql, params, nil, nil, nil)
	res := &pgconn.Result{}
	for rr.NextRow() {
		row := make([][]byte, len(rr.Values()))
		for i, v := range rr.Values() {
			if v != nil {
				row[i] = append([]byte{}, v...)
			}
		}
		res.Rows = append(res.Rows, row)
	}
	res.FieldDescriptions = append(res.FieldDescriptions, rr.FieldDescriptions()...)
	res.CommandTag, res.Err = rr.Close()
	return res, res.Err
}

// encode writes a bind argument in PostgreSQL's text format.
func encode(a any) ([]byte, error) {
	switch v := a.(type) {
	case nil:
		return nil, nil
	case string:
		return []byte(v), nil
	case []byte:
		return v, nil
	case int64:
		return strconv.AppendInt(nil, v, 10), nil
	case int:
		return strconv.AppendInt(nil, int64(v), 10), nil
	case bool:
		if v {
			return []byte("t"), nil
		}
		return []byte("f"), nil
	case float64:
		return strconv.AppendFloat(nil, v, 'g', -1, 64), nil
	}
	return nil, fmt.Errorf("pgconnfront: cannot encode an argument of type %T", a)
}

// local is the result of a statement the engine answered.
func (c *Conn) local(r *engine.Rows) *conformance.Result {
	res := &conformance.Result{}
	if r == nil {
		return res
	}
	defer r.Close()
	for j, name := range r.Columns() {
		res.Columns = append(res.Columns, name)
		res.Types = append(res.Types, r.TypeName(j))
	}
	for {
		var row []any
		if r.Text() {
			texts, nulls, ok := r.NextText()
			if !ok {
				return res
			}
			row = make([]any, len(texts))
			for i, v := range texts {
				row[i] = v
				if nulls != nil && nulls[i] {
					row[i] = nil
				}
			}
		} else {
			values, nulls, ok := r.Next()
			if !ok {
				return res
			}
			row = make([]any, len(values))
			for i, v := range values {
				row[i] = v
				if nulls != nil && nulls[i] {
					row[i] = nil
				}
			}
		}
		res.Rows = append(res.Rows, row)
	}
}

// result converts the database's result as pgx's database/sql driver
// scans its values: integers as int64, floats as float64, booleans,
// timestamps as time.Time, bytea as []byte, the rest as text.
func (c *Conn) result(res *pgconn.Result) (*conformance.Result, error) {
	out := &conformance.Result{}
	for _, fd := range res.FieldDescriptions {
		out.Columns = append(out.Columns, fd.Name)
		name := strconv.FormatUint(uint64(fd.DataTypeOID), 10) // as pgx's database/sql driver names a type it has no name for
		if t, ok := c.m.TypeForOID(fd.DataTypeOID); ok {
			name = strings.ToUpper(t.Name)
		}
		out.Types = append(out.Types, name)
	}
	for _, raw := range res.Rows {
		row := make([]any, len(raw))
		for i, v := range raw {
			if v == nil {
				continue
			}
			fd := res.FieldDescriptions[i]
			switch fd.DataTypeOID {
			case pgtype.Int2OID, pgtype.Int4OID, pgtype.Int8OID, pgtype.OIDOID:
				n, err := strconv.ParseInt(string(v), 10, 64)
				if err != nil {
					return nil, err
				}
				row[i] = n
			case pgtype.Float4OID, pgtype.Float8OID:
				f, err := strconv.ParseFloat(string(v), 64)
				if err != nil {
					return nil, err
				}
				row[i] = f
			case pgtype.BoolOID:
				row[i] = string(v) == "t"
			case pgtype.ByteaOID, pgtype.TimestampOID, pgtype.TimestamptzOID, pgtype.DateOID:
				t, _ := c.m.TypeForOID(fd.DataTypeOID)
				val, err := t.Codec.DecodeValue(c.m, fd.DataTypeOID, fd.Format, v)
				if err != nil {
					return nil, err
				}
				row[i] = val
			default:
				row[i] = string(v)
			}
		}
		out.Rows = append(out.Rows, row)
	}
	return out, nil
}
