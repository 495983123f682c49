package driver

import (
	"context"
	"database/sql"
	"errors"

	"github.com/seqshim/seqshim/internal/engine"
	"github.com/seqshim/seqshim/internal/options"
)

// Mode says who answers sequence calls: seqshim (ModeServe) or the database
// (ModeShadow).
type Mode = options.Mode

const (
	// ModeServe is the default: sequence calls are answered from the store
	// through the cache, everything else goes to the database.
	ModeServe = options.ModeServe
	// ModeShadow sends every statement to the database unchanged, so the
	// database's own sequences answer, exactly as with plain pgx; seqshim
	// only counts the nextval calls of each statement that succeeded and
	// draws as many values from the store in the background, from sequences
	// named [ShadowName], recording the latency, blocks and errors
	// (its Stats method). It lets a service measure a store under its real
	// load before switching to ModeServe.
	ModeShadow = options.ModeShadow
)

// ShadowPrefix starts the relation name of every sequence shadow mode draws
// from, so that a shadow never touches the counters a service in ModeServe
// uses, even on the same store.
const ShadowPrefix = engine.ShadowPrefix

// ShadowName returns the store sequence shadow mode draws from for the
// sequence name (canonical): orders_seq becomes shadow_orders_seq,
// app.invoice_no app.shadow_invoice_no.
func ShadowName(name string) string { return engine.ShadowName(name) }

// Shadow is the background side of shadow mode for one store in this
// process: it draws from the store's shadow sequences as many values as the
// database handed out, and keeps the figures (its Stats method); Flush waits
// for the draws counted so far. Every Connector of the process in shadow
// mode with the same store shares one.
type Shadow = engine.Shadow

// ShadowStats is what shadow mode measured in this process for one store:
// see [engine.ShadowStats] for its fields.
type ShadowStats = engine.ShadowStats

// Latency summarises durations.
type Latency = engine.Latency

// Shadow returns the Connector's shadow, nil unless it is in shadow mode and
// has opened a connection.
func (c *Connector) Shadow() *Shadow {
	eng := c.engines.First()
	if eng == nil {
		return nil
	}
	return eng.Shadow()
}

// ShadowOf returns the [Shadow] of db, a handle opened with the seqshim
// driver in shadow mode (sql.Open("seqshim", "…?seqshim.mode=shadow&…") or
// sql.OpenDB of a [Connector] with Options.Mode ModeShadow), for its
// figures. As [Stats], it takes no connection when db's driver is
// seqshim's own, and borrows one, unwrapping it, behind a wrapper.
func ShadowOf(ctx context.Context, db *sql.DB) (*Shadow, error) {
	errNotShadow := errors.New("seqshim: ShadowOf: db does not use the seqshim driver in shadow mode")
	if d, ok := db.Driver().(*Driver); ok && d.connector != nil {
		if d.connector.Options().Mode != ModeShadow {
			return nil, errNotShadow
		}
		if sh := d.connector.Shadow(); sh != nil {
			return sh, nil
		}
		// Not connected yet: a connection opens the store.
	}
	c, err := db.Conn(ctx)
	if err != nil {
		return nil, err
	}
	defer c.Close()
	var sh *Shadow
	err = c.Raw(func(dc any) error {
		if cn := unwrapConn(dc); cn != nil {
			sh = cn.c.Shadow()
		}
		if sh == nil {
			return errNotShadow
		}
		return nil
	})
	return sh, err
}
