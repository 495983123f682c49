package engine

import (
	"errors"
	"sync/atomic"

	"github.com/jackc/pgx/v5/pgconn"

	"github.com/seqshim/seqshim/rewrite"
	"github.com/seqshim/seqshim/seqcache"
	"github.com/seqshim/seqshim/sequence"
)

// Options configure an [Engine]. Store, Cache and Planner are required.
type Options struct {
	// Store is where sequences live: DDL and setval go to it.
	Store sequence.Store
	// Cache hands out values of Store's sequences; it may be shared with
	// other engines of the same store.
	Cache *seqcache.Cache
	// Planner plans SQL texts; its dialect is the engine's.
	Planner *rewrite.Planner
	// DDLToDatabase sends sequence DDL to the database too, after the store
	// applied it (the driver's seqshim.ddl=both).
	DDLToDatabase bool
	// StoreName names the store in errors that are the store's, not
	// PostgreSQL's (for example its redacted URL); "" names none.
	StoreName string
}

// Engine is what every session of one front end shares: the store, its
// cache, the planner and the options. It is safe for concurrent use; its
// [Session]s are not.
type Engine struct {
	// All written by New, read only afterwards.
	store   sequence.Store
	cache   *seqcache.Cache
	planner *rewrite.Planner
	dialect rewrite.Dialect
	ddlToDB bool
	label   string // "seqshim: sequence store NAME", the prefix of store errors

	// ddlGen counts the sequence DDL the engine's sessions applied: a
	// session's resolutions of unqualified names made before a change are
	// stale.
	ddlGen atomic.Uint64

	defaults defaults // the store's column defaults: see defaults.go
}

// New returns an engine. It opens and closes nothing: the caller owns the
// store and the cache.
func New(o Options) *Engine {
	label := "seqshim: sequence store"
	if o.StoreName != "" {
		label += " " + o.StoreName
	}
	return &Engine{store: o.Store, cache: o.Cache, planner: o.Planner, dialect: o.Planner.Dialect(), ddlToDB: o.DDLToDatabase, label: label}
}

// Cache returns the engine's cache.
func (e *Engine) Cache() *seqcache.Cache { return e.cache }

// Dialect returns the SQL dialect of the engine's planner.
func (e *Engine) Dialect() rewrite.Dialect { return e.dialect }

// Discards reports whether query holds DISCARD SEQUENCES or DISCARD ALL:
// a front end that prepares it in the database calls [Session.Discard]
// after each successful execution.
func (e *Engine) Discards(query string) bool { return rewrite.DiscardsSequences(e.dialect, query) }

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
