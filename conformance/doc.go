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
// store: the database answers, so the transcript must be native's exactly)
// and dynamodb (dynalite), each time on a fresh database (CREATE DATABASE
// per scenario and target) and a fresh store, so names such as public.s
// work unchanged. It needs SEQSHIM_TEST_PG and
// SEQSHIM_TEST_DYNAMODB (see scripts/test) and ends with the line
//
//	conformance: N passed, M failed
//
// counting target × scenario subtests. A mismatch is reported step by step:
// the file and line, the statement, PostgreSQL's transcript and the target's.
//
// # Scenario format
//
// Lines starting with # between steps are comments; the first one is the
// scenario's title. A step is a verb line, the statement (any number of
// lines, blank ones included), a line "----", and the expected transcript,
// which ends at a blank line or the end of the file:
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
//     the driver's DatabaseTypeName), one line per row "v | v", and the row
//     count "(N rows)". Several result sets follow one another.
//   - prepare stmt=NAME: PrepareContext on the session; transcript "ok".
//     "exec stmt=NAME" and "query stmt=NAME" then execute it, with no
//     statement text; inside a transaction they run through Tx.StmtContext.
//   - begin, commit, rollback: BeginTx, Commit, Rollback on the session;
//     transcript "ok". "begin readonly" passes sql.TxOptions{ReadOnly: true}
//     (pgx sends BEGIN READ ONLY). Until commit or rollback, the session's steps run in
//     the transaction.
//
// Options on the verb line:
//
//   - session=NAME: the session (a connection pinned with sql.DB.Conn) the
//     step runs on; default "a". Sessions open at their first step, so two
//     sessions show per-session currval and lastval.
//   - dsn=PARAMS: the session opens with PARAMS, a URL query such as
//     options=-c%20search_path%3Dapp, added to the target's DSN (on a
//     database handle of its own); only on a session's first step.
//   - mode=simple|exec|describe|cache_statement|cache_describe: the pgx
//     QueryExecMode, passed as the first argument.
//   - per-row or per-row=COL,…: the statement calls a sequence function once
//     per row in PostgreSQL (INSERT … SELECT, UPDATE … SET, a select list
//     over a FROM). See Guarantees.
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
// # Uniqueness under faults
//
// TestTorture (torture_test.go, pieces in internal/testkit/torture) runs 8
// child processes × 32 goroutines drawing values through the seqshim driver
// from one dynalite table behind a fault proxy (responses dropped after the store
// applied them, delays, resets), while a controller SIGKILLs and restarts
// them; every value handed out is recorded, and the checker requires 0
// duplicates and 0 values going backwards within a process. TestOutage stops
// the store for longer than the buffer and checks that values keep coming
// from the cache, then fail with seqcache.ErrUnavailable within
// seqshim.max_wait, then come back without a restart. Both append their
// summary lines to $SEQSHIM_TEST_TMP/summary.txt, which scripts/test prints.
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
