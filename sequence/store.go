package sequence

import (
	"context"
	"time"
)

// Reserver is the reserving side of a store: blocks of values. It is all a
// block cache (package seqcache) needs.
//
// Reserve returns a block of at most n values of the sequence name (a
// canonical name, see [ParseName]) that no other caller, in this process or any
// other, ever receives. The block is computed by [Spec.Reserve] from the
// stored spec and position, and comes only from a store response received by
// this caller: a timed-out or ambiguous request is a gap, never a guess.
// Errors are *Error for definitive answers (ErrNotFound, ErrLimit), errors
// wrapping ErrMisconfigured for a store that cannot work as configured, and
// anything else for transient ones (see [IsTransient]).
type Reserver interface {
	Reserve(ctx context.Context, name string, n int64) (Block, error)
}

// Releaser is an optional capability of a store: taking back the unused tail
// of the last block it handed out, so a clean shutdown leaves no gap. It
// returns false, nil when someone reserved after the tail, which then stays
// a gap.
type Releaser interface {
	Release(ctx context.Context, name string, unused Block) (bool, error)
}

// Checker is an optional capability of a store: Check verifies, with one
// cheap request, that the store as configured can serve (the table or file
// exists or can be created, the credentials and region are accepted). A
// configuration error wraps [ErrMisconfigured] and its message names the store
// (path, table, endpoint, region) and the fix; any other error means the
// store could not be asked (unreachable, timed out) and may go away by itself.
// Stores with nothing to check (memstore) do not implement it.
type Checker interface {
	Check(ctx context.Context) error
}

// Check calls st's Check if st is a [Checker], and returns nil otherwise.
//
// A front end checks its store once, when it first needs it (the driver: at
// the first connection of a connector): an error wrapping [ErrMisconfigured]
// fails that at once; any other error is left to the operations that need
// the store, which report it as they run.
func Check(ctx context.Context, st any) error {
	if c, ok := st.(Checker); ok {
		return c.Check(ctx)
	}
	return nil
}

// Admin is the management side of a store, used by the driver for sequence
// DDL and setval, and by seqctl. Spec changes take effect at the next
// reservation of every process.
type Admin interface {
	// Create stores a new sequence at pos (normally spec.Initial()). It
	// fails with ErrExists (wrapped in *Error) if the name is taken.
	Create(ctx context.Context, name string, spec Spec, pos Position) error
	// Alter applies ALTER SEQUENCE clauses atomically against concurrent
	// reservations and returns the result.
	Alter(ctx context.Context, name string, c Clauses) (Info, error)
	// Rename gives the sequence a new name, keeping spec and position
	// (ALTER SEQUENCE ... RENAME TO). ErrNotFound, or ErrExists for newName.
	// No value is handed out twice across the rename.
	Rename(ctx context.Context, name, newName string) error
	// Drop deletes the sequence; ErrNotFound if it does not exist.
	Drop(ctx context.Context, name string) error
	// Describe returns the sequence's spec, position and counters.
	Describe(ctx context.Context, name string) (Info, error)
	// List returns every sequence, ordered by name.
	List(ctx context.Context) ([]Info, error)
	// SetVal is setval(name, value, isCalled).
	SetVal(ctx context.Context, name string, value int64, isCalled bool) (Info, error)
}

// Store is the whole contract a store implements: reservation and
// administration. Implementations that can take back unused values also
// implement Releaser.
type Store interface {
	Reserver
	Admin
}

// Info describes a stored sequence.
type Info struct {
	Name     string // canonical name
	Spec     Spec
	Position Position
	Version  int64 // bumped by every Alter and SetVal

	// Burn-rate counters, maintained by Reserve.
	Reservations   int64     // blocks handed out
	ValuesReserved int64     // values in those blocks
	LastReserved   time.Time // zero if never
}
