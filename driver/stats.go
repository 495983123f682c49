package driver

import (
	"context"
	"database/sql"
	"errors"

	"github.com/seqshim/seqshim/seqcache"
)

// Stats returns the block cache counters of every sequence db has used, in
// this process: values served, store reservations, values reserved, waits,
// store errors, rate, cache depth. db must have been opened with the seqshim
// driver (sql.Open("seqshim", …) or sql.OpenDB of a [Connector]).
func Stats(ctx context.Context, db *sql.DB) ([]seqcache.Stats, error) {
	c, err := db.Conn(ctx)
	if err != nil {
		return nil, err
	}
	defer c.Close()
	var stats []seqcache.Stats
	err = c.Raw(func(dc any) error {
		sc, ok := dc.(*conn)
		if !ok {
			return errors.New("seqshim: Stats: db does not use the seqshim driver")
		}
		stats = sc.sess.Engine().Cache().AllStats()
		return nil
	})
	return stats, err
}
