// Package storetest is the contract test suite of seqshim's stores: a store
// written outside this repository runs the same [Run] and [RunBudget] that
// memstore, sqlstore (SQLite and PostgreSQL) and dynamostore run, so "as
// correct as any other store" is checked, not promised. It needs nothing
// from the caller but a function that opens the store under test.
//
// # Usage
//
// In the store's test file (the package's own tests run it against memstore
// the same way):
//
//	package mystore_test
//
//	import (
//		"testing"
//		"time"
//
//		"github.com/seqshim/seqshim/sequence"
//		"github.com/seqshim/seqshim/sequence/storetest"
//		"example.com/mystore"
//	)
//
//	func TestContract(t *testing.T) {
//		storetest.Run(t, func(t *testing.T) sequence.Store {
//			st := mystore.New(...)
//			t.Cleanup(func() { st.Close() })
//			return st
//		})
//	}
//
//	// Daily limits (sequence.Spec.DailyLimit), on the suite's clock.
//	func TestContractBudget(t *testing.T) {
//		storetest.RunBudget(t, func(t *testing.T, now func() time.Time) sequence.Store {
//			st := mystore.New(..., mystore.WithClock(now))
//			t.Cleanup(func() { st.Close() })
//			return st
//		})
//	}
//
// and then
//
//	go test -race -run TestContract ./...
//
// Each part is a subtest (TestContract/Reserve, TestContract/Concurrent, …),
// so -run 'TestContract/Reserve$' runs one of them. A store the suite finds
// wrong fails with the call, what the store answered and what it should
// have answered.
//
// open is called once per subtest with the subtest's t. It may return a fresh
// store each time or one shared store (one table for the whole run): every
// subtest uses sequence names of its own, unique to the Run call (a random
// token is part of every name), and never assumes the store is empty; the
// List test only looks at its own names. Closing the store is up to open (use
// t.Cleanup). The suite drops only what a test needs dropped: run it on a
// table, file or key prefix kept for tests.
//
// # What the store must provide
//
// A [sequence.Store] ([sequence.Reserver] and [sequence.Admin], memberships
// included) that also implements [sequence.Validator] (the Gen and Members
// parts fail without it).
// [sequence.Releaser] is optional: the Release part is skipped for a store
// without it. [sequence.Recoverer] and [sequence.Checker] are not exercised
// here. Names are canonical names ([sequence.ParseName],
// [sequence.FormatName]), some quoted, in other schemas, mixed case or with
// characters that need escaping in whatever form the store writes them.
//
// The simplest way to pass is the way the in-tree stores are written: keep
// a [sequence.Spec] and a [sequence.Position] per name, compute every block
// with [sequence.Spec.Reserve] ([sequence.Spec.ReserveAt] under a daily
// limit), every ALTER with [sequence.Clauses.Alter], every setval with
// [sequence.Spec.SetVal] and every release with [sequence.Spec.Release],
// return the errors they return, and [sequence.NotFoundError] and
// [sequence.ExistsError] for a missing or a taken name; for memberships,
// compare counters with [sequence.Spec.SameCounter], change the members with
// [sequence.WithMember] and [sequence.WithoutMember] under the same lock or
// condition as the counter, and return [sequence.CounterError]. Do not
// re-implement the arithmetic.
//
// # What Run checks
//
// Every expected block, position and error is computed with the sequence
// model's own arithmetic from the spec and position the test tracks, and the
// main cases are also pinned to the values PostgreSQL 15 gives for the same
// nextval, setval and ALTER SEQUENCE calls. Errors must be [*sequence.Error]
// of the right kind (errors.Is), SQLSTATE and PostgreSQL message text.
//
//   - Create, Describe, List: a second Create of a name fails and changes
//     nothing; Create at a given position (an import) continues from it;
//     Describe and List return the spec and position as the model has them
//     and burn-rate counters ([sequence.Info]); List is ordered by name.
//   - Reserve, ReserveNotFound: blocks ascending and descending, truncated at
//     MAXVALUE or MINVALUE, CYCLE both ways, smallint and bigint bounds, huge
//     increments and blocks, the limit error (which moves nothing), and a
//     missing sequence named with its schema.
//   - SetVal, Alter: the next value as PostgreSQL gives it after each,
//     [sequence.Info.Version] bumped, out-of-bounds values and invalid ALTERs
//     refused with PostgreSQL's message and nothing changed.
//   - Rename: counters and position kept, the old name gone; a Rename
//     repeated after it completed succeeds and changes nothing; one onto a
//     name renamed from another, or renamed on since, is of a missing
//     sequence.
//   - OwnedBy, Defaults, Policy: a spec is kept whole. OWNED BY, the column
//     defaults ([sequence.Spec.Defaults], names quoted and schema-qualified)
//     and the cache policy ([sequence.Spec.Policy]) come back from Describe,
//     List and Alter as created, are replaced only by an Alter that gives
//     them, and survive Reserve, SetVal and Rename; every block Reserve
//     returns carries the policy as stored ([sequence.Block.Policy]).
//   - Members ([sequence.Memberships]): the databases of a sequence
//     ([sequence.Spec.Members]) are written by Create and returned by
//     Describe, List and Attach; Attach adds a database or replaces its
//     view, only for the same counter (else [sequence.CounterError], 42P07,
//     nothing changed; START, CACHE, policy and daily limit are not the
//     counter), never moving the position, version or incarnation; a
//     sequence without members gets its first and keeps its own OWNED BY
//     and defaults; Detach of one of several keeps the others, of the last
//     (or of a sequence without members) drops it as Drop does (created
//     again, a new incarnation), of a non-member changes nothing; Reserve,
//     Release, SetVal, Alter and Rename keep them; a missing name is
//     ErrNotFound to both.
//   - Drop: a dropped sequence is missing to Reserve, Describe, SetVal,
//     Drop and List, never silently restarting; created again, it starts
//     from its new START.
//   - Gen: the incarnation ([sequence.Info.Gen]) is set by Create (never 0),
//     the same in Describe, List, every block and Gen, kept by SetVal, Alter
//     and Rename, and new after Drop and Create.
//   - Release: a tail is taken back only if nobody reserved after it, and
//     never into another incarnation of the name; chained releases (a
//     standby block, then the active block's tail) are accepted.
//   - Counters, Names: reservations, values reserved and the time of the
//     last reservation; distinct sequences by PostgreSQL's rules (case when
//     quoted, schema, any character), renamed across schemas.
//   - Concurrent, ConcurrentLimit, ConcurrentCaches: 64 goroutines reserving
//     directly (every value exactly once, the final position and counters
//     accounting for every block), 16 racing to MAXVALUE, and 8 caches
//     ([seqcache.Cache]) of 8 callers each on one store (values distinct,
//     increasing per caller, none handed out again after the caches close
//     and release their tails). Run the suite under -race.
//   - ConcurrentMembers: 8 databases attaching at once while values are
//     drawn, then half detaching as 8 others attach, then all detaching:
//     no membership lost, no value twice, exactly one Detach (the last)
//     drops the sequence; and the last member detaching as a new one
//     attaches ends one way or the other (kept with the new member, or
//     dropped and the Attach finding nothing), never both.
//
// # What RunBudget checks
//
// Daily limits ([sequence.Spec.DailyLimit]) have a runner of their own,
// since the store must take the suite's fake clock: the block that reaches
// the limit is truncated, the next refused with 54000 and changing nothing,
// the count restarts at midnight UTC (checked one millisecond before and at
// midnight), Alter sets, raises, lowers and removes the limit keeping the
// day's count, SetVal and Rename keep both, 8 handles of the store
// (separate connections or clients, as 8 processes would have) race 4
// goroutines each at the limit for three days and get exactly the limit
// each day, and a [seqcache.Cache] ends Next with the limit's error at once
// rather than waiting as for a transient failure.
package storetest
