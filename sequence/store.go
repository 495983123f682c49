package sequence

import (
	"context"
	"errors"
	"time"
)

// Reserver is the reserving side of a store: blocks of values. It is all a
// block cache (package seqcache) needs.
//
// Reserve returns a block of at most n values of the sequence name (a
// canonical name, see [ParseName]) that no other caller, in this process or any
// other, ever receives. The block is computed by [Spec.Reserve] from the
// stored spec and position, and comes only from a store response received by
// this caller: a timed-out or ambiguous request is a gap, never a guess,
// unless the store is a [Recoverer] and proves, by the token the caller
// wrote with the reservation, that the block is this caller's.
// Errors are *Error for definitive answers (ErrNotFound, ErrLimit,
// ErrDailyLimit), errors wrapping ErrMisconfigured for a store that cannot
// work as configured, and anything else for transient ones (see
// [IsTransient]).
//
// A sequence with a daily limit ([Spec.DailyLimit]) has its block computed
// by [Spec.ReserveAt] instead, at the store's clock, from the usage stored
// with it ([Info.DayUsage]); the new usage is written atomically with the new
// position (under the same lock, in the same transaction or conditional
// write), so that however many processes reserve at once, the values handed
// out in one UTC day never exceed the limit. A reservation that would cross
// it gets the values left (a shorter block); one made when none are left is
// refused with [DailyLimitError] and changes nothing.
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

// Validator is an optional capability of a store: Gen returns the
// incarnation ([Info.Gen]) of the sequence name with one cheap consistent
// read — a DynamoDB GetItem of one attribute, one SELECT of one column —
// or ErrNotFound (in *Error, SQLSTATE 42P01) when no sequence has that name
// (dropped, or renamed away). A block cache calls it in the background to
// notice, within a bounded time, that another process dropped, recreated or
// renamed a sequence whose values it holds (see package seqcache).
type Validator interface {
	Gen(ctx context.Context, name string) (uint64, error)
}

// ErrNoGen is returned by [ReadGen] for a store that can tell neither the
// incarnation nor the existence of a sequence.
var ErrNoGen = errors.New("sequence: the store implements neither Validator nor Describe")

// ReadGen returns the incarnation of the sequence name in st: st's Gen if
// it is a [Validator], else the Gen of its Describe (a full read; 0 if the
// store keeps no incarnation, which still tells whether the sequence
// exists), else ErrNoGen.
func ReadGen(ctx context.Context, st any, name string) (uint64, error) {
	switch s := st.(type) {
	case Validator:
		return s.Gen(ctx, name)
	case interface {
		Describe(ctx context.Context, name string) (Info, error)
	}:
		info, err := s.Describe(ctx, name)
		return info.Gen, err
	}
	return 0, ErrNoGen
}

// Admin is the management side of a store, used by the driver for sequence
// DDL and setval, and by seqctl. Spec changes take effect at the next
// reservation of every process. It includes [Memberships]: the databases
// that declared each sequence ([Spec.Members]), which every operation below
// keeps as they are but Create (which writes the spec's) and Drop (which
// removes them with the sequence).
type Admin interface {
	Memberships
	// Create stores a new sequence at pos (normally spec.Initial()), with
	// spec.Members as its members. It fails with ErrExists (wrapped in
	// *Error) if the name is taken.
	Create(ctx context.Context, name string, spec Spec, pos Position) error
	// Alter applies ALTER SEQUENCE clauses atomically against concurrent
	// reservations and returns the result. Clauses.DailyLimit sets or
	// removes the daily limit; the day's usage (Info.DayUsage) is kept, so
	// lowering a limit below what the day used stops reservations at once.
	// Clauses.Policy changes the cache policy, which every Reserve returns
	// from then on ([Block.Policy]).
	Alter(ctx context.Context, name string, c Clauses) (Info, error)
	// Rename gives the sequence a new name, keeping spec and position
	// (ALTER SEQUENCE ... RENAME TO). ErrNotFound, or ErrExists for newName.
	// No value is handed out twice across the rename.
	Rename(ctx context.Context, name, newName string) error
	// Drop deletes the sequence; ErrNotFound if it does not exist.
	Drop(ctx context.Context, name string) error
	// Describe returns the sequence's spec (its members among them),
	// position and counters (the daily usage among them).
	Describe(ctx context.Context, name string) (Info, error)
	// List returns every sequence, ordered by name.
	List(ctx context.Context) ([]Info, error)
	// SetVal is setval(name, value, isCalled).
	SetVal(ctx context.Context, name string, value int64, isCalled bool) (Info, error)
}

// Store is the whole contract a store implements: reservation and
// administration, memberships included. Implementations that can take back unused values also
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
	// Gen is the sequence's incarnation: set by Create, different for every
	// sequence a store creates under a name, kept by Alter, SetVal, Rename
	// and Reserve. 0 means the store does not say.
	Gen uint64

	// Burn-rate counters, maintained by Reserve.
	Reservations   int64     // blocks handed out
	ValuesReserved int64     // values in those blocks
	LastReserved   time.Time // zero if never

	// DayUsage is what the sequence reserved in one UTC day, counted by
	// Reserve while Spec.DailyLimit is set (see [Spec.ReserveAt]): its Used
	// is today's count only if its Day is today.
	DayUsage Usage
}
