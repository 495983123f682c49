// Package driver is the seqshim database/sql driver: PostgreSQL sequence
// calls answered from an in-process block cache backed by a shared store,
// everything else handed to the real driver (pgx) untouched.
//
// # Usage
//
// Migrating is a driver-name change and a store:
//
//	import (
//		_ "github.com/seqshim/seqshim/driver"
//		_ "github.com/seqshim/seqshim/sqlstore/sqlite" // only for sqlite: stores
//	)
//
//	db, err := sql.Open("seqshim", "postgres://app@db/app?seqshim.store=sqlite:/var/lib/app/seq.db")
//
// The driver links the memory:, postgres:// and dynamodb:// stores; the
// SQLite store is linked by its own import, and a sqlite: store URL without
// it fails with an error naming the import.
//
// The SQL stays as it is: SELECT nextval('orders_seq'), INSERT … VALUES
// (nextval('orders_seq'), $1), currval, lastval, setval, NEXT VALUE FOR,
// CREATE/ALTER/DROP SEQUENCE. Keyword/value DSNs work the same way
// ("host=db dbname=app seqshim.store=memory:"). The seqshim.* parameters are
// removed before the DSN reaches the inner driver. In a URL DSN, a store URL
// with its own query must be percent-encoded
// (seqshim.store=dynamodb%3A%2F%2Fseqs%3Fregion%3Deu-west-1).
//
// A program on pgx's own interface (pgxpool, pgx.Conn, sqlc's pgx/v5 code)
// uses package github.com/seqshim/seqshim/pgxseq instead: the same core,
// options and caches, behind pgx's types.
//
// From Go, [NewConnector] wraps any driver.Connector, for example pgx's, and
// can take a store directly:
//
//	cfg, _ := pgx.ParseConfig(dsn)
//	c, err := driver.NewConnector(stdlib.GetConnector(*cfg), func(o *driver.Options) {
//		o.StoreURL = "dynamodb://seqs?region=eu-west-1"
//	})
//	db := sql.OpenDB(c)
//
// # Configuration
//
// Every option is a DSN parameter, an environment variable and a field of
// [Options]; [Parameters] lists them. Explicit configuration wins: a DSN
// parameter, or a field set in Go for [NewConnector], is never overridden by
// the environment, and a SEQSHIM_* variable only fills an option left unset:
//
//	seqshim.store           SEQSHIM_STORE           store URL: memory:, sqlite:PATH, postgres://…, dynamodb://TABLE?region=R&endpoint=URL&prefix=P, seqd://HOST:PORT, seqd+http://HOST:PORT, cosmos://HOST/DATABASE/CONTAINER?prefix=P, cosmos+http://HOST:PORT/DATABASE/CONTAINER
//	seqshim.driver          SEQSHIM_DRIVER          inner driver name (default pgx)
//	seqshim.dialect         SEQSHIM_DIALECT         postgres, mysql or sqlite (default: from the driver name)
//	seqshim.ddl             SEQSHIM_DDL             sequence DDL to the store (store, default) or to store and database (both)
//	seqshim.plan_cache      SEQSHIM_PLAN_CACHE      number of SQL texts whose plans are cached
//	seqshim.buffer          SEQSHIM_BUFFER          refill when fewer than rate × buffer values are cached (seconds or a duration)
//	seqshim.min_threshold   SEQSHIM_MIN_THRESHOLD   floor of that refill threshold, in values
//	seqshim.min_block       SEQSHIM_MIN_BLOCK       smallest block asked of the store
//	seqshim.max_block       SEQSHIM_MAX_BLOCK       largest block asked of the store
//	seqshim.max_wait        SEQSHIM_MAX_WAIT        how long nextval waits for a refill before failing
//	seqshim.refill_timeout  SEQSHIM_REFILL_TIMEOUT  timeout of one background store call
//	seqshim.revalidate      SEQSHIM_REVALIDATE      bound on serving values of a sequence another process dropped, recreated or renamed (see Other processes' DDL)
//	seqshim.recovery        SEQSHIM_RECOVERY        on (default): a reservation whose answer was lost is recovered by its token; off: a gap
//	seqshim.mode            SEQSHIM_MODE            serve (default) or shadow (see Shadow mode)
//	seqshim.warm            SEQSHIM_WARM            sequences to reserve a first block of at start-up (see Start-up)
//
// The databases that share a store share its counters: shards, the
// databases of several services, a database dropped and created again draw
// ids from one space, each with a catalog of its own over it (CREATE
// SEQUENCE in a second database attaches it to the counter; DROP detaches
// only that database; see sequence.Member). {database} in the store URL
// ([DatabasePlaceholder]: dynamodb://seqs?prefix={database}/,
// sqlite:/var/lib/seq/{database}.db) gives each database a store of its
// own instead, and PostgreSQL's independence.
//
// There is no default store: a connector without one fails its first
// connection with [ErrNoStore] (sql.Open itself never fails for it).
//
// The first connection of a connector also checks the store's
// configuration: a DynamoDB table nobody created, missing or refused AWS
// credentials, no region, a SQLite file that cannot be created, a PostgreSQL
// database that does not exist fail it at once (db.Ping shows it), with an
// error naming the store and the fix (errors.Is sequence.ErrMisconfigured).
// A store that is merely unreachable does not fail it: statements without
// sequence calls run, and sequence calls fail, after seqshim.max_wait, with
// an error naming the store and the operation.
//
// # Metrics, logs and statistics
//
// Options.MeterProvider and Options.Logger (Go only: no DSN parameter) go
// to the cache: its OpenTelemetry instruments (seqshim.values.served,
// seqshim.values.reserved, seqshim.values.wasted, seqshim.values.released,
// seqshim.values.recovered, seqshim.cache.remaining, seqshim.cache.runway,
// seqshim.refill.duration, seqshim.wait.duration, seqshim.store.errors,
// seqshim.block.size, each with the attribute seqshim.sequence) and its log lines (a refill failing,
// WARN; a caller that got no value, ERROR; the recovery, INFO; once per
// change of state) are listed in package seqcache's documentation, under
// Metrics and Logs. The defaults are the global provider,
// otel.GetMeterProvider(), and slog.Default(): a program that installs an
// OpenTelemetry SDK globally gets the metrics of sql.Open("seqshim", dsn)
// with nothing more. Log lines name the store by its URL, the password
// hidden. examples/prometheus in the repository exports the metrics with
// the Prometheus exporter.
//
// The same counters, as [seqcache.Stats], without a connection:
//
//   - [Connector.Stats], for a Connector made with [NewConnector] (also when
//     sql.OpenDB is given a wrapper of it, such as otelsql.OpenDB's);
//   - [StatsFor] with the store URL, for a sql.DB of sql.Open("seqshim",
//     dsn), also when the driver is wrapped (otelsql.Open, sqlmw) and when
//     every pool connection is checked out;
//   - [Stats] with the *sql.DB: it finds the Connector through db.Driver()
//     when the driver is seqshim's own; a wrapped driver hides it, and Stats
//     then borrows a connection and unwraps it (with a Raw or Unwrap
//     method, as otelsql's has), waiting for a free one.
//
// # Start-up
//
// seqshim.warm (Options.Warm) names sequences, comma-separated
// ("seqshim.warm=orders_seq,app.invoice_no"; a "quoted name" may hold a
// comma; unqualified names are in public), whose first block the first
// connection of a connector reserves into the cache, all at once, waiting at
// most seqshim.max_wait. A missing sequence, or a store that fails or does not
// answer, fails that connection (db.Ping shows it) with an error naming the
// store and the sequence and wrapping the store's (errors.Is
// sequence.ErrNotFound for a missing one), instead of the first nextval
// failing later. No value is lost: nextval hands the block out. A failure is
// not remembered: the next connection warms again.
//
// # Shadow mode
//
// With seqshim.mode=shadow (Options.Mode [ModeShadow]), every statement goes
// to the inner connection unchanged and the database's own sequences answer:
// rows, results, errors and transactions are the inner driver's, and
// prepared statements run the inner driver's, as with plain pgx. seqshim counts the nextval calls of each
// statement that succeeded, with the planner serve mode uses (prepared
// statements at each execution; SELECT nextval('s') FROM generate_series(1,
// n) as n), and a background drawer takes as many values from the store,
// through a cache of its own, from the sequences [ShadowName] names
// (shadow_orders_seq for orders_seq). The drawer never blocks a statement: a
// queue too far behind drops draws, counted. A shadow sequence the store does
// not have is created on first use with the default spec; sequence DDL,
// setval and search_path resolution stay the database's business (unqualified
// names count under public). Calls the database evaluates per row (INSERT …
// SELECT nextval(…) FROM t) cannot be counted and are reported as such; ids
// the database fills in from a column default (serial, identity, DEFAULT
// nextval) have no call in the text and are not counted.
// [ShadowOf] (or [Connector.Shadow]) gives the figures: [ShadowStats], with
// the store's latency, blocks and errors and each shadow sequence's
// seqcache.Stats; [Stats] and [Connector.Stats] report the shadow cache's
// counters, and its metrics and logs go to Options.MeterProvider and
// Options.Logger, under the shadow sequences' names. The store never fails a statement in shadow mode: only a
// missing store ([ErrNoStore]) or a store URL that cannot be opened fails the
// first connection.
//
// # What happens to a statement
//
// The work below is seqshim's engine (internal/engine), shared by its front
// ends; this package only converts between database/sql's types and the
// engine's. Every statement, however it comes — ExecContext, QueryContext,
// a prepared statement's executions, a transaction's — goes through the
// same lifecycle: the engine says what to send (or answers it), the
// connection sends it to the inner connection, and the engine hears the
// outcome.
//
// Each SQL text is planned once per connection; a text without any trigger
// word (next, currval, lastval, setval, sequence, regclass) nor a statement that may
// change the session (BEGIN, COMMIT, SET, DISCARD, INSERT, …) costs one
// scan and goes to the inner driver as it is, and its rows and result are
// the inner driver's own objects. A prepared statement that goes as it is
// runs the inner driver's prepared statement at each execution.
//
//   - Only sequence calls (SELECT nextval('s'), SELECT currval('s') AS id):
//     answered in process, no round trip; the row has PostgreSQL's column
//     names and int8 columns ("INT8", scanned as int64).
//   - Only regclass values of store sequences (SELECT 's'::regclass,
//     SELECT 'app.s'::regclass::text): answered in process with the name as
//     PostgreSQL prints the relation, in text columns of pgx's type names
//     (regclass is "2205", as pgx names a type it has no name for); a name
//     that is not a store sequence's leaves the statement to the database.
//   - Calls inside a statement (INSERT … VALUES (nextval('s'), $1)): the
//     values are drawn and bound as extra parameters ($2::int8) when the
//     statement has arguments, so the text stays stable for pgx's statement
//     cache, or inlined as literals when it has none, so multi-statement
//     strings keep the simple protocol. pgx's leading option arguments
//     (pgx.QueryExecMode, pgx.QueryResultFormats, …) are not counted as SQL
//     parameters. A prepared statement draws fresh values on every execution;
//     its NumInput does not count the added parameters.
//   - CREATE, ALTER, DROP SEQUENCE: applied to the store, and to the
//     sequence's fenced twin in the database (a native sequence of the same
//     name and options standing at its end, so that a writer bypassing
//     seqshim gets 2200H), in one database transaction; with
//     seqshim.ddl=both, the statement is sent to the database as written
//     instead, and the database's sequence is its own.
//   - What seqshim answers itself returns what PostgreSQL's answer would
//     through pgx: QueryContext of a command (sequence DDL, table DDL with
//     store-backed defaults, a COMMIT the connection ran for held DDL) has
//     no columns and no rows, ExecContext PostgreSQL's rows affected. Of a
//     string of several statements, QueryContext returns the first
//     statement's result and ExecContext the last statement's rows
//     affected, whichever of them seqshim answered; a string of several
//     statements sent by the extended protocol (QueryContext but in pgx's
//     simple protocol mode, ExecContext with arguments, a prepared
//     statement) fails with PostgreSQL's 42601 before any of it runs.
//   - A call PostgreSQL evaluates once per row (INSERT … SELECT nextval(…)
//     FROM t, UPDATE … SET x = nextval(…)) is rejected with SQLSTATE 0A000,
//     except SELECT nextval('s') FROM generate_series(1, n), served locally.
//   - Table DDL with serial, bigserial, GENERATED … AS IDENTITY or DEFAULT
//     nextval('s') columns (CREATE TABLE, ALTER TABLE, DROP TABLE): the
//     store gets the sequences (PostgreSQL's implicit names, owned by their
//     columns) and the record of which column draws from which sequence
//     (sequence.Spec.Defaults); the database gets the statement without
//     those defaults, then the fenced twins and the native defaults and
//     identities drawing from them, so that its catalog reads as
//     PostgreSQL's (information_schema.columns, pg_get_serial_sequence,
//     \d); all commit as one unit (see Transactions).
//   - An INSERT into such a table that leaves the column out, writes
//     DEFAULT for it or says DEFAULT VALUES: the default is written into the
//     statement as a nextval call (with OVERRIDING SYSTEM VALUE for identity
//     columns) and served like a written one, RETURNING included. The
//     process reads the store's column defaults when it first needs them and
//     again in the background every 10 seconds, and at once after its own
//     table DDL.
//
// # Sessions
//
// currval and lastval belong to the physical connection (use sql.Conn to
// pin one), as in PostgreSQL; DISCARD SEQUENCES and DISCARD ALL clear them
// (and still go to the database). setval, ALTER SEQUENCE, RENAME and DROP
// run by this process drop its cached values first, so no value of the old
// state is handed out afterwards.
//
// # Other processes' DDL
//
// setval and ALTER SEQUENCE run by another process take effect here when
// the values cached run out, as PostgreSQL's CACHE keeps them from sessions
// holding cached values. DROP SEQUENCE (alone, or followed by CREATE
// SEQUENCE of the same name) and RENAME are seen within seqshim.revalidate
// (default 2s) plus one store read: from then on nextval serves the new
// sequence, or fails with 42P01 as PostgreSQL does, and never a value of
// the old one. It costs one background read per sequence and interval, only
// for sequences with values cached and not reserved from within the
// interval; nextval itself is unchanged. While the store does not answer,
// the cached values keep being served (see package seqcache, Revalidation).
// seqshim.revalidate=off turns the checks off.
//
// # Transactions
//
// Sequence DDL inside a transaction, begun with sql.DB.BeginTx or with
// BEGIN / START TRANSACTION sent as SQL, is held by the connection and is
// visible to that transaction at once — nextval, currval, setval and
// further DDL see the new state, as in PostgreSQL — while other connections
// keep seeing the store's. It reaches the store only when the transaction
// commits: Tx.Commit, or COMMIT / END sent as SQL, whichever way (Exec,
// Query, a prepared statement). ROLLBACK (ABORT, Tx.Rollback),
// ROLLBACK TO a savepoint taken before it, a failed statement followed by
// COMMIT, and a COMMIT that fails leave the store as it was. nextval is not
// transactional, as in PostgreSQL: values drawn stay drawn, except those of
// a sequence created or altered (any option but OWNED BY) in a transaction
// that rolls back — PostgreSQL hands those out again too, as they belonged to
// a sequence state that never committed.
//
// The commit protocol: at COMMIT, seqshim first applies the held DDL to the
// store, then sends COMMIT to the database. If the store fails, the store
// changes made so far are undone, the transaction rolls back and COMMIT
// returns the store's error. If the database does not commit (an error such
// as a deferred constraint, 23505, or 40001), the store changes are undone —
// a dropped sequence comes back at its position, never below a value handed
// out — and COMMIT returns the database's error. If the answer to COMMIT is
// lost (the connection breaks), the store keeps the DDL. A process killed
// between the two steps leaves the store ahead of the database: a sequence
// created by the lost transaction exists (a retried CREATE SEQUENCE fails
// with 42P07 until `seqctl drop`), one it dropped is gone.
//
// # Reaching pgx
//
// sql.Conn.Raw hands out the seqshim connection; its Unwrap method returns
// the inner one, which for pgx is a *stdlib.Conn:
//
//	err := conn.Raw(func(dc any) error {
//		inner := dc.(interface{ Unwrap() driver.Conn }).Unwrap()
//		pc := inner.(*stdlib.Conn).Conn() // *pgx.Conn
//		_, err := pc.CopyFrom(ctx, pgx.Identifier{"t"}, cols, src)
//		return err
//	})
//
// Statements sent on the *pgx.Conn bypass seqshim.
//
// # Guarantees
//
//   - Values are unique (the store hands every block out once), increasing
//     within one process (every sql.DB of a process with the same store URL
//     shares one cache), and may have gaps: a process that dies loses its
//     unused block, a rolled-back transaction keeps its values used, as in
//     PostgreSQL.
//   - Errors for the postgres dialect are *pgconn.PgError with PostgreSQL's
//     SQLSTATE and message (2200H, 55000, 22003, 42P01, 42P07, …), the very
//     type pgx returns; inner driver errors are returned as they are.
//   - A statement that fails in seqshim inside a transaction (an error
//     PostgreSQL would raise, a refused per-row call, the store down) aborts
//     the transaction in the database too, with the same error: later
//     statements fail with 25P02 and COMMIT rolls back, as with a failure in
//     PostgreSQL. In a failed transaction seqshim draws no value and applies
//     no DDL: it answers 25P02. The postgres dialect needs the inner
//     connection's session (its transaction status, parameters and
//     catalog): pgx gives it, and an inner driver that cannot fails the
//     connection at once, rather than any of these checks being skipped.
//   - A store failure never becomes driver.ErrBadConn (database/sql would
//     silently retry the statement), and driver.ErrSkip is returned only
//     where database/sql allows it.
//   - sql.DB.Close closes the [Connector], which stops refills and hands
//     unused values back to the store once the last sql.DB of that store
//     is closed.
//
// # Caveats
//
//   - The store and the database commit one after the other, not
//     atomically (see Transactions for what a failure between them leaves).
//     With seqshim.ddl=both the DDL also reaches the database when it is
//     run.
//   - Other connections are not blocked by sequence DDL held in a
//     transaction, as PostgreSQL's locks would block them: they keep drawing
//     from the store's state. A transaction that altered a sequence and drew
//     from it fails its COMMIT with 40001 if another connection drew from
//     the sequence meanwhile (unless the ALTER restarted it); retry it.
//   - While a transaction holds sequence DDL, COMMIT, ROLLBACK and
//     savepoints must be statements of their own (not in a multi-statement
//     string with other statements: 0A000), and PREPARE TRANSACTION is
//     refused (0A000). A multi-statement string run outside a transaction
//     block ("CREATE SEQUENCE s; CREATE TABLE …") applies its DDL at once.
//     A transaction ended behind seqshim's back (a procedure's COMMIT, the
//     raw *pgx.Conn) drops the DDL it held.
//   - A column default that is a nextval call alone (DEFAULT nextval('s'),
//     or nextval('s'::regclass)) of a store sequence, like serial and
//     identity columns, in CREATE TABLE or ALTER TABLE is served from the
//     store (see What happens to a statement); one of a sequence the store
//     does not have, the database's own, stays in the database. Any other
//     sequence call in a definition would be
//     evaluated by the database from its own sequence, not by seqshim: an
//     expression around the call (DEFAULT nextval('s') + 1), a CHECK, a
//     view, CREATE TABLE … AS SELECT nextval(…) are refused with 0A000;
//     insert the value explicitly instead. In the mysql and sqlite dialects
//     every CREATE or ALTER statement with a sequence call is refused so.
//   - A counter's daily limit (seqctl alter --daily-limit) reached makes
//     nextval fail with SQLSTATE 54000, naming the sequence, the limit and
//     when it resets (midnight UTC), once the values already cached are
//     served; it is a definite answer, not waited on like a store outage.
//   - errors.Is(err, sequence.ErrLimit) does not apply to the
//     *pgconn.PgError: test its Code ("2200H"), as with native PostgreSQL.
//   - DISCARD is recognised in any statement sent through seqshim (after
//     comments, in a multi-statement string, prepared or not); one issued
//     behind seqshim's back (the reset query of a pooler between seqshim
//     and PostgreSQL, the raw *pgx.Conn) leaves seqshim's currval in place.
//   - Cache tuning (seqshim.buffer, …), Options.MeterProvider and
//     Options.Logger are set by the first connector that opens a store URL
//     in the process; later ones share that cache.
//   - Statements with sequence calls are rendered per execution rather than
//     prepared once in the database; pgx's statement cache keeps the
//     parameterised form prepared.
//   - A bug of seqshim's that panics while it reads or runs a statement
//     fails that statement (SQLSTATE XX000, naming it; logged at ERROR with
//     the stack, through Options.Logger), rather than the process: please
//     report it.
package driver
