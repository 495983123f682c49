// Package storetest is the contract test suite every seqshim store passes:
// memstore, sqlstore (SQLite and PostgreSQL) and dynamostore run the same
// [Run], so "as correct as any other store" is checked, not promised.
//
// # Usage
//
// In a store's test file:
//
//	func TestContract(t *testing.T) {
//		storetest.Run(t, func(t *testing.T) sequence.Store {
//			st := mystore.New(...)
//			t.Cleanup(func() { st.Close() })
//			return st
//		})
//	}
//
// open is called once per subtest with the subtest's t. It may return a fresh
// store each time or one shared store (one table for the whole run): every
// subtest uses sequence names of its own, unique to the Run call (a random
// token is part of every name), and never assumes the store is empty; the
// List test only looks at its own names. Closing the store is up to open (use
// t.Cleanup).
//
// # What is checked
//
// Every expected block, position and error is computed with the sequence model's own
// arithmetic ([sequence.Spec.Reserve], [sequence.Clauses.Alter],
// [sequence.Spec.SetVal]) from the spec and position the test tracks, and the
// main cases are also pinned to the values PostgreSQL 15 gives for the same
// nextval calls. Errors must be *sequence.Error of the right kind, SQLSTATE and
// PostgreSQL message text. A spec is kept whole: OWNED BY and the column
// defaults ([sequence.Spec.Defaults], names quoted and schema-qualified) come
// back from Describe, List and Alter as created, are replaced only by an
// Alter that gives them, and survive Reserve, SetVal and Rename. So does the
// cache policy ([sequence.Spec.Policy]), which every block Reserve returns
// must carry as stored, before and after an Alter changes it. A Rename
// repeated after it completed succeeds and changes nothing; one onto a name
// renamed from another, or renamed on since, is of a missing sequence.
// Release tests run only for stores that implement [sequence.Releaser].
//
// Concurrency: 64 goroutines reserving directly (every value exactly once, the
// final position and counters accounting for every block), 16 racing to
// MAXVALUE, and 8 caches ([seqcache.Cache]) of 8 callers each on one store (values
// distinct, increasing per caller, none handed out again after the caches
// close and release their tails). Run the tests under -race.
//
// Daily limits ([sequence.Spec.DailyLimit]) have a runner of their own,
// [RunBudget], since the store must take a fake clock ([Clock]): the block
// that reaches the limit is truncated, the next refused with 54000 and
// changing nothing, the count restarts at midnight UTC (checked one
// millisecond before and at midnight), Alter sets, raises, lowers and
// removes the limit keeping the day's count, SetVal and Rename keep both, 8
// handles of the store (separate connections or clients, as 8 processes
// would have) race 4 goroutines each at the limit for three days and get
// exactly the limit each day, and a [seqcache.Cache] ends Next with the
// limit's error at once rather than waiting as for a transient failure.
package storetest
