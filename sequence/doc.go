// Package sequence is the sequence model of seqshim: PostgreSQL's sequence
// semantics, names and errors, the arithmetic of reserving blocks of values,
// and the contract a store implements. It imports nothing but the standard
// library; the block cache (package seqcache), the SQL planner (package
// rewrite) and every store build on it.
//
// # Basics
//
// A sequence is a [Spec] (what CREATE SEQUENCE defines: type, increment,
// bounds, start, cache hint, cycle) and a [Position] (PostgreSQL's last_value
// and is_called). [Clauses] are the options of CREATE or ALTER SEQUENCE;
// [Clauses.Create] and [Clauses.Alter] resolve them with PostgreSQL's defaults
// and its exact error messages. Names follow PostgreSQL's regclass rules:
// [ParseName] turns orders_seq, ORDERS_SEQ, "orders_seq" and public.orders_seq
// into the one canonical name "orders_seq".
//
// All sequence arithmetic lives in one place, [Spec.Reserve]: the next block
// of up to n values from a position, truncated at MAXVALUE (MINVALUE when
// descending), wrapping with CYCLE, failing with PostgreSQL's "reached maximum
// value" error without it, and never overflowing int64. [Spec.Release] and
// [Spec.SetVal] are its counterparts for handing a block's tail back and for
// setval. Stores call them; they do not re-implement them.
//
// A sequence may have a daily limit ([Spec.DailyLimit], an operator's budget,
// not SQL): [Spec.ReserveAt] is Reserve under it, counting the values handed
// out per UTC [Day] in a [Usage] the store keeps with the sequence,
// truncating the block that reaches the limit and refusing the next with
// [DailyLimitError] (SQLSTATE 54000) until midnight UTC.
//
// A sequence may also carry a cache [Policy] ([Spec.Policy]: buffer, block
// bounds, revalidate interval; not SQL either): [Spec.Reserve] copies it into
// every [Block], so each store returns the current policy with each block and
// a cache applies it from its next reservation, overriding its own defaults
// for that sequence. [Clauses.Policy] changes it field by field.
//
// # Stores
//
// A store keeps one position per sequence and implements [Reserver] (blocks),
// [Admin] (create, alter, rename, drop, describe, list, setval, and
// [Memberships]: attach and detach a database) and optionally
// [Releaser] (taking back an unused tail), [Checker] (a cheap check of its
// configuration), [Validator] (a cheap read of a sequence's incarnation,
// [Info.Gen], which tells a sequence dropped and created again, or renamed
// away, from the one a cached [Block] came from) and [Recoverer] (the block
// of a reservation whose answer was lost, proved by the caller's [Token]).
// Packages memstore, sqlstore and dynamostore implement [Store], [Releaser]
// and [Validator]; sqlstore and dynamostore also [Recoverer]. Each runs the
// contract's test suite, package
// [github.com/seqshim/seqshim/sequence/storetest], which a store written
// outside this repository can run as well.
//
// # Errors
//
// Errors PostgreSQL would raise are [*Error] values carrying its SQLSTATE and
// its exact message text; each wraps one sentinel kind ([ErrNotFound],
// [ErrExists], [ErrLimit], [ErrDailyLimit], [ErrInvalid], [ErrNotDefined],
// [ErrConflict]) for errors.Is. A store whose configuration is wrong (no table, no credentials,
// a file that cannot be opened) returns an error wrapping [ErrMisconfigured]
// (see [Misconfigured]) whose message names the store and the fix.
// [IsTransient] separates answers that may go away by themselves from
// definitive ones, configuration errors among them.
package sequence
