// Package faultstore wraps a store to inject failures, for seqshim's tests
// of callers (caches, the driver's warm-up and shadow mode) that must
// survive a failing store. It is test scaffolding, not part of the store
// contract: a store author runs package [storetest] instead.
//
// [storetest]: https://pkg.go.dev/github.com/seqshim/seqshim/sequence/storetest
package faultstore

import (
	"context"
	"sync"

	"github.com/seqshim/seqshim/sequence"
)

// Operation names used by [Store].
const (
	OpReserve  = "Reserve"
	OpRelease  = "Release"
	OpCreate   = "Create"
	OpAlter    = "Alter"
	OpRename   = "Rename"
	OpDrop     = "Drop"
	OpDescribe = "Describe"
	OpList     = "List"
	OpSetVal   = "SetVal"
	OpGen      = "Gen"
	OpAttach   = "Attach"
	OpDetach   = "Detach"
)

// Store wraps a store and injects failures, for tests of code that must
// survive a failing store. A fault either stops the call before it reaches the
// store (the store is untouched) or, with applied, lets the store apply it and
// loses the response (the ambiguous case: a reserved block that must become a
// gap). Store is safe for concurrent use.
type Store struct {
	store sequence.Store

	mu     sync.Mutex
	down   error
	queued []fault
	calls  map[string]int
}

type fault struct {
	op      string
	err     error
	applied bool
}

var (
	_ sequence.Store     = (*Store)(nil)
	_ sequence.Releaser  = (*Store)(nil)
	_ sequence.Validator = (*Store)(nil)
)

// New wraps st; with no fault set it forwards every call.
func New(st sequence.Store) *Store {
	return &Store{store: st, calls: map[string]int{}}
}

// SetDown makes every call fail with err before reaching the store until
// SetDown(nil).
func (f *Store) SetDown(err error) {
	f.mu.Lock()
	f.down = err
	f.mu.Unlock()
}

// FailNext makes the next call of op (an Op constant, or "" for any) fail with
// err. With applied, the store performs the call first and its result is
// discarded. Faults queue up and fire in order.
func (f *Store) FailNext(op string, err error, applied bool) {
	f.mu.Lock()
	f.queued = append(f.queued, fault{op: op, err: err, applied: applied})
	f.mu.Unlock()
}

// Calls returns how many calls of op were made, failed ones included.
func (f *Store) Calls(op string) int {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.calls[op]
}

// before counts the call and returns the fault to apply to it, if any.
func (f *Store) before(op string) (fault, bool) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.calls[op]++
	if f.down != nil {
		return fault{op: op, err: f.down}, true
	}
	for i, q := range f.queued {
		if q.op == "" || q.op == op {
			f.queued = append(f.queued[:i:i], f.queued[i+1:]...)
			return q, true
		}
	}
	return fault{}, false
}

// do runs call under the fault, if any, for op.
func do[T any](f *Store, op string, call func() (T, error)) (T, error) {
	var zero T
	q, ok := f.before(op)
	if !ok {
		return call()
	}
	if q.applied {
		call() //nolint:errcheck // the response is lost on purpose
	}
	return zero, q.err
}

// Reserve implements [sequence.Reserver].
func (f *Store) Reserve(ctx context.Context, name string, n int64) (sequence.Block, error) {
	return do(f, OpReserve, func() (sequence.Block, error) { return f.store.Reserve(ctx, name, n) })
}

// Release implements [sequence.Releaser]; it answers false, nil when the
// wrapped store does not.
func (f *Store) Release(ctx context.Context, name string, unused sequence.Block) (bool, error) {
	return do(f, OpRelease, func() (bool, error) {
		if r, ok := f.store.(sequence.Releaser); ok {
			return r.Release(ctx, name, unused)
		}
		return false, nil
	})
}

// Gen implements [sequence.Validator] with [sequence.ReadGen] of the
// wrapped store.
func (f *Store) Gen(ctx context.Context, name string) (uint64, error) {
	return do(f, OpGen, func() (uint64, error) { return sequence.ReadGen(ctx, f.store, name) })
}

// Create implements [sequence.Admin].
func (f *Store) Create(ctx context.Context, name string, spec sequence.Spec, pos sequence.Position) error {
	_, err := do(f, OpCreate, func() (struct{}, error) { return struct{}{}, f.store.Create(ctx, name, spec, pos) })
	return err
}

// Alter implements [sequence.Admin].
func (f *Store) Alter(ctx context.Context, name string, c sequence.Clauses) (sequence.Info, error) {
	return do(f, OpAlter, func() (sequence.Info, error) { return f.store.Alter(ctx, name, c) })
}

// Rename implements [sequence.Admin].
func (f *Store) Rename(ctx context.Context, name, newName string) error {
	_, err := do(f, OpRename, func() (struct{}, error) { return struct{}{}, f.store.Rename(ctx, name, newName) })
	return err
}

// Drop implements [sequence.Admin].
func (f *Store) Drop(ctx context.Context, name string) error {
	_, err := do(f, OpDrop, func() (struct{}, error) { return struct{}{}, f.store.Drop(ctx, name) })
	return err
}

// Describe implements [sequence.Admin].
func (f *Store) Describe(ctx context.Context, name string) (sequence.Info, error) {
	return do(f, OpDescribe, func() (sequence.Info, error) { return f.store.Describe(ctx, name) })
}

// List implements [sequence.Admin].
func (f *Store) List(ctx context.Context) ([]sequence.Info, error) {
	return do(f, OpList, func() ([]sequence.Info, error) { return f.store.List(ctx) })
}

// SetVal implements [sequence.Admin].
func (f *Store) SetVal(ctx context.Context, name string, value int64, isCalled bool) (sequence.Info, error) {
	return do(f, OpSetVal, func() (sequence.Info, error) { return f.store.SetVal(ctx, name, value, isCalled) })
}

// Attach implements [sequence.Memberships].
func (f *Store) Attach(ctx context.Context, name string, m sequence.Member, counter sequence.Spec) (sequence.Info, error) {
	return do(f, OpAttach, func() (sequence.Info, error) { return f.store.Attach(ctx, name, m, counter) })
}

// Detach implements [sequence.Memberships].
func (f *Store) Detach(ctx context.Context, name, db string) (bool, error) {
	return do(f, OpDetach, func() (bool, error) { return f.store.Detach(ctx, name, db) })
}
