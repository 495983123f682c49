package storetest

import (
	"errors"
	"fmt"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/seqshim/seqshim/sequence"
)

// db returns the identity of a test database, as the PostgreSQL front end
// writes it ([sequence.DatabaseID]): slashes and all.
func db(name string) string { return sequence.DatabaseID("7301234567890123456", "16384", name) }

// member returns a member of database name whose view names it, so that
// views are told apart.
func member(name string) sequence.Member {
	return sequence.Member{
		DB:       db(name),
		OwnedBy:  "owner/" + name,
		Defaults: []sequence.ColumnDefault{{Table: `"T_` + name + `"`, Column: "id", Kind: sequence.IdentityByDefault}},
	}
}

// members returns the members of names, in DB order, as a store keeps them.
func members(names ...string) []sequence.Member {
	var out []sequence.Member
	for _, n := range names {
		out = sequence.WithMember(out, member(n))
	}
	return out
}

// sameMembersAs reports whether got is want: nil (none) only if want is
// empty, each member with its database, view and native range.
func sameMembersAs(got, want []sequence.Member) bool {
	return (got == nil) == (len(want) == 0) && slices.EqualFunc(got, want, func(a, b sequence.Member) bool {
		return a.DB == b.DB && a.OwnedBy == b.OwnedBy && slices.Equal(a.Defaults, b.Defaults) && sameNative(a.Native, b.Native)
	})
}

// sameNative reports whether a and b are the same native range: both nil,
// or both with the same First and Last.
func sameNative(a, b *sequence.NativeRange) bool {
	return a == b || a != nil && b != nil && *a == *b
}

// fmtMembers writes members for a message, native ranges by value (%+v
// would write their pointers).
func fmtMembers(ms []sequence.Member) string {
	if ms == nil {
		return "nil"
	}
	parts := make([]string, len(ms))
	for i, m := range ms {
		native := "nil"
		if m.Native != nil {
			native = fmt.Sprintf("%+v", *m.Native)
		}
		parts[i] = fmt.Sprintf("{DB:%s OwnedBy:%s Defaults:%+v Native:%s}", m.DB, m.OwnedBy, m.Defaults, native)
	}
	return "[" + strings.Join(parts, " ") + "]"
}

// checkMembers checks the members of name in Describe and List.
func checkMembers(t *testing.T, st sequence.Store, step, name string, want []sequence.Member) {
	t.Helper()
	info, err := st.Describe(t.Context(), name)
	if err != nil {
		t.Fatalf("%s: Describe(%s): %v", step, name, err)
	}
	if !sameMembersAs(info.Spec.Members, want) {
		t.Errorf("%s: Describe(%s) members %s, want %s", step, name, fmtMembers(info.Spec.Members), fmtMembers(want))
	}
	infos, err := st.List(t.Context())
	if err != nil {
		t.Fatalf("%s: List: %v", step, err)
	}
	i := slices.IndexFunc(infos, func(info sequence.Info) bool { return info.Name == name })
	if i < 0 {
		t.Fatalf("%s: List lacks %s", step, name)
	}
	if !sameMembersAs(infos[i].Spec.Members, want) {
		t.Errorf("%s: List: %s members %s, want %s", step, name, fmtMembers(infos[i].Spec.Members), fmtMembers(want))
	}
}

// createMembers creates name from clauses c with members ms.
func createMembers(t *testing.T, st sequence.Store, name string, c sequence.Clauses, ms []sequence.Member) *model {
	t.Helper()
	spec, pos, err := c.Create()
	if err != nil {
		t.Fatalf("bad test clauses: %v", err)
	}
	spec.Members = ms
	if err := st.Create(t.Context(), name, spec, pos); err != nil {
		t.Fatalf("Create(%s) with members: %v", name, err)
	}
	return &model{name: name, spec: spec, pos: pos}
}

