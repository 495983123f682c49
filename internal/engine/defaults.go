package engine

import (
	"context"
	"sync"
	"sync/atomic"
	"time"

	"github.com/seqshim/seqshim/rewrite"
	"github.com/seqshim/seqshim/sequence"
)

// Store-backed column defaults: a table column whose default draws from a
// store sequence (sequence.Spec.Defaults) has no default in the database,
// so the session writes it into the INSERTs that need it
// ([rewrite.InjectDefaults]) before it plans them: the nextval calls that
// come out are served like written ones.
//
// The engine keeps the store's column defaults as a map of tables, loaded
// at the first statement that may insert into one, again after column DDL
// of its own sessions, and in the background when older than defaultsTTL,
// so that a table another process creates is seen within that time.

// defaultsTTL bounds how long a process keeps using what it read of the
// store's column defaults: the time within which it sees a table another
// process created, altered or dropped.
const defaultsTTL = 10 * time.Second

// defaultsTimeout bounds a load of the store's column defaults;
// retryDefaults is the wait before another after a first load failed.
const (
	defaultsTimeout = 10 * time.Second
	retryDefaults   = time.Second
)

// tableSet is one load of the store's column defaults. It is immutable
// once published, but for stale and columns.
type tableSet struct {
	tables  map[string]*rewrite.TableDefaults // canonical table name → its defaults (Columns nil)
	version uint64                            // distinct for every load that changed tables

	// stale is set by a timer defaultsTTL after the load (retryDefaults
	// after a failed first one): a flag rather than a clock read, which
	// would cost every INSERT more than the rest of this check.
	stale atomic.Bool

	mu      sync.Mutex          // guards columns and views
	columns map[string][]string // table → its columns in order, as read from the database
	views   map[string]uint64   // a name INSERTs went to, and its search_path, that is no view with store defaults: the relGen it was found at (views.go)
}

// defaults is the engine's view of the store's column defaults in one
// database: each database sharing the store has its own (sequence.Spec.View).
type defaults struct {
	e  *Engine
	db string // the database's identity; "" for a session without one

	known sync.Map // sequence name → the engine's ddlGen when the database was found to have it: see Session.here

	set        atomic.Pointer[tableSet]          // nil until the first load
	loading    atomic.Bool                       // a background load is running
	forgot     atomic.Uint64                     // counts forgetDefaults: a load that saw it change is stale
	mu         sync.Mutex                        // serialises loads
	version    uint64                            // guarded by mu: the last version given
	last       map[string]*rewrite.TableDefaults // guarded by mu: the tables of that version
	lastForgot uint64                            // guarded by mu: forgot when that version was read
}

// tableSet returns the table set, loading it when there is none yet or
// when stale: synchronously the first time, in the background afterwards.
// It returns nil when the store has no column defaults at all.
func (d *defaults) tableSet(ctx context.Context) (*tableSet, error) {
	if ts := d.loadedSet(ctx); ts != nil && len(ts.tables) > 0 {
		return ts, nil
	}
	return nil, nil
}

// loadedSet is tableSet's load: the set as loaded, with no tables when the
// store has no column defaults or could not be read; nil only when a load
// raced with another's failure.
func (d *defaults) loadedSet(ctx context.Context) *tableSet {
	ts := d.set.Load()
	if ts == nil {
		ts, err := d.load(ctx)
		if err != nil {
			// Statements go as they are (an INSERT that needed a default
			// fails in the database, NOT NULL) until a load succeeds: a
			// store outage must not fail the INSERTs of every table.
			failed := &tableSet{}
			if d.set.CompareAndSwap(nil, failed) {
				failed.expire(retryDefaults)
			}
			return d.set.Load()
		}
		return ts
	}
	if ts.stale.Load() && d.loading.CompareAndSwap(false, true) {
		go func() {
			defer d.loading.Store(false)
			ctx, cancel := context.WithTimeout(context.Background(), defaultsTimeout)
			defer cancel()
			_, _ = d.load(ctx) // kept as it was: the next statement tries again
		}()
	}
	return ts
}

