// The runtime every front end of a process shares: one store and one cache
// per store URL (or store value), reference counted, whichever front end
// opened it; warm-up; and the engine each front-end configuration gets.

package engine

import (
	"context"
	"errors"
	"fmt"
	"io"
	"reflect"
	"sync"
	"time"

	"github.com/seqshim/seqshim/internal/storeurl"
	"github.com/seqshim/seqshim/rewrite"
	"github.com/seqshim/seqshim/seqcache"
	"github.com/seqshim/seqshim/sequence"
)

// Config is what a front end's configuration gives the core: [Open] makes
// an [Engine] of it.
type Config struct {
	// StoreURL is the store to open (memory:, sqlite:PATH, postgres://…,
	// dynamodb://…); it wins over Store. The store is opened by the first
	// engine of the process with this URL and closed with the last.
	StoreURL string
	// Store is the store to use as is, never closed by the core.
	Store sequence.Store
	// Dialect is the SQL dialect of the front end's database.
	Dialect rewrite.Dialect
	// PlanCache is the number of distinct texts whose plans are kept (0:
	// the planner's default).
	PlanCache int
	// DDLToDatabase sends sequence DDL to the database too, after the store
	// applied it (the driver's seqshim.ddl=both).
	DDLToDatabase bool
	// Shadow is shadow mode: the database answers every statement, and
	// the engine draws as many values from the store's shadow sequences in
	// the background (see [Shadow]).
	Shadow bool
	// Warm are canonical names of sequences whose first block is reserved
	// when the store's cache is first opened in this mode.
	Warm []string
	// Cache are the options of the store's cache, used by the engine that
	// opens it: every engine of the process on the same store shares the
	// cache the first one made. StoreName is filled in from StoreURL.
	Cache seqcache.Options
}

// ErrNoStore is the error of [Open] without a store.
var ErrNoStore = errors.New("seqshim: no sequence store configured: set seqshim.store in the DSN, " +
	"SEQSHIM_STORE in the environment, or Options.Store (e.g. seqshim.store=dynamodb%3A%2F%2Fseqs%3Fregion%3Deu-west-1)")

// OpenStore opens a store URL; a variable so that tests can count opens.
var OpenStore = storeurl.Open

// shared is a store and its cache, shared by every engine of the process
// with the same store URL (or the same Config.Store value) and mode, so that
// values stay increasing across the connections, pools and front ends of
// one process.
type shared struct {
	key    any
	store  sequence.Store
	cache  *seqcache.Cache
	shadow *Shadow // shadow mode's drawer, whose cache is cache; nil in serve mode
	owned  bool    // opened from a URL: closed with the last reference
	refs   int     // guarded by registry.mu
}

// registry holds the process's shared stores.
var registry struct {
	mu sync.Mutex // protects m and every shared's refs
	m  map[any]*shared
}

// shadowKey keys shadow mode's stores in the registry, apart from serve
// mode's.
type shadowKey struct{ key any }

// Open returns an engine of cfg: the process's shared store and cache for
// cfg's store (opened and its configuration checked when this is the first
// engine of the store), with a planner and DDL mode of its own. In serve
// mode the sequences of cfg.Warm are warmed first: a failure fails Open.
// Close releases the engine.
func Open(ctx context.Context, cfg Config) (*Engine, error) {
	sh, err := acquire(ctx, cfg)
	if err != nil {
		return nil, err
	}
	if !cfg.Shadow {
		if err := warmUp(ctx, sh.cache, cfg); err != nil {
			// Not remembered: the next connection tries again.
			return nil, errors.Join(err, sh.release())
		}
	}
	label := "seqshim: sequence store"
	if cfg.StoreURL != "" {
		label += " " + storeurl.Redact(cfg.StoreURL)
	}
	planner := rewrite.NewPlanner(cfg.Dialect, cfg.PlanCache)
	return &Engine{sh: sh, store: sh.store, cache: sh.cache, shadow: sh.shadow, planner: planner,
		dialect: cfg.Dialect, ddlToDB: cfg.DDLToDatabase, label: label}, nil
}

// Close releases the engine's share of its store and cache: the last
// engine of a store closes the cache (stopping refills and handing unused
// values back) and a store it opened by URL. Safe to call more than once.
func (e *Engine) Close() error {
	e.closeOnce.Do(func() {
		if e.sh != nil {
			e.closeErr = e.sh.release()
		}
	})
	return e.closeErr
}

