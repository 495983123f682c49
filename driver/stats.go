package driver

import (
	"context"
	"database/sql"
	"database/sql/driver"
	"errors"

	"github.com/seqshim/seqshim/internal/engine"
	"github.com/seqshim/seqshim/seqcache"
)

// Stats returns the counters of every sequence the Connector's cache has
// served, ordered by name: values served, store reservations, values
// reserved, waits, store errors, rate, values cached, released and wasted.
// The cache is shared by every Connector of the process with the same
// store, so they all report it. Stats takes no connection and works with
// every pool connection checked out; it is nil before the first
// connection, which opens the store.
func (c *Connector) Stats() []seqcache.Stats {
	if cache := c.Cache(); cache != nil {
		return cache.AllStats()
	}
	return nil
}

// StatsFor returns the counters of the cache this process keeps for the
// store URL storeURL (the value of seqshim.store, SEQSHIM_STORE or
// Options.StoreURL, as given), as [Connector.Stats] does; ok is false when no
// open Connector of the process has connected to that store. It needs
// neither the *sql.DB nor a connection: use it for a sql.DB opened with
// sql.Open("seqshim", dsn) whose driver is wrapped (otelsql.Open, sqlmw), or
// when the pool may be exhausted.
func StatsFor(storeURL string) (stats []seqcache.Stats, ok bool) {
	cache := engine.CacheFor(storeURL)
	if cache == nil {
		return nil, false
	}
	return cache.AllStats(), true
}

// Stats returns the counters of every sequence db has used, in this
// process, as [Connector.Stats]. db must have been opened with the seqshim
// driver (sql.Open("seqshim", …) or sql.OpenDB of a [Connector]).
//
// With seqshim's own driver, db.Driver() leads to the Connector: Stats takes
// no connection. When the driver is wrapped (otelsql, sqlmw), db.Driver() is
// the wrapper's, and Stats borrows a connection from the pool instead,
// reaching seqshim's through the wrapper's Raw() or Unwrap() method: it then
// waits for a free connection, up to ctx, and fails with a wrapper that has
// neither. [StatsFor] and [Connector.Stats] have none of these limits.
func Stats(ctx context.Context, db *sql.DB) ([]seqcache.Stats, error) {
	if d, ok := db.Driver().(*Driver); ok && d.connector != nil {
		return d.connector.Stats(), nil
	}
	c, err := db.Conn(ctx)
	if err != nil {
		return nil, err
	}
	defer c.Close()
	var stats []seqcache.Stats
	err = c.Raw(func(dc any) error {
		sc := unwrapConn(dc)
		if sc == nil {
			return errors.New("seqshim: Stats: db does not use the seqshim driver " +
				"(or wraps it without a Raw or Unwrap method: use driver.StatsFor)")
		}
		stats = sc.c.Stats()
		return nil
	})
	return stats, err
}

// unwrapConn finds seqshim's connection inside wrappers: otelsql's Raw,
// the Unwrap convention.
func unwrapConn(dc any) *conn {
	for range 8 { // wrappers of wrappers, within reason
		switch x := dc.(type) {
		case *conn:
			return x
		case interface{ Raw() driver.Conn }:
			dc = x.Raw()
		case interface{ Unwrap() driver.Conn }:
			dc = x.Unwrap()
		default:
			return nil
		}
	}
	return nil
}