// load reads every sequence's column defaults in the database from the
// store, and publishes them unless column DDL of the process overtook the
// read (forgetDefaults ran while it read): then it reads again. A read
// overtaken every time is returned unpublished: it holds all the DDL
// committed before the load began, which is all the caller's statement may
// rely on, but not necessarily the DDL that overtook it, which later
// statements must see.
func (d *defaults) load(ctx context.Context) (*tableSet, error) {
	d.mu.Lock()
	defer d.mu.Unlock()
	for i := 0; ; i++ {
		forgot := d.forgot.Load()
		infos, err := d.e.store.List(ctx)
		if err != nil {
			return nil, d.e.storeErr(err)
		}
		if d.forgot.Load() != forgot {
			if i+1 < maxDefaultsReads {
				continue
			}
			return d.tables(infos, forgot), nil
		}
		ts := d.tables(infos, forgot)
		d.set.Store(ts)
		if d.forgot.Load() != forgot {
			// Forgotten while it was published: a forget that came
			// after the check above stored nil before ts, or will.
			d.set.CompareAndSwap(ts, nil)
		}
		return ts, nil
	}
}

// maxDefaultsReads bounds the reads of one load that column DDL keeps
// overtaking.
const maxDefaultsReads = 4

// tables is the table set of the column defaults of infos in the
// database, read after forgot forgets, marked stale after defaultsTTL. Its
// version is new when the tables changed or column DDL ran since the last
// (a table's columns may have changed). Called with mu held.
func (d *defaults) tables(infos []sequence.Info, forgot uint64) *tableSet {
	tables := map[string]*rewrite.TableDefaults{}
	for _, info := range infos {
		view, visible := info.Spec, true
		if d.db != "" {
			view, visible = info.Spec.View(d.db)
		}
		if !visible {
			continue // another database's
		}
		for _, c := range view.Defaults {
			t := tables[c.Table]
			if t == nil {
				t = &rewrite.TableDefaults{Table: c.Table}
				tables[c.Table] = t
			}
			t.Defaults = append(t.Defaults, rewrite.ColumnSequence{Column: c.Column, Sequence: info.Name, Kind: c.Kind})
		}
	}
	if d.last == nil || forgot != d.lastForgot || !sameTables(d.last, tables) {
		d.version++
		d.last, d.lastForgot = tables, forgot
	}
	ts := &tableSet{tables: tables, version: d.version}
	ts.expire(defaultsTTL)
	return ts
}

// expire marks ts stale after d. The timer holds no goroutine until it
// fires, and only sets the flag: the next statement that looks reads the
// store again.
func (ts *tableSet) expire(d time.Duration) {
	time.AfterFunc(d, func() { ts.stale.Store(true) })
}

// forgetDefaults makes the next statement that may need the column
// defaults read them again, in every database: after column DDL. A load
// reading the store meanwhile does not publish what it read.
func (e *Engine) forgetDefaults() {
	e.dbDefaults.Range(func(_, v any) bool {
		d := v.(*defaults)
		d.forgot.Add(1)
		d.set.Store(nil)
		return true
	})
}

// defaultsOf returns the engine's view of the column defaults in database
// db.
func (e *Engine) defaultsOf(db string) *defaults {
	if d, ok := e.dbDefaults.Load(db); ok {
		return d.(*defaults)
	}
	d, _ := e.dbDefaults.LoadOrStore(db, &defaults{e: e, db: db})
	return d.(*defaults)
}

func sameTables(a, b map[string]*rewrite.TableDefaults) bool {
	if len(a) != len(b) {
		return false
	}
	for name, ta := range a {
		tb := b[name]
		if tb == nil || len(ta.Defaults) != len(tb.Defaults) {
			return false
		}
		for i := range ta.Defaults {
			if a, b := ta.Defaults[i], tb.Defaults[i]; a.Column != b.Column || a.Sequence != b.Sequence || a.Kind != b.Kind {
				return false
			}
		}
	}
	return true
}

// sameDefaults reports whether p's text, made with column defaults written
// out, is still what the session would make of its query: made outside a
// transaction with column DDL of its own, with the column defaults and the
// search_path as they are.
func (s *Session[A]) sameDefaults(ctx context.Context, p *Statement) bool {
	if !p.memo || s.tx != nil || p.pathGen != s.path.changes || p.tempGen != s.temps.gen {
		return false
	}
	return s.defs.current(ctx) == p.version
}

// current returns the version of the store's column defaults the engine
// has, loading them as tableSet does.
func (d *defaults) current(ctx context.Context) uint64 {
	if ts := d.loadedSet(ctx); ts != nil {
		return ts.version
	}
	return 0
}

