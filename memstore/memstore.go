package memstore

import (
	"context"
	"fmt"
	"slices"
	"sort"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/seqshim/seqshim/sequence"
)

// Store is a sequence store ([sequence.Store]) held in memory, safe for concurrent use. The zero
// value is not usable; call [New] or [Open].
type Store struct {
	now func() time.Time // written once by New: the store's clock

	mu   sync.Mutex                // guards seqs, the Infos it points to, and from
	seqs map[string]*sequence.Info // Spec.Defaults and Spec.Members (with their defaults and native ranges) are the store's own copies, never a caller's
	from map[string]string         // per sequence renamed: the name its last Rename took it from
}

// Options configure a Store made by [New]. The zero value is usable.
type Options struct {
	// Now is the store's clock: it stamps Info.LastReserved and decides
	// which UTC day a reservation counts in under a daily limit
	// (sequence.Spec.DailyLimit). Default time.Now; tests set a fake one.
	Now func() time.Time
}

var (
	_ sequence.Store     = (*Store)(nil)
	_ sequence.Releaser  = (*Store)(nil)
	_ sequence.Validator = (*Store)(nil)
)

// gens numbers the sequences created by every Store of the process: their
// incarnations (sequence.Info.Gen), never 0, never reused.
var gens atomic.Uint64

// New returns an empty store of its own, shared with nobody.
func New(optFns ...func(*Options)) *Store {
	var o Options
	for _, fn := range optFns {
		fn(&o)
	}
	if o.Now == nil {
		o.Now = time.Now
	}
	return &Store{now: o.Now, seqs: make(map[string]*sequence.Info), from: make(map[string]string)}
}

// Scheme is the URL scheme of in-process stores.
const Scheme = "memory"

var (
	registryMu sync.Mutex
	registry   = map[string]*Store{}
)

// Open returns the process-wide store named by rawurl: "memory:" is the
// default instance, "memory:NAME" (or "memory://NAME") a separate one. Every
// Open of the same URL in one process returns the same *Store, so several
// connections of a process share its sequences; other processes never see
// them. The name may be followed by a query ("memory:x?a=b"), which is
// ignored, so a URL carrying options for other layers still opens.
func Open(rawurl string) (*Store, error) {
	name, ok := strings.CutPrefix(rawurl, Scheme+":")
	if !ok {
		return nil, fmt.Errorf("memstore: %q is not a memory store URL (want memory: or memory:NAME)", rawurl)
	}
	name = strings.TrimPrefix(name, "//")
	if i := strings.IndexByte(name, '?'); i >= 0 {
		name = name[:i]
	}
	registryMu.Lock()
	defer registryMu.Unlock()
	st := registry[name]
	if st == nil {
		st = New()
		registry[name] = st
	}
	return st, nil
}

// Reserve implements [sequence.Reserver]: the block is computed by
// [sequence.Spec.ReserveAt] (the daily limit, if any, at the store's clock)
// and the position and the day's usage moved under one lock.
func (s *Store) Reserve(ctx context.Context, name string, n int64) (sequence.Block, error) {
	info, err := s.lock(ctx, name)
	if err != nil {
		return sequence.Block{}, err
	}
	defer s.mu.Unlock()
	now := s.now().Round(0)
	b, pos, usage, err := info.Spec.ReserveAt(name, info.Position, info.DayUsage, now, n)
	if err != nil {
		return sequence.Block{}, err
	}
	info.Position, info.DayUsage = pos, usage
	info.Reservations++
	info.ValuesReserved += b.Count
	info.LastReserved = now
	b.Gen = info.Gen
	return b, nil
}

// Gen implements [sequence.Validator].
func (s *Store) Gen(ctx context.Context, name string) (uint64, error) {
	info, err := s.lock(ctx, name)
	if err != nil {
		return 0, err
	}
	defer s.mu.Unlock()
	return info.Gen, nil
}

// Release implements [sequence.Releaser] with [sequence.Spec.Release]: the
// tail is taken back only if nobody reserved after it, and only to the
// incarnation it came from.
func (s *Store) Release(ctx context.Context, name string, unused sequence.Block) (bool, error) {
	info, err := s.lock(ctx, name)
	if err != nil {
		return false, err
	}
	defer s.mu.Unlock()
	if unused.Gen != 0 && unused.Gen != info.Gen {
		return false, nil // a block of a sequence dropped since
	}
	pos, ok := info.Spec.Release(info.Position, unused)
	if ok {
		info.Position = pos
	}
	return ok, nil
}

// Create implements [sequence.Admin]. The spec is validated and pos must lie
// within its bounds.
func (s *Store) Create(ctx context.Context, name string, spec sequence.Spec, pos sequence.Position) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	if err := spec.Validate(); err != nil {
		return err
	}
	if _, err := spec.SetVal(name, pos.Last, pos.Called); err != nil {
		return err
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.seqs[name] != nil {
		return sequence.ExistsError(name)
	}
	spec.Defaults, spec.Members = slices.Clone(spec.Defaults), cloneMembers(spec.Members)
	s.seqs[name] = &sequence.Info{Name: name, Spec: spec, Position: pos, Version: 1, Gen: gens.Add(1)}
	delete(s.from, name)
	return nil
}