// attach attaches m to the model's sequence with its own counter and
// checks what Attach returns and what the store keeps after.
func attach(t *testing.T, st sequence.Store, md *model, m sequence.Member, counter sequence.Spec) {
	t.Helper()
	before := describe(t, st, md)
	info, err := st.Attach(t.Context(), md.name, m, counter)
	if err != nil {
		t.Fatalf("Attach(%s, %s): %v", md.name, m.DB, err)
	}
	md.spec.Members = sequence.WithMember(md.spec.Members, m)
	if info.Name != md.name || !info.Spec.Equal(md.spec) || info.Position != md.pos || !sameMembersAs(info.Spec.Members, md.spec.Members) {
		t.Errorf("Attach(%s, %s) returned spec {%v} members %s pos %+v, want {%v} %s %+v", md.name, m.DB,
			info.Spec, fmtMembers(info.Spec.Members), info.Position, md.spec, fmtMembers(md.spec.Members), md.pos)
	}
	after := describe(t, st, md)
	if after.Version != before.Version || after.Gen != before.Gen {
		t.Errorf("Attach(%s, %s) moved version %d -> %d, incarnation %d -> %d; want both kept",
			md.name, m.DB, before.Version, after.Version, before.Gen, after.Gen)
	}
	checkMembers(t, st, "Attach "+m.DB, md.name, md.spec.Members)
}

// detach detaches database dbName from the model's sequence and checks
// dropped.
func detach(t *testing.T, st sequence.Store, md *model, dbName string, wantDropped bool) {
	t.Helper()
	dropped, err := st.Detach(t.Context(), md.name, dbName)
	if err != nil {
		t.Fatalf("Detach(%s, %s): %v", md.name, dbName, err)
	}
	if dropped != wantDropped {
		t.Fatalf("Detach(%s, %s) dropped = %v, want %v", md.name, dbName, dropped, wantDropped)
	}
	if !dropped {
		md.spec.Members = sequence.WithoutMember(md.spec.Members, dbName)
		if len(md.spec.Members) == 0 {
			md.spec.Members = nil
		}
		describe(t, st, md)
		checkMembers(t, st, "Detach "+dbName, md.name, md.spec.Members)
	}
}

// checkGone checks that name is dropped: missing to Describe, Reserve,
// Attach, Detach and List.
func checkGone(t *testing.T, st sequence.Store, step, name string) {
	t.Helper()
	ctx := t.Context()
	_, err := st.Describe(ctx, name)
	checkError(t, step+": Describe", err, sequence.NotFoundError(name))
	_, err = st.Reserve(ctx, name, 1)
	checkError(t, step+": Reserve", err, sequence.NotFoundError(name))
	_, err = st.Attach(ctx, name, member("late"), sequence.DefaultSpec())
	checkError(t, step+": Attach", err, sequence.NotFoundError(name))
	_, err = st.Detach(ctx, name, db("late"))
	checkError(t, step+": Detach", err, sequence.NotFoundError(name))
	infos, err := st.List(ctx)
	if err != nil {
		t.Fatalf("%s: List: %v", step, err)
	}
	if slices.ContainsFunc(infos, func(info sequence.Info) bool { return info.Name == name }) {
		t.Errorf("%s: List shows %s", step, name)
	}
}

