// Package sqlstore keeps seqshim sequences in a table of a SQL database:
// a SQLite file (the embedded default, no server and no cgo) or PostgreSQL.
//
// # Basics
//
// [Open] takes a store URL:
//
//	st, err := sqlstore.Open(ctx, "sqlite:/var/lib/app/seq.db")
//	st, err := sqlstore.Open(ctx, "postgres://app@db/app?table=seqshim_sequences")
//	defer st.Close()
//
// or [New] wraps a *sql.DB the program already has. The table (default
// [DefaultTable], or [Options.Table], or the URL parameter table=) is created
// on first use with CREATE TABLE IF NOT EXISTS: one row per sequence, holding
// its name, spec, position (last value, is_called), version and burn-rate
// counters.
//
// # Guarantees
//
// A *Store implements [sequence.Store] and [sequence.Releaser] and passes the
// same contract tests as memstore and dynamostore. Every operation that writes
// reads the row, computes with the sequence model ([sequence.Spec.Reserve] and friends)
// and writes it back in one transaction that holds the row's write lock from
// the read on: BEGIN IMMEDIATE on SQLite, SELECT ... FOR UPDATE on
// PostgreSQL. So any number of processes sharing a database — or a SQLite file
// on one machine — never receive the same value. SQLite files are opened in
// WAL mode with synchronous=FULL (a committed reservation survives a power
// loss) and a 30 s busy timeout; within one process, writers queue on a
// channel rather than in SQLite's busy handler.
//
// A reservation whose commit fails or times out returns an error and no
// block: the values it may have taken are a gap, never handed out.
//
// # Caveats
//
// Each reservation is a transaction (on SQLite, an fsync): hundreds of
// microseconds to milliseconds, which the seqcache.Cache amortises over
// blocks. A SQLite file must be on a local file system: SQLite's locking is
// not reliable over network file systems. LastReserved is stamped with the
// clock of the reserving process.
package sqlstore
