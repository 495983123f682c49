// Package conformance proves seqshim's PostgreSQL parity: the same scenario
// runs on native PostgreSQL 15 through pgx and through the seqshim driver
// with each store, and the transcripts must be identical.
//
// # Basics
//
// A scenario is a text file in testdata/scenarios. [LoadDir] or [Parse]
// reads it, [Run] runs its steps on a *sql.DB and returns a [Transcript],
// and [Compare] checks a seqshim transcript against PostgreSQL's, which is
// the oracle. The files also hold PostgreSQL's transcript as expectations,
// so a reader sees what each statement gives; TestConformance checks them
// against a live PostgreSQL on every run, and
//
//	go test ./conformance -run TestConformance -update
//
// rewrites them from PostgreSQL (never from seqshim).
//
// TestConformance runs every scenario on the targets native (pgx), memory,
// sqlite, postgres (sqlstore), shadow (seqshim.mode=shadow with a memory:
// store: the database answers, so the transcript must be native's exactly),
// dynamodb (dynalite) and cosmos (cosmosstore on the Cosmos DB emulator),
// each time on a fresh database (CREATE DATABASE per scenario and target)
// and a fresh store (on DynamoDB and Cosmos DB, a prefix of its own in the
// run's one table or container), so names such as public.s work unchanged.
// It needs SEQSHIM_TEST_PG, SEQSHIM_TEST_DYNAMODB and SEQSHIM_TEST_COSMOS
// (see scripts/test) and ends with the line
//
//	conformance: N passed, M failed
//
// counting target × scenario subtests. A mismatch is reported step by step:
// the file and line, the statement, PostgreSQL's transcript and the target's.
//
// # Many databases, one store
//
// The scenarios of testdata/multidb name several databases (db=): through
// seqshim, databases that share a store share its counters (one store
// prefix is one id space). TestMultiDB runs each natively, every db= name a
// fresh database of its own, and through seqshim with the stores memory,
// sqlite, postgres (sqlstore in a database of its own, which outlives the
// scenario's), dynamodb and cosmos, every db= name a fresh database too and
// all of them sharing one store, fresh per run. [RunDatabases] runs them on a
// [Databases]. The only differences allowed from PostgreSQL are the values
// of id columns (ids=, seen=), which must be unique across the databases,
// and the steps marked differs, which say in the file what seqshim answers
// instead. Its subtests count in the same summary line, and
//
//	go test ./conformance -run TestMultiDB -update
//
// rewrites PostgreSQL's expectations of these files (never a "---- seqshim"
// section, which is written by hand).
//
// # Scenario format
//
// Lines starting with # between steps are comments; the first one is the
// scenario's title. A step is a verb line, the statement (any number of
// lines, blank ones included), a line "----", and the expected transcript,
// which ends at a blank line, the end of the file or, on a differs step, a
// line "---- seqshim":
//
//	query session=b args 's' 5
//	SELECT setval($1, $2)
//	----
//	setval INT8
//	5
//	(1 row)
//
// Verbs:
//
//   - exec: ExecContext; transcript "ok N", N being the rows affected.
//   - query: QueryContext; transcript a header "name TYPE | …" (the type is
//     the driver's DatabaseTypeName), or "(no columns)" for the result of a
//     command, one line per row "v | v", and the row count "(N rows)".
//     Several result sets follow one another.
//   - prepare stmt=NAME: PrepareContext on the session; transcript "ok".
//     "exec stmt=NAME" and "query stmt=NAME" then execute it, with no
//     statement text; inside a transaction they run through Tx.StmtContext.
//   - begin, commit, rollback: BeginTx, Commit, Rollback on the session;
//     transcript "ok". "begin readonly" passes sql.TxOptions{ReadOnly: true}
//     (pgx sends BEGIN READ ONLY). Until commit or rollback, the session's steps run in
//     the transaction.
//   - recreate db=NAME: closes the sessions on database NAME (rolling back
//     their transactions) and its handles, drops the database (WITH
//     (FORCE)) and creates it again, empty; transcript "ok". Its sessions
//     open again at their next step. Through seqshim the store is kept: a
//     database created again re-runs its migration and must never get an
//     id it got before.
//   - disconnect: ends the session's connection for good (database/sql
//     discards it rather than pooling it), rolling back its transaction
//     and closing its prepared statements: its PostgreSQL session ends,
//     and its temporary objects with it; transcript "ok". The session's
//     next step opens a new connection, a new PostgreSQL session.
//
// Options on the verb line:
//
//   - session=NAME: the session (a connection pinned with sql.DB.Conn) the
//     step runs on; default "a" (see db=). Sessions open at their first
//     step, so two sessions show per-session currval and lastval.
//   - dsn=PARAMS: the session opens with PARAMS, a URL query such as
//     options=-c%20search_path%3Dapp, added to the target's DSN (on a
//     database handle of its own); only on a session's first step.
//   - mode=simple|exec|describe|cache_statement|cache_describe: the pgx
//     QueryExecMode, passed as the first argument.
//   - per-row or per-row=COL,…: the statement calls a sequence function once
//     per row in PostgreSQL (INSERT … SELECT, UPDATE … SET, a select list
//     over a FROM). See Guarantees.
//   - db=NAME: the database of the step's session; a session is on one
//     database, named on any of its steps (a step naming another is a
//     syntax error), "a" when none does. A step with db= and no session= is
//     on the session named like the database: "exec db=b" runs on session
//     b, on database b.
//   - ids=COL[@SPACE],…: the query's columns COL hold ids the step hands
//     out (RETURNING of an INSERT that leaves the id out, nextval). Their
//     values may differ from PostgreSQL's but must be integers (NULL where
//     PostgreSQL has NULL), and each must be new in its id space SPACE (the
//     column's name when not given): no ids= cell of the run had it before,
//     on any database. Name one space per sequence (ids=id@items,
//     ids=nextval@orders): two sequences may hand out the same values.
//   - seen=COL[@SPACE],…: the query's columns COL show ids handed out
//     before (a SELECT of the rows, currval, lastval): each value must be
//     the one an ids= cell of the space got for the same row, that is for
//     the same database (since its last recreate) and the same PostgreSQL
//     value. Rows are compared in order, so order them by something else
//     than the ids, which differ (ORDER BY v).
//   - together or together=NAME: the consecutive steps with the same
//     together value run at the same moment, each on its own session (at
//     most one step per session), in goroutines that all start once every
//     one is ready; the transcript is each step's own result, in file
//     order. Both PostgreSQL and seqshim run them so: write steps whose
//     results do not depend on the interleaving (the same migration on two
//     databases, inserts on different databases). A step without together
//     or with another name ends the group.
//   - differs: the step's seqshim transcript differs from PostgreSQL's by
//     design (natively each database has its own sequence; through seqshim
//     an ALTER or setval on one database moves the counter of all). The
//     expectation, PostgreSQL's, is followed by a line "---- seqshim" and
//     seqshim's expected transcript, written by hand and kept by -update,
//     in which "..." matches any text within a line (such as a database's
//     identity). The seqshim targets are compared with it instead; the
//     steps after it must not depend on the difference.
//   - args V…: bind arguments, last on the line: integers, 'text' (with ”
//     for a quote), NULL, true, false.
//
// An error is rendered "ERROR SQLSTATE: message" for a *pgconn.PgError
// (seqshim's errors are too) and "ERROR: message" otherwise. A query that
// fails after some rows renders as the error alone: the statement failed.
// Text values that could be mistaken for something else (empty, "NULL",
// containing "|", quotes or line breaks, or padded) are Go-quoted.
//
// # Guarantees
//
// Every step of a seqshim transcript must equal PostgreSQL's, except a
// per-row step, which passes if it equals PostgreSQL's, or is an error with
// SQLSTATE 0A000 (seqshim refuses a call it would otherwise evaluate once
// for many rows), or has PostgreSQL's columns and row count with distinct
// values in the per-row columns (all columns when none are named). In the
// last two cases the remaining steps are not compared: they depend on what
// the refused statement did. Never one value for many rows. PostgreSQL's own
// transcript of a per-row query must have several rows with distinct values,
// so the step tests something ([CheckPerRow]).
//
// A step with id columns passes if its columns, row count and every other
// cell are PostgreSQL's and its id cells follow the ids= and seen= rules
// above; a differs step if it matches its "---- seqshim" section. Nothing
// else may differ, so an allowed difference is always spelled out in the
// file. PostgreSQL's own transcript of a step with id columns must have
// rows with integers in them ([CheckIDs]).
//
// # Uniqueness under faults
//
// TestTorture (torture_test.go, pieces in internal/testkit/torture) runs 8
// child processes × 32 goroutines drawing values through the seqshim driver
// from one dynalite table behind a fault proxy (responses dropped after the
// store applied them, delays, resets), while a controller SIGKILLs and
// restarts them; every value handed out is recorded, and the checker
// requires 0 duplicates and 0 values going backwards within a process.
// TestTortureCosmos is the same run on a Cosmos DB container of the
// emulator, behind the same fault proxy (and a front that keeps the Azure
// SDK, which sends its requests to the endpoint the account names, behind
// it); its lines add up the children's store requests, 412 retries, 429s and
// request units. TestTortureDatabases (issue 25) has child processes insert
// rows, ids left to a bigserial default, into three databases sharing one
// store, under SIGKILLs, while the first database is dropped WITH (FORCE),
// created again and migrated again through seqshim; the children record
// every id INSERT … RETURNING gave them, and the ids of the three tables and
// of the dropped incarnation must show no duplicate. TestOutage stops the
// store for longer than the buffer and checks that values keep coming from
// the cache, then fail with seqcache.ErrUnavailable within seqshim.max_wait,
// then come back without a restart. They append their summary lines to
// $SEQSHIM_TEST_TMP/summary.txt, which scripts/test prints.
//
// # Caveats
//
// Scenarios leave out what legitimately differs between a database sequence
// and a process-wide block cache: CACHE greater than 1 seen from two
// sessions (PostgreSQL caches per session), values thrown away by ALTER or
// DISCARD after a CACHE greater than 1, and a second session touching a
// sequence another one dropped or altered in an open transaction
// (PostgreSQL blocks it on the lock). Nothing depends on timing or OIDs.
package conformance