// testMembers checks the databases of a sequence ([sequence.Memberships]):
// written by Create, returned by Describe, List and Attach; Attach adds or
// replaces one database's view (its native range too), only for the same
// counter, never moving the position; Detach removes one and drops the
// sequence with its last (or when it has none); every other operation
// keeps them.
func testMembers(t *testing.T, st sequence.Store, n namer) {
	ctx := t.Context()

	t.Run("create", func(t *testing.T) {
		m := createMembers(t, st, n.name("create"), sequence.Clauses{}, members("a", "b"))
		describe(t, st, m)
		checkMembers(t, st, "Create", m.name, members("a", "b"))
		for _, x := range members("a", "b") {
			view, ok := describe(t, st, m).Spec.View(x.DB)
			if !ok || view.OwnedBy != x.OwnedBy || !slices.Equal(view.Defaults, x.Defaults) {
				t.Errorf("View(%s) = %q %v, %v; want %q %v", x.DB, view.OwnedBy, view.Defaults, ok, x.OwnedBy, x.Defaults)
			}
		}
		if _, ok := describe(t, st, m).Spec.View(db("c")); ok {
			t.Errorf("View(c): a database that is not a member sees the sequence")
		}
		// Without members: none (nil), seen by every database.
		plain := create(t, st, n.name("create_plain"), sequence.Clauses{})
		checkMembers(t, st, "Create without members", plain.name, nil)
	})

	t.Run("attach", func(t *testing.T) {
		m := createMembers(t, st, n.name("attach"), sequence.Clauses{Increment: sequence.Int64(3)}, members("a"))
		reserveModel(t, st, m, 5)
		// START, CACHE, the policy and the daily limit are not the counter.
		counter, _, err := sequence.Clauses{Increment: sequence.Int64(3), Start: sequence.Int64(1000), Cache: sequence.Int64(50)}.Create()
		if err != nil {
			t.Fatal(err)
		}
		counter.DailyLimit, counter.Policy.MinBlock = 10, 100
		attach(t, st, m, member("b"), counter)
		// The position never moves: values continue.
		reserveModel(t, st, m, 5)
		info := describe(t, st, m)
		for _, x := range members("a", "b") {
			if view, ok := info.Spec.View(x.DB); !ok || view.OwnedBy != x.OwnedBy || !slices.Equal(view.Defaults, x.Defaults) {
				t.Errorf("View(%s) = %q %v, %v; want %q %v", x.DB, view.OwnedBy, view.Defaults, ok, x.OwnedBy, x.Defaults)
			}
		}
	})

	t.Run("attach_replaces_view", func(t *testing.T) {
		m := createMembers(t, st, n.name("replace"), sequence.Clauses{}, members("a", "b"))
		changed := sequence.Member{DB: db("a"), OwnedBy: "owner/a2",
			Defaults: []sequence.ColumnDefault{{Table: "app.orders", Column: `we"ird`, Kind: sequence.IdentityAlways}}}
		attach(t, st, m, changed, m.spec)
		if got := describe(t, st, m).Spec.Members; len(got) != 2 || got[0].OwnedBy != "owner/a2" {
			t.Errorf("after replacing a's view: %s", fmtMembers(got))
		}
		// A view without OWNED BY or defaults is a view too.
		attach(t, st, m, sequence.Member{DB: db("a")}, m.spec)
		reserveModel(t, st, m, 1)
	})

	t.Run("attach_native", func(t *testing.T) {
		// A database that went back to native sequences (seqctl export of
		// one database of a shared counter) keeps the range the store
		// reserved for its native sequence in its view.
		m := createMembers(t, st, n.name("native"), sequence.Clauses{}, members("a", "b"))
		reserveModel(t, st, m, 3)
		native := member("a")
		native.Native = &sequence.NativeRange{First: 100, Last: 199}
		attach(t, st, m, native, m.spec)
		got, ok := describe(t, st, m).Spec.Member(db("a"))
		if !ok || got.Native == nil || *got.Native != (sequence.NativeRange{First: 100, Last: 199}) {
			t.Errorf("after attaching a with a native range: Describe shows a as %s, %v; want native {First:100 Last:199}",
				fmtMembers([]sequence.Member{got}), ok)
		}
		if got, _ := describe(t, st, m).Spec.Member(db("b")); got.Native != nil {
			t.Errorf("b has the native range %+v of a", *got.Native)
		}
		// Attaching again without one replaces the view: the range goes.
		attach(t, st, m, member("a"), m.spec)
		if got, ok := describe(t, st, m).Spec.Member(db("a")); !ok || got.Native != nil {
			t.Errorf("after attaching a again without a native range: Describe shows a as %s, %v; want no native range",
				fmtMembers([]sequence.Member{got}), ok)
		}
		checkMembers(t, st, "Attach without a native range", m.name, members("a", "b"))
		reserveModel(t, st, m, 3)
	})

	t.Run("attach_legacy", func(t *testing.T) {
		// A sequence without members (made by seqctl, or before members
		// were kept) gets its first; its own OWNED BY and defaults stay.
		defs := []sequence.ColumnDefault{{Table: "orders", Column: "id", Kind: sequence.DefaultNextval}}
		m := create(t, st, n.name("legacy"), sequence.Clauses{OwnedBy: ptr("owner/legacy"), Defaults: &defs})
		reserveModel(t, st, m, 2)
		attach(t, st, m, member("a"), m.spec)
		if info := describe(t, st, m); info.Spec.OwnedBy != "owner/legacy" || !slices.Equal(info.Spec.Defaults, defs) {
			t.Errorf("Attach to a sequence without members changed its own view: %q %v", info.Spec.OwnedBy, info.Spec.Defaults)
		}
		reserveModel(t, st, m, 2)
	})

	t.Run("attach_other_counter", func(t *testing.T) {
		m := createMembers(t, st, n.name("counter"), sequence.Clauses{MaxValue: sequence.Int64(1000)}, members("a"))
		reserveModel(t, st, m, 3)
		others := map[string]func(*sequence.Spec){
			"type":      func(s *sequence.Spec) { s.Type = sequence.Integer },
			"increment": func(s *sequence.Spec) { s.Increment = 2 },
			"min":       func(s *sequence.Spec) { s.Min = 0 },
			"max":       func(s *sequence.Spec) { s.Max = 999 },
			"cycle":     func(s *sequence.Spec) { s.Cycle = true },
		}
		for what, change := range others {
			counter := m.spec
			counter.Members = nil
			change(&counter)
			_, err := st.Attach(ctx, m.name, member("b"), counter)
			checkError(t, "Attach with another "+what, err, sequence.CounterError(m.name, m.spec, m.spec.Members))
			var e *sequence.Error
			if !errors.Is(err, sequence.ErrExists) || !errors.As(err, &e) || e.Code != sequence.CodeDuplicateTable {
				t.Errorf("Attach with another %s: %v, want ErrExists with SQLSTATE 42P07", what, err)
			}
			describe(t, st, m)
			checkMembers(t, st, "Attach with another "+what, m.name, members("a"))
		}
		reserveModel(t, st, m, 3)
	})

	t.Run("attach_invalid", func(t *testing.T) {
		m := createMembers(t, st, n.name("invalid"), sequence.Clauses{}, members("a"))
		_, err := st.Attach(ctx, m.name, sequence.Member{OwnedBy: "x"}, m.spec)
		if !errors.Is(err, sequence.ErrInvalid) {
			t.Errorf("Attach of a member without a database: %v, want ErrInvalid", err)
		}
		describe(t, st, m)
	})

	t.Run("attach_missing", func(t *testing.T) {
		name := n.name("missing")
		_, err := st.Attach(ctx, name, member("a"), sequence.DefaultSpec())
		checkError(t, "Attach(missing)", err, sequence.NotFoundError(name))
		_, err = st.Detach(ctx, name, db("a"))
		checkError(t, "Detach(missing)", err, sequence.NotFoundError(name))
	})

	t.Run("detach", func(t *testing.T) {
		v, ok := st.(sequence.Validator)
		if !ok {
			t.Fatalf("%T does not implement sequence.Validator", st)
		}
		m := createMembers(t, st, n.name("detach"), sequence.Clauses{}, members("a", "b"))
		reserveModel(t, st, m, 4)
		gen := describe(t, st, m).Gen

		// A database that is not a member changes nothing.
		before := describe(t, st, m)
		detach(t, st, m, db("c"), false)
		if after := describe(t, st, m); after.Version != before.Version {
			t.Errorf("Detach of a non-member: version %d -> %d", before.Version, after.Version)
		}
		detach(t, st, m, db("a"), false)
		if view, ok := describe(t, st, m).Spec.View(db("b")); !ok || view.OwnedBy != "owner/b" {
			t.Errorf("after Detach(a), b's view %q, %v", view.OwnedBy, ok)
		}
		reserveModel(t, st, m, 4)
		detach(t, st, m, db("b"), true)
		checkGone(t, st, "Detach of the last member", m.name)
		_, err := v.Gen(ctx, m.name)
		checkError(t, "Gen after Detach of the last member", err, sequence.NotFoundError(m.name))

		// Created again, it is another incarnation, as after Drop.
		m = createMembers(t, st, m.name, sequence.Clauses{Start: sequence.Int64(100)}, members("b"))
		if g := describe(t, st, m).Gen; g == 0 || g == gen {
			t.Errorf("Gen of %s created again after Detach = %d, was %d: want a new incarnation", m.name, g, gen)
		}
		reserveModel(t, st, m, 1)
	})

	t.Run("detach_legacy", func(t *testing.T) {
		// Every database sees a sequence without members: dropping it in
		// any drops it.
		m := create(t, st, n.name("detach_legacy"), sequence.Clauses{})
		reserveModel(t, st, m, 2)
		detach(t, st, m, db("a"), true)
		checkGone(t, st, "Detach of a sequence without members", m.name)
	})

	t.Run("kept", func(t *testing.T) {
		// b went back to native sequences: its range is kept as its view is.
		want := members("a", "b")
		want[1].Native = &sequence.NativeRange{First: 1000, Last: 1999}
		m := createMembers(t, st, n.name("kept"), sequence.Clauses{}, want)
		reserveModel(t, st, m, 10)
		checkMembers(t, st, "Reserve", m.name, want)
		if r, ok := st.(sequence.Releaser); ok {
			b, _ := reserveModel(t, st, m, 10)
			if ok, err := r.Release(ctx, m.name, b.Tail(5)); err != nil || !ok {
				t.Fatalf("Release: %v, %v", ok, err)
			}
			m.pos, _ = m.spec.Release(m.pos, b.Tail(5))
			checkMembers(t, st, "Release", m.name, want)
		}
		info, err := st.SetVal(ctx, m.name, 50, true)
		if err != nil {
			t.Fatalf("SetVal: %v", err)
		}
		m.pos = sequence.Position{Last: 50, Called: true}
		if !sameMembersAs(info.Spec.Members, want) {
			t.Errorf("SetVal returned members %s", fmtMembers(info.Spec.Members))
		}
		checkMembers(t, st, "SetVal", m.name, want)
		defs := []sequence.ColumnDefault{{Table: "x", Column: "y"}}
		for _, c := range []sequence.Clauses{
			{Increment: sequence.Int64(2)},
			{OwnedBy: ptr("owner/own"), Defaults: &defs},
			{Restart: true},
		} {
			spec, pos, err := c.Alter(m.spec, m.pos)
			if err != nil {
				t.Fatal(err)
			}
			info, err := st.Alter(ctx, m.name, c)
			if err != nil {
				t.Fatalf("Alter: %v", err)
			}
			m.spec, m.pos = spec, pos
			if !info.Spec.Equal(m.spec) || !sameMembersAs(info.Spec.Members, want) {
				t.Errorf("Alter returned members %s", fmtMembers(info.Spec.Members))
			}
			describe(t, st, m)
			checkMembers(t, st, "Alter", m.name, want)
		}
		newName := n.name("kept_renamed")
		if err := st.Rename(ctx, m.name, newName); err != nil {
			t.Fatalf("Rename: %v", err)
		}
		m.name = newName
		describe(t, st, m)
		checkMembers(t, st, "Rename", m.name, want)
		reserveModel(t, st, m, 1)
		if err := st.Drop(ctx, m.name); err != nil {
			t.Fatalf("Drop: %v", err)
		}
		checkGone(t, st, "Drop of a sequence with members", m.name)
	})
}

