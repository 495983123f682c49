// Package memstore is a seqshim sequence store held in process memory: the
// store behind the URL "memory:", for tests, demos and single-process
// programs.
//
// # Basics
//
// [New] returns a store of its own; [Open] returns the process-wide store of a
// URL ("memory:" or "memory:NAME"), so every connection of one process that
// opens the same URL shares its sequences:
//
//	st, _ := memstore.Open("memory:")
//	spec, pos, _ := sequence.Clauses{}.Create()
//	_ = st.Create(ctx, "orders_seq", spec, pos)
//	b, _ := st.Reserve(ctx, "orders_seq", 100) // 1..100
//
// # Guarantees
//
// A *Store implements the whole store contract, [sequence.Store],
// [sequence.Releaser] and [sequence.Validator] (incarnations count up per
// process), with the same semantics as the shared stores and is
// checked by the same contract tests: every operation runs under one mutex, and
// all sequence arithmetic is the sequence model's ([sequence.Spec.Reserve],
// [sequence.Clauses.Alter], [sequence.Spec.SetVal], [sequence.Spec.Release]),
// memberships included ([Store.Attach], [Store.Detach]: the members of a
// sequence, [sequence.Spec.Members], are the store's own copies, never
// shared with a caller).
// [Store.Reserve] does not allocate. A daily limit
// (sequence.Spec.DailyLimit) is counted under the same mutex, by the
// store's clock ([Options.Now]).
//
// # Caveats
//
// Values are unique within one process only: two processes opening "memory:"
// get two unrelated stores that hand out the same values. Everything is lost
// when the process exits. Use dynamostore or sqlstore for anything shared.
package memstore
