package pgxseq

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"fmt"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"
)

// directStmts are the statements a session prepares itself for the texts
// the engine rewrites with call values bound (an INSERT leaving its id to
// a store default), which exec then sends itself through pgconn: what
// pgx.Conn.Exec does in QueryExecModeCacheStatement (prepare a text once
// per connection, then bind and execute it), without the work of pgx's
// Exec around it (its option loop, tracer checks, two lookups of the text,
// a deferred invalidation), which a paired measurement on a loaded
// machine puts at a percent of a round trip. Only where pgx's Exec would
// do just that: the connection's default mode is
// QueryExecModeCacheStatement, its statement cache is on, and no tracer
// observes its queries.
type directStmts struct {
	on    bool
	max   int                                     // the connection's StatementCacheCapacity
	stmts map[string]*pgconn.StatementDescription // by text
	stale []string                                // names to deallocate before the next statement
	eqb   pgx.ExtendedQueryBuilder
}

// init sets d up for a connection of config.
func (d *directStmts) init(config *pgx.ConnConfig) {
	d.on = config.DefaultQueryExecMode == pgx.QueryExecModeCacheStatement && config.StatementCacheCapacity > 0 && config.Tracer == nil
	d.max = config.StatementCacheCapacity
}

// directName is the name of the statement a session prepares for sql:
// pgx names its cached statements stmtcache_…, by the same digest.
func directName(sql string) string {
	digest := sha256.Sum256([]byte(sql))
	return "seqshim_" + hex.EncodeToString(digest[:24])
}

// execBound sends sql, a text the engine rewrote with its call values
// bound, with args (the connection's exec mode first, as boundArgs makes
// them), as pgx.Conn.Exec would: itself, with a statement of the session
// (see directStmts), where it may.
func (x *session) execBound(ctx context.Context, sql string, args []any) (pgconn.CommandTag, error) {
	d := &x.direct
	if !d.on {
		return x.conn.Exec(ctx, sql, args...)
	}
	pc := x.conn.PgConn()
	if len(d.stale) > 0 {
		if st := pc.TxStatus(); st != 'I' && st != 'T' {
			return x.conn.Exec(ctx, sql, args...) // as pgx, the stale ones are left for later
		}
		if err := x.deallocateStale(ctx); err != nil {
			return pgconn.CommandTag{}, err
		}
	}
	args = args[1:] // the exec mode: QueryExecModeCacheStatement
	sd := d.stmts[sql]
	if sd == nil {
		var err error
		if sd, err = x.prepareDirect(ctx, sql); err != nil {
			return pgconn.CommandTag{}, err
		}
	}
	if err := d.eqb.Build(x.conn.TypeMap(), sd, args); err != nil {
		x.invalidate(sql, sd)
		return pgconn.CommandTag{}, err
	}
	r := pc.ExecStatement(ctx, sd, d.eqb.ParamValues, d.eqb.ParamFormats, d.eqb.ResultFormats).Read()
	d.eqb.Build(nil, nil, nil) // a reset, as pgx's after each statement: a large argument's buffer is not kept
	if r.Err != nil {
		// As pgx after an error with a cached statement: prepared again
		// next time. A statement the program dropped (DEALLOCATE ALL,
		// DISCARD ALL) fails once, with 26000, as pgx's own would.
		x.invalidate(sql, sd)
	}
	return r.CommandTag, r.Err
}

// prepareDirect prepares sql as a statement of the session. When the
// session has as many as the connection's statement cache holds, they are
// all left to be deallocated before the next statement.
func (x *session) prepareDirect(ctx context.Context, sql string) (*pgconn.StatementDescription, error) {
	d := &x.direct
	if len(d.stmts) >= d.max {
		for _, sd := range d.stmts {
			d.stale = append(d.stale, sd.Name)
		}
		clear(d.stmts)
	}
	sd, err := x.conn.PgConn().Prepare(ctx, directName(sql), sql, nil)
	if err != nil {
		return nil, err
	}
	if d.stmts == nil {
		d.stmts = map[string]*pgconn.StatementDescription{}
	}
	d.stmts[sql] = sd
	return sd, nil
}

// invalidate forgets the statement sd of sql after an error, as pgx
// forgets a cached statement after one: it is deallocated before the next
// statement, and the text is prepared again.
func (x *session) invalidate(sql string, sd *pgconn.StatementDescription) {
	d := &x.direct
	delete(d.stmts, sql)
	d.stale = append(d.stale, sd.Name)
}

// deallocateStale deallocates the session's stale statements, in one
// round trip, as pgx deallocates its invalidated cached statements.
func (x *session) deallocateStale(ctx context.Context) error {
	d := &x.direct
	p := x.conn.PgConn().StartPipeline(ctx)
	for _, name := range d.stale {
		p.SendDeallocate(name)
	}
	err := p.Sync()
	if cerr := p.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		return fmt.Errorf("failed to deallocate cached statement(s): %w", err)
	}
	d.stale = d.stale[:0]
	return nil
}

// forgetDirect forgets the session's statements, which the database no
// longer has (after DeallocateAll, as pgx forgets its cached ones).
func (x *session) forgetDirect() {
	clear(x.direct.stmts)
	x.direct.stale = x.direct.stale[:0]
}
