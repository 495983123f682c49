// Package pgxseq is seqshim's pgx-native front end: for programs built on
// pgxpool, pgx.Conn and sqlc's pgx/v5 code, the sequences the database/sql
// driver (package driver) gives programs built on database/sql, from the
// same core, stores, options and caches.
//
// The migration is one change where the pool is built:
//
//	pool, err := pgxpool.New(ctx, dsn) // before
//	pool, err := pgxseq.New(ctx, dsn)  // after: dsn may carry seqshim.store=…
//
// and *pgxpool.Pool becomes *pgxseq.Pool where the pool is kept. [Pool],
// [PoolConn], [Conn] and [Tx] have the methods pgx programs call (Exec,
// Query, QueryRow, SendBatch, CopyFrom, Begin, BeginTx, Acquire, Release,
// Ping, Close, Stat, Config); each satisfies sqlc's DBTX, and [Tx] is a
// pgx.Tx, so sqlc's Queries.WithTx takes it.
//
// # Why wrappers, not a hook in pgxpool.Config
//
// pgx offers no point where a hook could change a statement or answer it
// itself: a QueryRewriter applies only when passed as an argument of one
// call, tracers only observe, and pgconn.Config.BuildFrontend works at the
// wire protocol, where seqshim would have to answer Parse, Describe and
// Execute messages with results of its own, in every format and query
// mode pgx uses. A program's *pgxpool.Pool is therefore wrapped, not
// kept: [Pool.Pool] gives the pgxpool.Pool back, but statements run on it
// bypass seqshim.
//
// # Semantics
//
// Every statement goes through the same core as the driver's (package
// internal/engine): sequence calls, sequence DDL and the ids columns leave
// to their serial or identity defaults are answered from the store's
// cache with PostgreSQL's semantics and errors (*pgconn.PgError with
// PostgreSQL's SQLSTATE); everything else goes to the database untouched,
// on the same connection. currval and lastval are the connection's;
// sequence DDL in a transaction reaches the store only when it commits;
// an error seqshim answers aborts the transaction in the database too; the
// search_path, temporary sequences and multi-database membership are
// followed as by the driver. The connections pgxseq makes count the
// ParameterStatus messages the server sends (its BuildFrontend wraps the
// reader, around the configuration's own BuildFrontend if it has one; the
// messages are not changed), so that the read-only check of a nextval
// reads what the server reported only when it may have changed. A process
// using both front ends on one store URL shares one store and one cache.
//
// Every pgx path takes part: each QueryExecMode (a leading argument, or
// the connection's default), pgx.NamedArgs, pgx.StrictNamedArgs and any
// QueryRewriter argument, QueryResultFormats, statements prepared with
// [Conn.Prepare] and run by name, and rows read with pgx.CollectRows,
// pgx.ForEachRow or Next and Scan. Rows seqshim answers itself scan and
// decode as the database's would: int8 columns (text format), regclass
// values as text.
//
// # Statements prepared by seqshim
//
// An INSERT leaving its id to a store default is sent with its id bound
// as one more parameter. Sent by Exec in pgx's default
// QueryExecModeCacheStatement, it goes as pgx's Exec would send it (a
// statement prepared once per text and connection, then bound and
// executed), but pgxseq prepares and sends it itself through pgconn,
// without the per-call work of pgx's Exec around it, a percent of a round
// trip. pg_prepared_statements shows such a statement named seqshim_…
// (a digest of the text, as pgx names its own stmtcache_…). Like pgx's
// cached statements, it is prepared again after an error; it fails once
// with 26000 after the program's DEALLOCATE ALL or DISCARD ALL; it is
// released by [Conn.DeallocateAll] (the wrapped *pgx.Conn's DeallocateAll
// does not know them: after it they fail once, as after DEALLOCATE ALL);
// and a connection has no more of them than its StatementCacheCapacity
// (when full, all are released before the next statement). With a tracer
// in the connection's configuration, another default mode, or no
// statement cache, pgx's Exec sends it.
//
// # Batches
//
// SendBatch plans and draws for each queued statement as for the same
// statement sent alone. pgx sends a batch as one implicit transaction when
// none is open, and so does pgxseq:
//
//   - A batch of plain statements (INSERT, UPDATE, DELETE, queries, with or
//     without sequence calls, SELECT nextval('s'); no DDL, no transaction
//     control) goes in one round trip, as pgx sends it: the sequence work
//     of every statement is done first, in order, and the batch is sent
//     with the values bound. sqlc's :batchexec and :batchone batches are
//     such batches.
//   - Any other batch of several statements runs one statement after
//     another, one round trip each, inside a transaction block of its own
//     (all of it commits, or none; its sequence DDL reaches the store only
//     if it commits), or inside the transaction block that is open.
//
// After a failed statement, the statements after it report its error, as
// pgx's do; an error PostgreSQL raises parsing a statement (a sequence
// that does not exist) fails every statement of the batch. A batch that
// begins a transaction (pgx.Batch.BeginTx) is served too; its Tx commits
// through seqshim.
//
// # COPY
//
// CopyFrom into a table whose id column's default the store serves, with
// the id left out of the column list (sqlc's :copyfrom never lists it),
// fills the id of every row from the store, drawn as an INSERT leaving it
// to its default draws it; COPY with the native default would fail with
// 2200H, as the default draws from the fenced twin. [WithAssigned] reports
// the values filled, something COPY cannot do natively. The first row's
// values are drawn before the COPY starts, the others while it runs, from
// the cache.
//
// # Caveats
//
//   - Rows seqshim answers itself are held in memory (a sequence call's
//     answer is small), and a batch's results are read before SendBatch
//     returns.
//   - A batch sent in one round trip draws the values of all its
//     statements before the database runs them: when one fails, the
//     values of the statements after it, which PostgreSQL would not have
//     drawn, are a gap.
//   - The LargeObjects of a transaction a batch began (pgx.Batch.BeginTx)
//     are not available.
//   - Statements run on the wrapped pgx objects ([Pool.Pool],
//     [Conn.Conn], [Tx.Conn]) bypass seqshim.
package pgxseq