// inject returns query with the store-backed column defaults of its
// INSERTs written out, or query itself, with the version of the column
// defaults it was made with; memo is false when the text holds the
// transaction's own column DDL, not in the store yet, and may be kept only
// for this statement.
func (s *Session[A]) inject(ctx context.Context, query string) (text string, version uint64, memo bool, err error) {
	ts := s.defs.loadedSet(ctx)
	if ts != nil {
		version = ts.version
		if len(ts.tables) == 0 {
			ts = nil
		}
	}
	memo = true
	if s.tx != nil {
		ts = ts.overlay(s.heldDefaults())
		memo = false
	}
	s.injected, s.viaView = s.injected[:0], false
	if ts == nil && !s.temps.maybe {
		return query, version, memo, nil
	}
	text, _, err = rewrite.InjectDefaults(s.eng.dialect, query, func(table string, unqualified, columns bool) (*rewrite.TableDefaults, error) {
		if t, ok, err := s.tempDefaults(ctx, ts, table, unqualified, columns); ok || err != nil {
			return t, err // a temporary table's: the database's
		}
		if ts == nil {
			return nil, nil
		}
		return s.tableDefaults(ctx, ts, table, unqualified, columns)
	})
	if err != nil {
		return "", 0, false, err
	}
	// Through a view, the text is made again at each use, from what
	// viewDefaults keeps: views change without the store knowing.
	return text, version, memo && !s.viaView, nil
}

// tableDefaults returns the column defaults of table, resolving an
// unqualified name through the search_path: the first schema of the path
// with a table of that name that has store defaults. (A table of the same
// name without store defaults earlier in the path is not seen: see the
// README's Caveats.)
func (s *Session[A]) tableDefaults(ctx context.Context, ts *tableSet, table string, unqualified, columns bool) (*rewrite.TableDefaults, error) {
	t := ts.tables[table]
	if unqualified && s.db != nil {
		if !s.path.known {
			if err := s.learnPath(ctx); err != nil {
				return nil, err
			}
		}
		if !s.path.trivial {
			t = nil
			rel := sequence.RelName(table)
			for _, schema := range s.path.schemas {
				if t = ts.tables[sequence.FormatName(schema, rel)]; t != nil {
					break
				}
			}
		}
	}
	if t == nil && s.db != nil {
		return s.viewDefaults(ctx, ts, table, unqualified)
	}
	if t == nil || !columns {
		return t, nil
	}
	ts.mu.Lock()
	cols, ok := ts.columns[t.Table]
	ts.mu.Unlock()
	if !ok && s.db != nil {
		row, err := s.queryRow(ctx, columnsQuery, tableArg(t.Table))
		if err != nil {
			return nil, err
		}
		if len(row) == 1 {
			cols, _ = sequence.SplitIdentifiers(row[0])
		}
		ts.mu.Lock()
		if ts.columns == nil {
			ts.columns = map[string][]string{}
		}
		ts.columns[t.Table] = cols
		ts.mu.Unlock()
	}
	c := *t
	c.Columns = cols
	return &c, nil
}

// columnsQuery lists a table's columns in order, as a search_path-style
// list of quoted identifiers; no row when the table does not exist.
const columnsQuery = "SELECT pg_catalog.string_agg(pg_catalog.quote_ident(attname), ',' ORDER BY attnum) FROM pg_catalog.pg_attribute WHERE attrelid = pg_catalog.to_regclass($1) AND attnum > 0 AND NOT attisdropped HAVING count(*) > 0"

// overlay returns ts as a transaction sees it: the sequences of defs (held
// DDL: their column defaults as the transaction set them) and dropped
// replace the store's. ts may be nil (no defaults in the store); the
// result is nil when no table has defaults.
func (ts *tableSet) overlay(defs map[string][]sequence.ColumnDefault, dropped map[string]bool) *tableSet {
	if len(defs) == 0 && len(dropped) == 0 {
		return ts
	}
	out := &tableSet{tables: map[string]*rewrite.TableDefaults{}}
	if ts != nil {
		out.version = ts.version
		for name, t := range ts.tables {
			var keep []rewrite.ColumnSequence
			for _, c := range t.Defaults {
				if _, redefined := defs[c.Sequence]; !redefined && !dropped[c.Sequence] {
					keep = append(keep, c)
				}
			}
			if len(keep) > 0 {
				out.tables[name] = &rewrite.TableDefaults{Table: name, Defaults: keep}
			}
		}
	}
	for seq, ds := range defs {
		for _, d := range ds {
			t := out.tables[d.Table]
			if t == nil {
				t = &rewrite.TableDefaults{Table: d.Table}
				out.tables[d.Table] = t
			}
			t.Defaults = append(t.Defaults, rewrite.ColumnSequence{Column: d.Column, Sequence: seq, Kind: d.Kind})
		}
	}
	if len(out.tables) == 0 {
		return nil
	}
	return out
}