// Alter implements [sequence.Admin] with [sequence.Clauses.Alter].
func (s *Store) Alter(ctx context.Context, name string, c sequence.Clauses) (sequence.Info, error) {
	info, err := s.lock(ctx, name)
	if err != nil {
		return sequence.Info{}, err
	}
	defer s.mu.Unlock()
	spec, pos, err := c.Alter(info.Spec, info.Position)
	if err != nil {
		return sequence.Info{}, err
	}
	info.Spec, info.Position = spec, pos
	info.Version++
	return copyOf(info), nil
}

// SetVal implements [sequence.Admin] with [sequence.Spec.SetVal].
func (s *Store) SetVal(ctx context.Context, name string, value int64, isCalled bool) (sequence.Info, error) {
	info, err := s.lock(ctx, name)
	if err != nil {
		return sequence.Info{}, err
	}
	defer s.mu.Unlock()
	pos, err := info.Spec.SetVal(name, value, isCalled)
	if err != nil {
		return sequence.Info{}, err
	}
	info.Position = pos
	info.Version++
	return copyOf(info), nil
}

// Rename implements [sequence.Admin]. A Rename repeated after it completed
// (name gone, newName renamed from it and not renamed since) succeeds and
// changes nothing.
func (s *Store) Rename(ctx context.Context, name, newName string) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	info := s.seqs[name]
	if info == nil {
		if name != newName && s.seqs[newName] != nil && s.from[newName] == name {
			return nil
		}
		return sequence.NotFoundError(name)
	}
	if s.seqs[newName] != nil {
		return sequence.ExistsError(newName)
	}
	delete(s.seqs, name)
	delete(s.from, name)
	info.Name = newName
	s.seqs[newName] = info
	s.from[newName] = name
	return nil
}

// Drop implements [sequence.Admin].
func (s *Store) Drop(ctx context.Context, name string) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.seqs[name] == nil {
		return sequence.NotFoundError(name)
	}
	delete(s.seqs, name)
	delete(s.from, name)
	return nil
}

// Attach implements [sequence.Memberships] under the store's lock: the
// counter compared with [sequence.Spec.SameCounter], the member added with
// [sequence.WithMember].
func (s *Store) Attach(ctx context.Context, name string, m sequence.Member, counter sequence.Spec) (sequence.Info, error) {
	if err := m.Validate(); err != nil {
		return sequence.Info{}, err
	}
	info, err := s.lock(ctx, name)
	if err != nil {
		return sequence.Info{}, err
	}
	defer s.mu.Unlock()
	if !info.Spec.SameCounter(counter) {
		return sequence.Info{}, sequence.CounterError(name, info.Spec, info.Spec.Members)
	}
	m = cloneMember(m)
	info.Spec.Members = sequence.WithMember(info.Spec.Members, m)
	return copyOf(info), nil
}

// Detach implements [sequence.Memberships] under the store's lock: the
// last member's Detach drops the sequence as [Store.Drop] does.
func (s *Store) Detach(ctx context.Context, name, db string) (bool, error) {
	info, err := s.lock(ctx, name)
	if err != nil {
		return false, err
	}
	defer s.mu.Unlock()
	if len(info.Spec.Members) > 0 {
		if _, ok := info.Spec.Member(db); !ok {
			return false, nil
		}
		if members := sequence.WithoutMember(info.Spec.Members, db); len(members) > 0 {
			info.Spec.Members = members
			return false, nil
		}
	}
	delete(s.seqs, name)
	delete(s.from, name)
	return true, nil
}

// Describe implements [sequence.Admin].
func (s *Store) Describe(ctx context.Context, name string) (sequence.Info, error) {
	info, err := s.lock(ctx, name)
	if err != nil {
		return sequence.Info{}, err
	}
	defer s.mu.Unlock()
	return copyOf(info), nil
}

// List implements [sequence.Admin]: every sequence, ordered by name (byte
// order of the canonical names).
func (s *Store) List(ctx context.Context) ([]sequence.Info, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	s.mu.Lock()
	infos := make([]sequence.Info, 0, len(s.seqs))
	for _, info := range s.seqs {
		infos = append(infos, copyOf(info))
	}
	s.mu.Unlock()
	sort.Slice(infos, func(i, j int) bool { return infos[i].Name < infos[j].Name })
	return infos, nil
}

// lock checks ctx, takes the store's lock and finds the sequence; on success
// the caller holds the lock and must unlock it.
func (s *Store) lock(ctx context.Context, name string) (*sequence.Info, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	s.mu.Lock()
	info := s.seqs[name]
	if info == nil {
		s.mu.Unlock()
		return nil, sequence.NotFoundError(name)
	}
	return info, nil
}

// copyOf returns *info with slices of its own, so that callers cannot change
// the store's state through what it returns.
func copyOf(info *sequence.Info) sequence.Info {
	out := *info
	out.Spec.Defaults = slices.Clone(info.Spec.Defaults)
	out.Spec.Members = cloneMembers(info.Spec.Members)
	return out
}

// cloneMembers copies members down to each member's column defaults and
// native range; nil for none.
func cloneMembers(members []sequence.Member) []sequence.Member {
	if len(members) == 0 {
		return nil
	}
	out := make([]sequence.Member, len(members))
	for i, m := range members {
		out[i] = cloneMember(m)
	}
	return out
}

// cloneMember copies m down to its column defaults and native range, so
// that the store's copy and a caller's share nothing.
func cloneMember(m sequence.Member) sequence.Member {
	m.Defaults = slices.Clone(m.Defaults)
	if m.Native != nil {
		native := *m.Native
		m.Native = &native
	}
	return m
}
