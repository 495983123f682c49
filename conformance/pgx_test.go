package conformance_test

import (
	"context"
	"errors"
	"fmt"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"
	"github.com/jackc/pgx/v5/pgtype"

	"github.com/seqshim/seqshim/conformance"
	"github.com/seqshim/seqshim/pgxseq"
)

// The pgx-native front end (package pgxseq) as a conformance target: every
// scenario, on every store, through pgx's own API (Exec, Query, Prepare,
// BeginTx, query modes as leading arguments), compared with PostgreSQL as
// the database/sql targets are.

// pgxTarget opens the sessions of a scenario run through pgxseq: one
// pgxseq.Pool per database handle (a database and a session's dsn=
// parameters), as database/sql has one handle per DSN, and a session is a
// connection acquired from it and kept until the session ends.
type pgxTarget struct {
	url      func(db, params string) (string, error) // the URL of a database handle, with the seqshim parameters
	recreate func(ctx context.Context, db string) error

	mu    sync.Mutex
	pools map[[2]string]*pgxseq.Pool
}

func (p *pgxTarget) target() conformance.ConnTarget {
	tgt := conformance.ConnTarget{Open: p.open, PgxArgs: true}
	if p.recreate != nil {
		tgt.Recreate = func(ctx context.Context, db string) error {
			p.closePools(db)
			return p.recreate(ctx, db)
		}
	}
	return tgt
}

func (p *pgxTarget) open(ctx context.Context, db, params string) (conformance.Conn, error) {
	p.mu.Lock()
	key := [2]string{db, params}
	pool := p.pools[key]
	p.mu.Unlock()
	if pool == nil {
		u, err := p.url(db, params)
		if err != nil {
			return nil, err
		}
		if pool, err = pgxseq.New(ctx, u); err != nil {
			return nil, err
		}
		p.mu.Lock()
		if p.pools == nil {
			p.pools = map[[2]string]*pgxseq.Pool{}
		}
		p.pools[key] = pool
		p.mu.Unlock()
	}
	c, err := pool.Acquire(ctx)
	if err != nil {
		return nil, err
	}
	return &pgxSession{c: c}, nil
}

// closePools closes the pools on database db ("" for all).
func (p *pgxTarget) closePools(db string) {
	p.mu.Lock()
	defer p.mu.Unlock()
	for key, pool := range p.pools {
		if db == "" || key[0] == db {
			pool.Close()
			delete(p.pools, key)
		}
	}
}

// runPgx runs sc through the pgx front end.
func runPgx(t *testing.T, p *pgxTarget, sc *conformance.Scenario) conformance.Transcript {
	t.Helper()
	defer p.closePools("")
	ctx, cancel := context.WithTimeout(context.Background(), 120*time.Second)
	defer cancel()
	tr, err := conformance.RunConnTarget(ctx, p.target(), sc)
	if err != nil {
		t.Fatal(err)
	}
	return tr
}

// pgxSession is one session: a pool's connection, and its transaction
// when one is open.
type pgxSession struct {
	c  *pgxseq.PoolConn
	tx pgx.Tx
}

var _ conformance.StmtConn = (*pgxSession)(nil)

func (s *pgxSession) Exec(ctx context.Context, sql string, args []any) (int64, error) {
	if s.tx != nil {
		tag, err := s.tx.Exec(ctx, sql, args...)
		return tag.RowsAffected(), err
	}
	tag, err := s.c.Exec(ctx, sql, args...)
	return tag.RowsAffected(), err
}

func (s *pgxSession) Query(ctx context.Context, sql string, args []any) (*conformance.Result, error) {
	var rows pgx.Rows
	var err error
	// The result formats pgx's database/sql driver asks for (text but
	// for the types it decodes itself), so that values compare.
	args = append([]any{sqlResultFormats}, args...)
	if s.tx != nil {
		rows, err = s.tx.Query(ctx, sql, args...)
	} else {
		rows, err = s.c.Query(ctx, sql, args...)
	}
	if err != nil {
		return nil, err
	}
	return result(rows)
}

func (s *pgxSession) Prepare(ctx context.Context, name, sql string) error {
	var err error
	if s.tx != nil {
		_, err = s.tx.Prepare(ctx, name, sql)
	} else {
		_, err = s.c.Prepare(ctx, name, sql)
	}
	return err
}

func (s *pgxSession) Begin(ctx context.Context, readOnly bool) error {
	opts := pgx.TxOptions{}
	if readOnly {
		opts.AccessMode = pgx.ReadOnly
	}
	tx, err := s.c.BeginTx(ctx, opts)
	if err == nil {
		s.tx = tx
	}
	return err
}

