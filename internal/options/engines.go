package options

import (
	"context"
	"errors"
	"net/url"
	"strings"
	"sync"

	"github.com/seqshim/seqshim/internal/engine"
)

// DatabasePlaceholder in a store URL stands for the name of the database a
// connection is on, percent-encoded: dynamodb://seqs?prefix={database}/
// gives each database counters of its own, sqlite:/var/lib/seq/{database}.db
// a file of its own.
const DatabasePlaceholder = "{database}"

// PerDatabase reports whether o's store URL has [DatabasePlaceholder]: the
// store depends on the database of each connection.
func PerDatabase(o *Options) bool { return strings.Contains(o.StoreURL, DatabasePlaceholder) }

// Engines are the engines of one front-end configuration: one for its
// store, or, with [DatabasePlaceholder] in its store URL, one per
// database. Each engine shares the process's store and cache of its URL
// with every other front end (package engine's registry). Safe for
// concurrent use.
type Engines struct {
	opts Options

	mu      sync.Mutex                // protects engines, first and closed
	engines map[string]*engine.Engine // by store URL: "" for the options'
	first   *engine.Engine
	closed  bool
}

// NewEngines returns the engines of resolved options o; none is opened
// before [Engines.Get].
func NewEngines(o Options) *Engines { return &Engines{opts: o} }

// Get returns the engine for the database named database ("" when the
// store URL does not depend on it), opening or sharing its store and cache
// on the first call. A failure is not remembered: the next call tries
// again.
func (e *Engines) Get(ctx context.Context, database string) (*engine.Engine, error) {
	key := ""
	if PerDatabase(&e.opts) {
		key = strings.ReplaceAll(e.opts.StoreURL, DatabasePlaceholder, url.PathEscape(database))
	}
	e.mu.Lock()
	defer e.mu.Unlock()
	if e.closed {
		return nil, errClosed
	}
	if eng := e.engines[key]; eng != nil {
		return eng, nil
	}
	cfg := Config(&e.opts)
	if key != "" {
		cfg.StoreURL = key
	}
	eng, err := engine.Open(ctx, cfg)
	if err != nil {
		return nil, err
	}
	if e.engines == nil {
		e.engines = map[string]*engine.Engine{}
	}
	e.engines[key] = eng
	if e.first == nil {
		e.first = eng
	}
	return eng, nil
}

var errClosed = errors.New("seqshim: used after Close (of its sql.DB, Connector or pool)")

// First returns the first engine opened, nil before any.
func (e *Engines) First() *engine.Engine {
	e.mu.Lock()
	defer e.mu.Unlock()
	return e.first
}

// Close releases every engine: the last user of a store in the process
// closes its cache (stopping refills and handing unused values back) and a
// store opened by URL. Safe to call more than once.
func (e *Engines) Close() error {
	e.mu.Lock()
	defer e.mu.Unlock()
	if e.closed {
		return nil
	}
	e.closed = true
	var err error
	for _, eng := range e.engines {
		err = errors.Join(err, eng.Close())
	}
	e.engines, e.first = nil, nil
	return err
}
