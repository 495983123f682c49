// Package engine is seqshim's core, whatever the front end: one lifecycle
// per statement (plan, sequence work, what to send, what the database
// answered), the session's state (currval, lastval, search_path, read-only
// mode, sequence DDL held for its transaction, the commit protocol), and
// the runtime a process shares (one store and one cache per store URL,
// warm-up, shadow mode). The database/sql driver (package driver) is one
// front end; a pgx-native one wrapping pgx.Conn, pgx.Tx and pgxpool.Pool
// is meant to be the next, reusing this package unchanged. A front end only
// converts between its types and the engine's.
//
// It is free of database/sql/driver types on purpose: a front end owns the
// way statements, arguments, rows and errors reach its users, and the
// engine only sees bind arguments through [Args], the database session
// through [DB], and gives rows back as [Rows]. Of pgx it uses pgconn only:
// *pgconn.PgError, the error type both pgx-based front ends return, and
// [PgConn], the [DB] of a *pgconn.PgConn.
//
// # Basics
//
// [Open] gives a front-end configuration its [Engine]: the store and cache
// of its store URL, shared by every engine of the process on the same URL
// (reference counted; [Engine.Close] releases it), with a planner and a DDL
// mode of its own. One [Session] per physical database session
// ([NewSession], with the session's [DB]), used by one goroutine at a time,
// runs every statement in two calls:
//
//	step, err := s.Run(ctx, query, args, req) // err: as the application sees it
//	if step.SQL == "" {
//		// answered here: step.Rows (nil: no columns), or step.RowsAffected
//	}
//	// send step.SQL: as it is with the caller's arguments when step.AsIs,
//	// else with step.Values bound as parameters NumParams+1, … (step.Bound);
//	// when step.Rows is set too, send it as a command and return step.Rows;
//	// when step.Affected, an Exec returns step.RowsAffected
//	err = s.Finish(ctx, &step, sendErr) // the error as the application sees it
//
// The [Request] says how the front end sends the text (Exec or Query, the
// simple or the extended protocol), so that what seqshim answers has the
// shape of PostgreSQL's answer through that API: no columns for a command,
// a string's first result for a Query and its last rows affected for an
// Exec, 42601 for a string of several statements by the extended protocol.
//
// A prepared statement calls [Session.Prepare] once, which may call the
// front end's own preparation of a text that goes as it is, and
// [Session.Run] with the same text at each execution. A transaction begun
// through the front end's API calls [Session.Begin], and ends with
// [Session.Commit] or [Session.Rollback], given the front end's way to
// commit and roll back. That is the whole surface: held DDL and the commit
// protocol, the search_path and read-only bookkeeping, error translation
// and transaction abort all happen inside, the same for every path.
//
// # Guarantees
//
//   - Every error a Session method returns is as the application sees it:
//     for the postgres dialect, PostgreSQL's errors are *pgconn.PgError with
//     its SQLSTATE and message; and if a transaction block is open, the
//     database has aborted it with the same error, as PostgreSQL does when a
//     statement fails ([Session.Fail]). In a failed transaction, Run draws
//     nothing and applies nothing: it returns 25P02.
//   - No statement of a string with a rejected statement runs; the others
//     run in order, sequence work before anything reaches the database.
//   - A text's properties — its sequence calls and DDL, and its effects on
//     the session (transaction control, search_path, read-only mode,
//     DISCARD, DROP SCHEMA, the DML verb) — come from the one lexing pass
//     that plans it (package rewrite), once per text and session.
//   - rewrite.Plan.AppendSQL is the only renderer of SQL text.
//   - A panic while a statement is read or run — a bug of seqshim's — is
//     an error naming the statement (XX000), logged with its stack, and the
//     process goes on.
//   - Temporary sequences and tables are the database's (temp.go): what
//     concerns them is sent as written, and a temporary relation hides one
//     of the same name in the search_path for its session, as in
//     PostgreSQL. The session learns which names are temporary from the
//     catalog (one query after a statement that may have changed them, when
//     next needed), never in a session that had none. lastval is the last
//     nextval of either kind: the database answers it after one of its
//     own.
//   - The hot path allocates nothing of its own: a text seen before is a
//     map lookup (the same string as the session's last text, a pointer
//     comparison), [Args] is a type parameter (no interface conversion of
//     a slice), call values go to session scratch space, and a statement
//     with bound values reuses its rendered text. A nextval call remembers
//     the sequence its name resolved to while the engine applied no DDL
//     and the session's search_path and temporary relations stayed as they
//     were (Session.nextval): every check is made again at each call, the
//     resolution only is not. In a session with no held DDL, no temporary
//     relations and nothing pending, a text that is one statement answered
//     here (SELECT nextval('s')) or one sent with only nextval calls of
//     named sequences (an INSERT leaving its id to a store default) skips
//     the steps of the lifecycle that cannot apply to it
//     (Session.answerAlone, Session.drawAlone), with the same checks in
//     the same order; the calls and verb of such an INSERT are kept with
//     its Statement, so that neither drawAlone nor Finish reads the plan:
//     between two of the program's round trips, each cache line read is a
//     miss. When such an INSERT of one call comes again and every one of
//     those checks takes its common case, Run makes them, draws and does
//     their effects in one function (Session.drawAgain), and falls back to
//     the rest otherwise. On a connection made with [CountReports] (pgxseq's
//     are), the read-only check reads the server's reports again only
//     when the count of its ParameterStatus messages moved, not after
//     every round trip.
//
// # Transactions
//
// Sequence DDL run inside a transaction block (the [DB]'s TxStatus is the
// ground truth; [Session.Begin] for a session without one) is held by the
// session, in txddl.go, and reaches the store only when the transaction
// commits. The session's view answers at once: a sequence created in the
// transaction draws its own values, with nothing in the store; one dropped
// or renamed away is 42P01; one altered with any option but OWNED BY draws
// values of its own from its new state, as PostgreSQL's new relfilenode
// does (a rollback then hands those values out again, as PostgreSQL does).
// nextval of a sequence the transaction only renamed, and setval of one it
// did not alter, go to the store as usual: not transactional, as in
// PostgreSQL. Savepoints keep a copy of the view; ROLLBACK TO puts it back.
// While DDL is held, [Session.Run] sends COMMIT, ROLLBACK and savepoints
// itself, through the [DB], whichever way the front end was given them
// (Exec, Query, a prepared statement), so that the held DDL stays in step.
//
// The commit protocol ([Session.Commit]), store first:
//
//  1. In a failed transaction (status 'E'), the held DDL is dropped and the
//     COMMIT sent: PostgreSQL rolls back.
//  2. The held DDL is applied to the store: ALTERs, DROPs, RENAMEs, then
//     CREATEs at their final positions, each through the cache
//     (seqcache.Cache.Change) so no stale value is served. A sequence the
//     transaction altered and drew from must not have moved in the store
//     meanwhile (unless the ALTER restarted it): otherwise 40001. If the
//     store fails, what was applied is undone and the database rolls back.
//  3. COMMIT is sent. If the database answers that it did not commit (an
//     error from the server, or the session is idle again), the store
//     changes are undone: a created sequence dropped, a dropped one created
//     again at the position it had when it was dropped (never below a value
//     handed out), an ALTER's spec restored, a rename reversed. If the
//     answer is lost (the connection broke), the store keeps the DDL: the
//     COMMIT may have happened.
//
// Table DDL with store-backed column defaults (tableddl.go) follows the
// same protocol: the session sends the table statement without the
// defaults itself, then applies the store's side (sequences, column
// defaults) as held DDL and gives the database the fenced twins of the
// sequences with the native defaults drawing from them (fenced.go) — outside a transaction block inside one it opens
// (BEGIN … the commit protocol above), inside one at the transaction's
// COMMIT. INSERTs into such tables get the defaults written out as nextval
// calls before they are planned (defaults.go), and so do INSERTs through
// automatically updatable views over them, under the view's names for the
// columns (views.go).
//
// Why store first: a store that refuses (down, a name taken meanwhile)
// then costs nothing but a rolled-back transaction, and a failing COMMIT
// (deferred constraints, serialization failures) is undone cleanly; with
// the database first, a migration tool would record a migration whose
// sequences never reached the store, and never retry it. The window
// between steps 2 and 3 is the price: a process killed there leaves the
// store with DDL whose transaction did not commit (a created sequence
// exists, so a retried CREATE SEQUENCE fails with 42P07 until it is dropped,
// e.g. with seqctl; a dropped one is gone). No value is handed out twice
// by that, except after an ALTER … RESTART that did not commit.
//
// # Caveats
//
//   - A Session is not safe for concurrent use; an Engine is.
//   - The engine never returns driver.ErrSkip, but it does not know
//     database/sql's retry rules either: a front end on database/sql must
//     keep store errors from matching driver.ErrBadConn itself.
//   - The MySQL and SQLite dialects have no [DB]: no search_path, no
//     read-only mode, and a failed statement leaves the database's
//     transaction as it is; transactions are known from [Session.Begin].
//   - A session's resolution of an unqualified name is kept until its
//     search_path changes or its engine applies sequence DDL: a sequence
//     another process (or engine) creates in an earlier schema of the path
//     is not seen before then. A change of the path made inside a function
//     is not seen.
package engine