func (s *pgxSession) Commit(ctx context.Context) error {
	tx := s.tx
	s.tx = nil
	if tx == nil {
		return errors.New("no transaction")
	}
	return tx.Commit(ctx)
}

func (s *pgxSession) Rollback(ctx context.Context) error {
	tx := s.tx
	s.tx = nil
	if tx == nil {
		return errors.New("no transaction")
	}
	return tx.Rollback(ctx)
}

// Close ends the session: its database session too, as the database/sql
// runner's disconnect does.
func (s *pgxSession) Close(ctx context.Context) error {
	if s.tx != nil {
		s.tx.Rollback(ctx)
		s.tx = nil
	}
	err := s.c.Conn().Close(ctx)
	s.c.Release()
	return err
}

// result reads rows as pgx's database/sql driver (stdlib) hands values to
// database/sql, and names their types as it does: the transcripts of the
// two compare.
func result(rows pgx.Rows) (*conformance.Result, error) {
	defer rows.Close()
	m := rows.TypeMap()
	fds := rows.FieldDescriptions()
	out := &conformance.Result{}
	for _, fd := range fds {
		out.Columns = append(out.Columns, fd.Name)
		name := strconv.FormatInt(int64(fd.DataTypeOID), 10)
		if t, ok := m.TypeForOID(fd.DataTypeOID); ok {
			name = strings.ToUpper(t.Name)
		}
		out.Types = append(out.Types, name)
	}
	for rows.Next() {
		raw := rows.RawValues()
		row := make([]any, len(raw))
		for i, v := range raw {
			if v == nil {
				continue
			}
			val, err := sqlValue(m, &fds[i], v)
			if err != nil {
				return nil, fmt.Errorf("convert field %d failed: %w", i, err)
			}
			row[i] = val
		}
		out.Rows = append(out.Rows, row)
	}
	if err := rows.Err(); err != nil {
		return nil, err
	}
	return out, nil
}

// sqlResultFormats are the result formats of pgx/v5/stdlib's queries.
var sqlResultFormats = pgx.QueryResultFormatsByOID{
	pgtype.BoolOID: 1, pgtype.ByteaOID: 1, pgtype.CIDOID: 1, pgtype.DateOID: 1, pgtype.Float4OID: 1,
	pgtype.Float8OID: 1, pgtype.Int2OID: 1, pgtype.Int4OID: 1, pgtype.Int8OID: 1, pgtype.OIDOID: 1,
	pgtype.TimestampOID: 1, pgtype.TimestamptzOID: 1, pgtype.XIDOID: 1,
}

// sqlValue is stdlib's conversion of one value (pgx/v5/stdlib Rows.Next).
func sqlValue(m *pgtype.Map, fd *pgconn.FieldDescription, src []byte) (any, error) {
	scan := func(dst any) error { return m.PlanScan(fd.DataTypeOID, fd.Format, dst).Scan(src, dst) }
	switch fd.DataTypeOID {
	case pgtype.BoolOID:
		var d bool
		err := scan(&d)
		return d, err
	case pgtype.ByteaOID, pgtype.JSONOID, pgtype.JSONBOID, pgtype.XMLOID:
		var d []byte
		err := scan(&d)
		return append([]byte{}, d...), err
	case pgtype.CIDOID, pgtype.OIDOID, pgtype.XIDOID:
		var d pgtype.Uint32
		if err := scan(&d); err != nil {
			return nil, err
		}
		return d.Value()
	case pgtype.DateOID:
		var d pgtype.Date
		if err := scan(&d); err != nil {
			return nil, err
		}
		return d.Value()
	case pgtype.Float4OID:
		var d float32
		err := scan(&d)
		return float64(d), err
	case pgtype.Float8OID:
		var d float64
		err := scan(&d)
		return d, err
	case pgtype.Int2OID:
		var d int16
		err := scan(&d)
		return int64(d), err
	case pgtype.Int4OID:
		var d int32
		err := scan(&d)
		return int64(d), err
	case pgtype.Int8OID:
		var d int64
		err := scan(&d)
		return d, err
	case pgtype.TimestampOID:
		var d pgtype.Timestamp
		if err := scan(&d); err != nil {
			return nil, err
		}
		return d.Value()
	case pgtype.TimestamptzOID:
		var d pgtype.Timestamptz
		if err := scan(&d); err != nil {
			return nil, err
		}
		return d.Value()
	}
	var d string
	err := scan(&d)
	return d, err
}
