// Package sqlstore keeps seqshim sequences in a table of a SQL database:
// PostgreSQL, or a SQLite file (no server and no cgo) when the program links
// the SQLite engine by importing package sqlstore/sqlite.
//
// # Basics
//
// [Open] takes a store URL:
//
//	st, err := sqlstore.Open(ctx, "postgres://app@db/app?table=seqshim_sequences")
//	defer st.Close()
//
// A SQLite file needs the SQLite store's import, which links
// modernc.org/sqlite; this package does not:
//
//	import "github.com/seqshim/seqshim/sqlstore/sqlite"
//
//	st, err := sqlite.Open(ctx, "sqlite:/var/lib/app/seq.db")
//
// or [New] wraps a *sql.DB the program already has. The table (default
// [DefaultTable], or [Options.Table], or the URL parameter table=) is created
// on first use with CREATE TABLE IF NOT EXISTS: one row per sequence, holding
// its name, spec (with OWNED BY, the column defaults, the daily limit and
// the cache policy), the databases that declared it (members: each with its
// view, as sequence.EncodeMembers writes them; an empty string for none),
// position (last value, is_called), version,
// incarnation (gen: random, set by Create, see sequence.Info.Gen), burn-rate
// counters and the name its last rename took it from (renamed_from, so that
// a repeated rename is recognised as done). A table made by an
// earlier version gets the columns it lacks (ALTER TABLE ... ADD COLUMN) the
// first time a Store uses it; its rows are kept, and those without an
// incarnation get one. [Store.Gen] ([sequence.Validator]) is one SELECT of
// the gen column.
//
// # Guarantees
//
// A *Store implements [sequence.Store], [sequence.Releaser],
// [sequence.Checker], [sequence.Validator] and [sequence.Recoverer] and passes the same contract tests as memstore and
// dynamostore. Every operation that writes reads the row, computes with the
// sequence model ([sequence.Spec.Reserve] and friends) and writes it back in one transaction that holds the row's write lock from
// the read on: BEGIN IMMEDIATE on SQLite, SELECT ... FOR UPDATE on
// PostgreSQL. So any number of processes sharing a database — or a SQLite file
// on one machine — never receive the same value. SQLite files are opened in
// WAL mode with synchronous=FULL (a committed reservation survives a power
// loss) and a 30 s busy timeout; within one process, writers queue on a
// channel rather than in SQLite's busy handler.
//
// Memberships ([Store.Attach], [Store.Detach]) are such transactions too:
// the counter is compared and the members column written with the row
// locked, so two processes attaching or detaching at once both count, and
// the Detach of the last member deletes the row in the same transaction.
// No other statement writes the members column but Create's insert.
//
// A daily limit
// (sequence.Spec.DailyLimit) is counted in the same transaction: the day's
// count (columns usage_day, day_used) is read and written with the
// position, so the processes sharing the table never hand out more than the
// limit in one UTC day (by [Options.Now], each process's clock).
//
// A reservation whose commit fails or times out returns an error and no
// block: the values it may have taken are a gap, never handed out, unless
// the caller recovers them by proof. [Store.ReserveToken] writes the
// caller's token and the block (columns res_token, res_first, res_step,
// res_count) in the reservation's transaction, and [Store.Recover] reads
// them back: the block is returned only if the latest committed
// reservation carries that token (a commit whose answer was lost, with the
// connection, did happen). Another reservation or a release after it
// replaces or clears the proof, and the block stays a gap.
//
// Errors name the operation and the database (the SQLite file, the
// PostgreSQL URL without its password). A database that cannot be used as
// configured — a SQLite file that cannot be opened or created, is read-only
// or is not a database; a PostgreSQL database that does not exist, a refused
// login, a missing schema or privilege — is an error wrapping
// [sequence.ErrMisconfigured] that also says what to do; [Store.Check] finds
// it up front. A busy SQLite file or an unreachable server is not.
//
// # Caveats
//
// Each reservation is a transaction (on SQLite, an fsync): hundreds of
// microseconds to milliseconds, which the seqcache.Cache amortises over
// blocks. A SQLite file must be on a local file system: SQLite's locking is
// not reliable over network file systems. LastReserved is stamped with the
// clock of the reserving process.
package sqlstore