// testConcurrentMembers races databases attaching and detaching on one
// sequence, with a reservation running: no membership is ever lost, no
// value handed out twice, and the sequence goes exactly when its last
// member does.
func testConcurrentMembers(t *testing.T, st sequence.Store, n namer) {
	const dbs = 8
	ctx := t.Context()
	name := func(prefix string, i int) string { return fmt.Sprintf("%s%02d", prefix, i) }

	// run starts every fn at once and collects their errors.
	run := func(fns ...func() error) {
		t.Helper()
		var wg sync.WaitGroup
		start := make(chan struct{})
		errs := make(chan error, len(fns))
		for _, fn := range fns {
			wg.Go(func() {
				<-start
				if err := fn(); err != nil {
					errs <- err
				}
			})
		}
		close(start)
		wg.Wait()
		close(errs)
		for err := range errs {
			t.Error(err)
		}
		if t.Failed() {
			t.FailNow()
		}
	}

	m := createMembers(t, st, n.name("s"), sequence.Clauses{}, members("base"))
	var (
		mu     sync.Mutex
		blocks []sequence.Block
	)
	reserve := func() error {
		for range 20 {
			b, err := st.Reserve(ctx, m.name, 3)
			if err != nil {
				return fmt.Errorf("reserving while databases attach: %w", err)
			}
			mu.Lock()
			blocks = append(blocks, b)
			mu.Unlock()
		}
		return nil
	}

	// Every database attaches at once, while values are drawn.
	want := members("base")
	fns := []func() error{reserve}
	for i := range dbs {
		x := member(name("first", i))
		want = sequence.WithMember(want, x)
		fns = append(fns, func() error {
			_, err := st.Attach(ctx, m.name, x, m.spec)
			return err
		})
	}
	run(fns...)
	checkMembers(t, st, "concurrent Attach", m.name, want)
	checkExact(t, blocks, 1, int64(len(blocks))*3)

	// Half of them leave as others arrive.
	fns = []func() error{reserve}
	for i := range dbs {
		leaving, x := db(name("first", i)), member(name("second", i))
		if i%2 == 0 {
			want = sequence.WithoutMember(want, leaving)
			fns = append(fns, func() error {
				if dropped, err := st.Detach(ctx, m.name, leaving); err != nil || dropped {
					return fmt.Errorf("Detach(%s) = %v, %v; want false, nil: others are members", leaving, dropped, err)
				}
				return nil
			})
		}
		want = sequence.WithMember(want, x)
		fns = append(fns, func() error {
			_, err := st.Attach(ctx, m.name, x, m.spec)
			return err
		})
	}
	run(fns...)
	checkMembers(t, st, "concurrent Detach and Attach", m.name, want)
	checkExact(t, blocks, 1, int64(len(blocks))*3)
	m.spec.Members = want
	m.pos = sequence.Position{Last: int64(len(blocks)) * 3, Called: true}
	describe(t, st, m)

	// Everyone leaves at once: exactly one Detach, the last, drops it.
	var drops atomic.Int64
	fns = nil
	for _, x := range want {
		fns = append(fns, func() error {
			dropped, err := st.Detach(ctx, m.name, x.DB)
			if err != nil {
				return fmt.Errorf("Detach(%s): %w", x.DB, err)
			}
			if dropped {
				drops.Add(1)
			}
			return nil
		})
	}
	run(fns...)
	if count := drops.Load(); count != 1 {
		t.Errorf("%d of %d concurrent Detach calls dropped the sequence, want exactly 1 (the last)", count, len(want))
	}
	checkGone(t, st, "every member detached", m.name)

	// The last member leaving as a new one arrives: either the arrival came
	// first and the sequence stays with it, or the sequence went first and
	// the arrival finds nothing. Never both, never neither.
	for round := range 8 {
		s := createMembers(t, st, n.name(name("race", round)), sequence.Clauses{}, members("last"))
		var (
			dropped   bool
			detachErr error
			attachErr error
		)
		run(
			func() error { dropped, detachErr = st.Detach(ctx, s.name, db("last")); return nil },
			func() error { _, attachErr = st.Attach(ctx, s.name, member("new"), s.spec); return nil },
		)
		if detachErr != nil {
			t.Fatalf("round %d: Detach(last): %v", round, detachErr)
		}
		switch {
		case !dropped && attachErr == nil:
			checkMembers(t, st, fmt.Sprintf("round %d: Attach first", round), s.name, members("new"))
		case dropped && errors.Is(attachErr, sequence.ErrNotFound):
			checkGone(t, st, fmt.Sprintf("round %d: Detach first", round), s.name)
		default:
			t.Fatalf("round %d: Detach(last) dropped = %v and Attach(new) = %v: a member lost or a sequence kept for none",
				round, dropped, attachErr)
		}
	}
}