// acquire returns the shared store of cfg with one more reference, or a new
// one: the store opened from its URL, its configuration checked (serve
// mode), its cache made and warmed, then registered unless the store value
// cannot be a key.
func acquire(ctx context.Context, cfg Config) (*shared, error) {
	var key any
	switch {
	case cfg.StoreURL != "":
		key = cfg.StoreURL
	case cfg.Store != nil:
		if reflect.TypeOf(cfg.Store).Comparable() {
			key = cfg.Store
		}
	default:
		return nil, ErrNoStore
	}
	if key != nil && cfg.Shadow {
		key = shadowKey{key}
	}
	registry.mu.Lock()
	defer registry.mu.Unlock()
	if key != nil {
		if s := registry.m[key]; s != nil {
			s.refs++
			return s, nil
		}
	}
	s := &shared{key: key, store: cfg.Store, refs: 1}
	if cfg.StoreURL != "" {
		st, err := OpenStore(ctx, cfg.StoreURL)
		if err != nil {
			return nil, fmt.Errorf("seqshim: open store %s: %w", storeurl.Redact(cfg.StoreURL), err)
		}
		s.store, s.owned = st, true
	}
	if err := s.build(ctx, cfg); err != nil {
		if c, ok := s.store.(io.Closer); ok && s.owned {
			c.Close()
		}
		return nil, err
	}
	if key != nil {
		if registry.m == nil {
			registry.m = make(map[any]*shared)
		}
		registry.m[key] = s
	}
	return s, nil
}

// build makes the cache of a new shared store: in serve mode after checking
// the store's configuration; in shadow mode, the shadow's, which warms
// cfg.Warm in the background.
func (s *shared) build(ctx context.Context, cfg Config) error {
	co := cfg.Cache
	if cfg.StoreURL != "" {
		co.StoreName = storeurl.Redact(cfg.StoreURL)
	}
	setOpts := func(o *seqcache.Options) { *o = co }
	if cfg.Shadow {
		s.shadow = newShadow(s.store, setOpts, cfg.Warm)
		s.cache = s.shadow.cache
		return nil
	}
	if err := checkStore(ctx, s.store, cfg); err != nil {
		return err
	}
	s.cache = seqcache.New(s.store, setOpts)
	return nil
}

// maxCheck bounds the configuration check of a store when it is opened: a
// store that is slow or unreachable must not hold the application's
// start-up for long (statements without sequence calls do not need it),
// while one that answers "no such table" or "no credentials" does so at
// once.
const maxCheck = 2 * time.Second

// checkStore fails the opening of a store whose configuration is wrong (a
// missing table, a file that cannot be created, no credentials), with the
// store's message naming the store and the fix. A store that is merely
// unreachable passes: sequence calls report it, with the store and the
// operation, when they need it.
func checkStore(ctx context.Context, st sequence.Store, cfg Config) error {
	ctx, cancel := context.WithTimeout(ctx, min(maxCheck, max(cfg.Cache.RefillTimeout, time.Second)))
	defer cancel()
	if err := sequence.Check(ctx, st); errors.Is(err, sequence.ErrMisconfigured) {
		if cfg.StoreURL != "" {
			return fmt.Errorf("seqshim: store %s: %w", storeurl.Redact(cfg.StoreURL), err)
		}
		return fmt.Errorf("seqshim: store: %w", err)
	}
	return nil
}

// warmUp reserves the first block of each sequence of cfg.Warm into cache,
// at once, and waits for the store's answers, at most the cache's MaxWait.
// The error names the store and every sequence that could not be warmed,
// and wraps the store's errors (errors.Is sequence.ErrNotFound for a
// missing sequence).
func warmUp(ctx context.Context, cache *seqcache.Cache, cfg Config) error {
	if len(cfg.Warm) == 0 {
		return nil
	}
	ctx, cancel := context.WithTimeout(ctx, cache.Options().MaxWait)
	defer cancel()
	errs := make([]error, len(cfg.Warm))
	var wg sync.WaitGroup
	for i, name := range cfg.Warm {
		wg.Go(func() { errs[i] = cache.Handle(name).Warm(ctx) })
	}
	wg.Wait()
	store := "the store given in Options.Store"
	if cfg.StoreURL != "" {
		store = "store " + storeurl.Redact(cfg.StoreURL)
	}
	var failed []error
	for i, err := range errs {
		if err != nil {
			failed = append(failed, fmt.Errorf("seqshim: warming sequence %s (seqshim.warm) from %s: %w", cfg.Warm[i], store, err))
		}
	}
	return errors.Join(failed...)
}

// release drops a reference; the last one stops the shadow drawer, closes
// the cache and a store opened from its URL.
func (s *shared) release() error {
	registry.mu.Lock()
	s.refs--
	last := s.refs == 0
	if last && s.key != nil && registry.m[s.key] == s {
		delete(registry.m, s.key)
	}
	registry.mu.Unlock()
	if !last {
		return nil
	}
	if s.shadow != nil {
		s.shadow.stop()
	}
	err := s.cache.Close()
	if c, ok := s.store.(io.Closer); ok && s.owned {
		err = errors.Join(err, c.Close())
	}
	return err
}

// CacheFor returns the cache of the serve-mode store this process has open
// for storeURL, as given, or nil.
func CacheFor(storeURL string) *seqcache.Cache {
	registry.mu.Lock()
	defer registry.mu.Unlock()
	if s := registry.m[storeURL]; s != nil {
		return s.cache
	}
	return nil
}
