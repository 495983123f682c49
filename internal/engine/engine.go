package engine

import (
	"errors"
	"sync"
	"sync/atomic"

	"github.com/jackc/pgx/v5/pgconn"

	"github.com/seqshim/seqshim/rewrite"
	"github.com/seqshim/seqshim/seqcache"
	"github.com/seqshim/seqshim/sequence"
)

// Engine is what every session of one front-end configuration shares: the
// store and its cache (shared with every engine of the process on the same
// store), the planner and the DDL mode. [Open] makes one. It is safe for
// concurrent use; its [Session]s are not.
type Engine struct {
	// What every statement reads comes first, together: between two of
	// the program's round trips each cache line is a miss.
	shadow  *Shadow // shadow mode's drawer; nil in serve mode (written by Open)
	dialect rewrite.Dialect
	ddlToDB bool
	// ddlGen counts the sequence DDL the engine's sessions applied: a
	// session's resolutions of unqualified names made before a change are
	// stale.
	ddlGen atomic.Uint64
	// relGen counts the texts with CREATE, ALTER or DROP the engine's
	// sessions sent: what it read of views before is read again.
	relGen atomic.Uint64

	// All written by Open, read only afterwards.
	sh      *shared
	store   sequence.Store
	cache   *seqcache.Cache
	planner *rewrite.Planner
	label   string // "seqshim: sequence store NAME", the prefix of store errors

	dbDefaults sync.Map // database identity → *defaults: the store's column defaults there (defaults.go)

	closeOnce sync.Once
	closeErr  error
}

// Cache returns the engine's cache.
func (e *Engine) Cache() *seqcache.Cache { return e.cache }

// Dialect returns the SQL dialect of the engine's planner.
func (e *Engine) Dialect() rewrite.Dialect { return e.dialect }

// Store returns the engine's store.
func (e *Engine) Store() sequence.Store { return e.store }

// convert turns an error of seqshim's own (the store, the cache, the
// planner, the session) into what the application would get from the
// database: for the postgres dialect, a *sequence.Error becomes a
// *pgconn.PgError with the same SQLSTATE and message, exactly the type pgx
// returns, so code that inspects pgx errors keeps working. Other errors keep
// their chain. Database errors never come through here.
func (e *Engine) convert(err error) error {
	var se *sequence.Error
	if e.dialect == rewrite.Postgres && errors.As(err, &se) {
		return &pgconn.PgError{Severity: "ERROR", SeverityUnlocalized: "ERROR", Code: se.Code, Message: se.Message, Detail: se.Detail, Hint: se.Hint}
	}
	return err
}
