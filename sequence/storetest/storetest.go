package storetest

import (
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"math"
	"slices"
	"sort"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/seqshim/seqshim/seqcache"
	"github.com/seqshim/seqshim/sequence"
)

// Run runs the store contract, but for daily limits ([RunBudget]), against
// the stores open returns, each part a subtest. open is called once per
// subtest; it may return a fresh store or one shared by every subtest (see
// the package documentation).
func Run(t *testing.T, open func(t *testing.T) sequence.Store) {
	t.Helper()
	n := newNamer(t)
	tests := []struct {
		name string
		fn   func(t *testing.T, st sequence.Store, n namer)
	}{
		{"Create", testCreate},
		{"Describe", testDescribe},
		{"List", testList},
		{"Reserve", testReserve},
		{"ReserveNotFound", testReserveNotFound},
		{"SetVal", testSetVal},
		{"Alter", testAlter},
		{"Rename", testRename},
		{"OwnedBy", testOwnedBy},
		{"Defaults", testDefaults},
		{"Policy", testPolicy},
		{"Members", testMembers},
		{"Drop", testDrop},
		{"Gen", testGen},
		{"Release", testRelease},
		{"Counters", testCounters},
		{"Names", testNames},
		{"Concurrent", testConcurrent},
		{"ConcurrentLimit", testConcurrentLimit},
		{"ConcurrentCaches", testConcurrentCaches},
		{"ConcurrentMembers", testConcurrentMembers},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			tt.fn(t, open(t), n.sub(tt.name))
		})
	}
}

// namer makes sequence names unique to one Run call, so stores shared
// between subtests, test runs or packages never see a name twice.
type namer struct{ prefix string }

func newNamer(t *testing.T) namer {
	var b [4]byte
	if _, err := rand.Read(b[:]); err != nil {
		t.Fatal(err)
	}
	return namer{prefix: "st" + hex.EncodeToString(b[:])}
}

func (n namer) sub(test string) namer {
	return namer{prefix: n.prefix + "_" + strings.ToLower(test)}
}

// rel returns an unquoted relation name for this test; base may be empty.
func (n namer) rel(base string) string {
	if base == "" {
		return n.prefix
	}
	return n.prefix + "_" + base
}

// name returns the canonical name of relation base in schema public.
func (n namer) name(base string) string {
	return sequence.FormatName(sequence.DefaultSchema, n.rel(base))
}

// model is what the test knows a stored sequence must be: every expectation
// comes from the sequence model's arithmetic applied to it.
type model struct {
	name string
	spec sequence.Spec
	pos  sequence.Position
}

func (m *model) reserve(n int64) (sequence.Block, error) {
	b, pos, err := m.spec.Reserve(m.name, m.pos, n)
	if err == nil {
		m.pos = pos
	}
	return b, err
}

// create creates name from CREATE SEQUENCE clauses and returns its model.
func create(t *testing.T, st sequence.Store, name string, c sequence.Clauses) *model {
	t.Helper()
	spec, pos, err := c.Create()
	if err != nil {
		t.Fatalf("bad test clauses: %v", err)
	}
	if err := st.Create(t.Context(), name, spec, pos); err != nil {
		t.Fatalf("Create(%s): %v", name, err)
	}
	return &model{name: name, spec: spec, pos: pos}
}

// reserveModel reserves n values of m.name in st and checks the block (or
// error) against the model.
func reserveModel(t *testing.T, st sequence.Store, m *model, n int64) (sequence.Block, error) {
	t.Helper()
	want, wantErr := m.reserve(n)
	got, err := st.Reserve(t.Context(), m.name, n)
	if wantErr != nil {
		checkError(t, fmt.Sprintf("Reserve(%s, %d)", m.name, n), err, wantErr)
		return got, err
	}
	if err != nil {
		t.Fatalf("Reserve(%s, %d): %v, want %+v", m.name, n, err, want)
	}
	if !sameValues(got, want) {
		t.Fatalf("Reserve(%s, %d) = %+v, want %+v", m.name, n, got, want)
	}
	return got, nil
}

// sameValues reports whether two blocks hold the same values, whatever
// incarnation (Block.Gen) they say they come from.
func sameValues(a, b sequence.Block) bool {
	return a.First == b.First && a.Step == b.Step && a.Count == b.Count
}

// checkError checks that err is a *sequence.Error equal to want (kind,
// SQLSTATE and message).
func checkError(t *testing.T, op string, err, want error) {
	t.Helper()
	var w *sequence.Error
	if !errors.As(want, &w) {
		t.Fatalf("bad test: %v is not a *sequence.Error", want)
	}
	if err == nil {
		t.Fatalf("%s: no error, want %q", op, w.Message)
	}
	var e *sequence.Error
	if !errors.As(err, &e) {
		t.Fatalf("%s: error %v (%T) is not a *sequence.Error", op, err, err)
	}
	if !errors.Is(err, w.Kind) {
		t.Errorf("%s: errors.Is(%v, %v) = false", op, err, w.Kind)
	}
	if e.Code != w.Code || e.Message != w.Message {
		t.Errorf("%s: error %s %q, want %s %q", op, e.Code, e.Message, w.Code, w.Message)
	}
}

// describe returns Describe(name) and checks it against the model.
func describe(t *testing.T, st sequence.Store, m *model) sequence.Info {
	t.Helper()
	info, err := st.Describe(t.Context(), m.name)
	if err != nil {
		t.Fatalf("Describe(%s): %v", m.name, err)
	}
	if info.Name != m.name || !info.Spec.Equal(m.spec) || info.Position != m.pos {
		t.Fatalf("Describe(%s) = name %s spec {%v} pos %+v, want name %s spec {%v} pos %+v",
			m.name, info.Name, info.Spec, info.Position, m.name, m.spec, m.pos)
	}
	return info
}

func testCreate(t *testing.T, st sequence.Store, n namer) {
	ctx := t.Context()
	name := n.name("s")
	m := create(t, st, name, sequence.Clauses{MaxValue: sequence.Int64(10)})

	// A second CREATE fails with PostgreSQL's error and changes nothing.
	other := sequence.DefaultSpec()
	err := st.Create(ctx, name, other, other.Initial())
	checkError(t, "second Create", err, sequence.ExistsError(name))
	if !errors.Is(err, sequence.ErrExists) {
		t.Errorf("second Create: errors.Is(err, ErrExists) = false")
	}
	if want := `relation "` + n.rel("s") + `" already exists`; err.Error() != want {
		t.Errorf("second Create: %q, want %q", err, want)
	}
	describe(t, st, m)

	// Create at a given position (seqctl import): the next value follows it.
	for _, called := range []bool{true, false} {
		name := n.name(fmt.Sprintf("at_%v", called))
		spec := sequence.DefaultSpec()
		pos := sequence.Position{Last: 7, Called: called}
		if err := st.Create(ctx, name, spec, pos); err != nil {
			t.Fatal(err)
		}
		m := &model{name: name, spec: spec, pos: pos}
		describe(t, st, m)
		b, _ := reserveModel(t, st, m, 2)
		if want := map[bool]int64{true: 8, false: 7}[called]; b.First != want {
			t.Errorf("called=%v: first value %d, want %d", called, b.First, want)
		}
	}
}

func testDescribe(t *testing.T, st sequence.Store, n namer) {
	m := create(t, st, n.name("d"), sequence.Clauses{
		Type: sequence.TypeOf(sequence.Integer), Increment: sequence.Int64(-3),
		MinValue: sequence.Int64(-100), MaxValue: sequence.Int64(100), Start: sequence.Int64(50),
		Cache: sequence.Int64(20), Cycle: sequence.Bool(true),
	})
	info := describe(t, st, m)
	if info.Reservations != 0 || info.ValuesReserved != 0 || !info.LastReserved.IsZero() {
		t.Errorf("new sequence counters = %d, %d, %v; want zero", info.Reservations, info.ValuesReserved, info.LastReserved)
	}
	reserveModel(t, st, m, 4)
	describe(t, st, m)

	_, err := st.Describe(t.Context(), n.name("missing"))
	checkError(t, "Describe(missing)", err, sequence.NotFoundError(n.name("missing")))
}

func testList(t *testing.T, st sequence.Store, n namer) {
	ctx := t.Context()
	// Created out of order; List must return them by name.
	bases := []string{"c", "a", "b"}
	models := map[string]*model{}
	for i, b := range bases {
		m := create(t, st, n.name(b), sequence.Clauses{Start: sequence.Int64(int64(10 * (i + 1)))})
		reserveModel(t, st, m, int64(i+1))
		models[m.name] = m
	}
	infos, err := st.List(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if !sort.SliceIsSorted(infos, func(i, j int) bool { return infos[i].Name < infos[j].Name }) {
		t.Errorf("List not ordered by name")
	}
	var got []string
	for _, info := range infos {
		m, ok := models[info.Name]
		if !ok {
			continue
		}
		got = append(got, info.Name)
		if !info.Spec.Equal(m.spec) || info.Position != m.pos {
			t.Errorf("List: %s spec {%v} pos %+v, want {%v} %+v", info.Name, info.Spec, info.Position, m.spec, m.pos)
		}
		if info.Reservations != 1 || info.ValuesReserved == 0 {
			t.Errorf("List: %s counters %d, %d; want 1 reservation", info.Name, info.Reservations, info.ValuesReserved)
		}
	}
	want := []string{n.name("a"), n.name("b"), n.name("c")}
	if fmt.Sprint(got) != fmt.Sprint(want) {
		t.Errorf("List names = %v, want %v", got, want)
	}
}

// reserveCase is a sequence created with c, then Reserve called with each of
// ns; want are the blocks PostgreSQL 15's nextval gives for the same calls.
// limit says the call after the last fails with the min/max error.
type reserveCase struct {
	name  string
	c     sequence.Clauses
	ns    []int64
	want  []sequence.Block
	limit bool
}

func reserveCases() []reserveCase {
	i64 := sequence.Int64
	blk := func(first, step, count int64) sequence.Block {
		return sequence.Block{First: first, Step: step, Count: count}
	}
	return []reserveCase{
		{name: "default", ns: []int64{1, 3, 10}, want: []sequence.Block{blk(1, 1, 1), blk(2, 1, 3), blk(5, 1, 10)}},
		{name: "increment5", c: sequence.Clauses{Increment: i64(5), Start: i64(10)},
			ns: []int64{2, 3}, want: []sequence.Block{blk(10, 5, 2), blk(20, 5, 3)}},
		{name: "descending", c: sequence.Clauses{Increment: i64(-1)},
			ns: []int64{3, 2}, want: []sequence.Block{blk(-1, -1, 3), blk(-4, -1, 2)}},
		{name: "descending_to_min", c: sequence.Clauses{Increment: i64(-3), MinValue: i64(-10), MaxValue: i64(0)},
			ns: []int64{3, 5}, want: []sequence.Block{blk(0, -3, 3), blk(-9, -3, 1)}, limit: true},
		{name: "truncated_at_max", c: sequence.Clauses{MaxValue: i64(10)},
			ns: []int64{4, 4, 4}, want: []sequence.Block{blk(1, 1, 4), blk(5, 1, 4), blk(9, 1, 2)}, limit: true},
		{name: "step3_to_max", c: sequence.Clauses{Increment: i64(3), MaxValue: i64(10)},
			ns: []int64{10}, want: []sequence.Block{blk(1, 3, 4)}, limit: true},
		{name: "cycle_up", c: sequence.Clauses{MaxValue: i64(5), Cycle: sequence.Bool(true)},
			ns: []int64{3, 3, 3}, want: []sequence.Block{blk(1, 1, 3), blk(4, 1, 2), blk(1, 1, 3)}},
		{name: "cycle_down", c: sequence.Clauses{Increment: i64(-2), MinValue: i64(1), MaxValue: i64(9), Cycle: sequence.Bool(true)},
			ns: []int64{4, 4, 4}, want: []sequence.Block{blk(9, -2, 4), blk(1, -2, 1), blk(9, -2, 4)}},
		{name: "cycle_to_min_not_start", c: sequence.Clauses{MinValue: i64(3), MaxValue: i64(5), Start: i64(4), Cycle: sequence.Bool(true)},
			ns: []int64{5, 5}, want: []sequence.Block{blk(4, 1, 2), blk(3, 1, 3)}},
		{name: "smallint_max", c: sequence.Clauses{Type: sequence.TypeOf(sequence.Smallint), Start: i64(32765)},
			ns: []int64{100}, want: []sequence.Block{blk(32765, 1, 3)}, limit: true},
		{name: "smallint_descending", c: sequence.Clauses{Type: sequence.TypeOf(sequence.Smallint), Increment: i64(-1), Start: i64(-32766)},
			ns: []int64{5}, want: []sequence.Block{blk(-32766, -1, 3)}, limit: true},
		{name: "bigint_max", c: sequence.Clauses{Start: i64(math.MaxInt64 - 2)},
			ns: []int64{10}, want: []sequence.Block{blk(math.MaxInt64-2, 1, 3)}, limit: true},
		{name: "bigint_min", c: sequence.Clauses{Increment: i64(-1), MinValue: i64(math.MinInt64), Start: i64(math.MinInt64 + 2)},
			ns: []int64{10}, want: []sequence.Block{blk(math.MinInt64+2, -1, 3)}, limit: true},
		{name: "huge_increment", c: sequence.Clauses{Increment: i64(1 << 62)},
			ns: []int64{5}, want: []sequence.Block{blk(1, 1<<62, 2)}, limit: true},
		{name: "cycle_at_int64_max", c: sequence.Clauses{Start: i64(math.MaxInt64 - 1), Cycle: sequence.Bool(true)},
			ns: []int64{5, 2}, want: []sequence.Block{blk(math.MaxInt64-1, 1, 2), blk(1, 1, 2)}},
		{name: "large_block", ns: []int64{1 << 40, 1}, want: []sequence.Block{blk(1, 1, 1<<40), blk(1<<40+1, 1, 1)}},
	}
}

func testReserve(t *testing.T, st sequence.Store, n namer) {
	for _, tc := range reserveCases() {
		t.Run(tc.name, func(t *testing.T) {
			m := create(t, st, n.name(tc.name), tc.c)
			for i, k := range tc.ns {
				b, _ := reserveModel(t, st, m, k)
				if !sameValues(b, tc.want[i]) {
					t.Fatalf("Reserve #%d (%d) = %+v, PostgreSQL gives %+v", i+1, k, b, tc.want[i])
				}
			}
			if !tc.limit {
				return
			}
			before := m.pos
			_, err := reserveModel(t, st, m, 1)
			if !errors.Is(err, sequence.ErrLimit) {
				t.Fatalf("Reserve past the bound: %v, want ErrLimit", err)
			}
			word, bound := "maximum", m.spec.Max
			if m.spec.Descending() {
				word, bound = "minimum", m.spec.Min
			}
			want := fmt.Sprintf(`nextval: reached %s value of sequence "%s" (%d)`, word, n.rel(tc.name), bound)
			if err.Error() != want {
				t.Errorf("limit error %q, want %q", err, want)
			}
			// A failed nextval moves nothing, and fails again.
			if m.pos != before {
				t.Fatalf("model moved on error")
			}
			describe(t, st, m)
			reserveModel(t, st, m, 3)
		})
	}
}

func testReserveNotFound(t *testing.T, st sequence.Store, n namer) {
	for _, name := range []string{n.name("missing"), sequence.FormatName("app", n.rel("missing"))} {
		_, err := st.Reserve(t.Context(), name, 10)
		checkError(t, "Reserve(missing)", err, sequence.NotFoundError(name))
	}
	// PostgreSQL names a missing relation with its schema if one was given.
	_, err := st.Reserve(t.Context(), sequence.FormatName("app", n.rel("x")), 1)
	if want := `relation "app.` + n.rel("x") + `" does not exist`; err == nil || err.Error() != want {
		t.Errorf("Reserve(app.x) error %v, want %q", err, want)
	}
}

func testSetVal(t *testing.T, st sequence.Store, n namer) {
	ctx := t.Context()
	tests := []struct {
		name     string
		c        sequence.Clauses
		value    int64
		isCalled bool
		next     int64 // first value of the next Reserve, as PostgreSQL's nextval; 0: limit error
	}{
		{name: "called", value: 42, isCalled: true, next: 43},
		{name: "not_called", value: 42, isCalled: false, next: 42},
		{name: "at_max", c: sequence.Clauses{MaxValue: sequence.Int64(50)}, value: 50, isCalled: true},
		{name: "at_max_not_called", c: sequence.Clauses{MaxValue: sequence.Int64(50)}, value: 50, next: 50},
		{name: "at_max_cycle", c: sequence.Clauses{MaxValue: sequence.Int64(50), Cycle: sequence.Bool(true)}, value: 50, isCalled: true, next: 1},
		{name: "descending", c: sequence.Clauses{Increment: sequence.Int64(-5)}, value: -42, isCalled: true, next: -47},
		{name: "backwards", value: 2, isCalled: true, next: 3},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			m := create(t, st, n.name(tc.name), tc.c)
			reserveModel(t, st, m, 5)
			before := describe(t, st, m)
			info, err := st.SetVal(ctx, m.name, tc.value, tc.isCalled)
			if err != nil {
				t.Fatalf("SetVal: %v", err)
			}
			pos, err := m.spec.SetVal(m.name, tc.value, tc.isCalled)
			if err != nil {
				t.Fatal(err)
			}
			m.pos = pos
			if info.Name != m.name || !info.Spec.Equal(m.spec) || info.Position != m.pos {
				t.Errorf("SetVal returned %+v, want spec {%v} pos %+v", info, m.spec, m.pos)
			}
			if info.Version <= before.Version {
				t.Errorf("SetVal: version %d, was %d; want it bumped", info.Version, before.Version)
			}
			describe(t, st, m)
			b, err := reserveModel(t, st, m, 3)
			if tc.next == 0 {
				if !errors.Is(err, sequence.ErrLimit) {
					t.Errorf("Reserve after setval: %v, want ErrLimit", err)
				}
			} else if b.First != tc.next {
				t.Errorf("Reserve after setval: first %d, PostgreSQL gives %d", b.First, tc.next)
			}
		})
	}

	t.Run("out_of_bounds", func(t *testing.T) {
		m := create(t, st, n.name("oob"), sequence.Clauses{})
		reserveModel(t, st, m, 2)
		for _, v := range []int64{0, -1, math.MinInt64} {
			_, err := st.SetVal(ctx, m.name, v, true)
			_, want := m.spec.SetVal(m.name, v, true)
			checkError(t, fmt.Sprintf("SetVal(%d)", v), err, want)
			if !errors.Is(err, sequence.ErrInvalid) {
				t.Errorf("SetVal(%d): errors.Is(err, ErrInvalid) = false", v)
			}
		}
		_, err := st.SetVal(ctx, m.name, 0, false)
		wantMsg := `setval: value 0 is out of bounds for sequence "` + n.rel("oob") + `" (1..9223372036854775807)`
		if err == nil || err.Error() != wantMsg {
			t.Errorf("SetVal(0) error %v, want %q", err, wantMsg)
		}
		var e *sequence.Error
		if !errors.As(err, &e) || e.Code != "22003" {
			t.Errorf("SetVal(0) error code: %v, want 22003", err)
		}
		describe(t, st, m)
		reserveModel(t, st, m, 1)
	})

	t.Run("not_found", func(t *testing.T) {
		_, err := st.SetVal(ctx, n.name("missing"), 5, true)
		checkError(t, "SetVal(missing)", err, sequence.NotFoundError(n.name("missing")))
	})
}

func testAlter(t *testing.T, st sequence.Store, n namer) {
	ctx := t.Context()
	i64 := sequence.Int64
	tests := []struct {
		name    string
		c       sequence.Clauses // CREATE
		setval  int64            // if not 0, setval(s, setval) after the first Reserve
		alter   sequence.Clauses
		wantErr string // PostgreSQL's error for the ALTER, if any
		next    int64  // first value of the Reserve after the ALTER, as PostgreSQL's nextval
	}{
		{name: "restart", alter: sequence.Clauses{Restart: true}, next: 1},
		{name: "restart_with", alter: sequence.Clauses{RestartAt: i64(100)}, next: 100},
		{name: "restart_start", c: sequence.Clauses{Start: i64(20)}, alter: sequence.Clauses{Start: i64(7), Restart: true}, next: 7},
		{name: "start_only", alter: sequence.Clauses{Start: i64(7)}, next: 6},
		{name: "increment", alter: sequence.Clauses{Increment: i64(10)}, next: 15},
		{name: "increment_negative", alter: sequence.Clauses{Increment: i64(-2)}, next: 3},
		{name: "type_smallint", alter: sequence.Clauses{Type: sequence.TypeOf(sequence.Smallint)}, next: 6},
		{name: "type_too_small", setval: 40000, alter: sequence.Clauses{Type: sequence.TypeOf(sequence.Smallint)},
			wantErr: "RESTART value (40000) cannot be greater than MAXVALUE (32767)", next: 40001},
		{name: "max_below_current", alter: sequence.Clauses{MaxValue: i64(3)},
			wantErr: "RESTART value (5) cannot be greater than MAXVALUE (3)", next: 6},
		{name: "restart_below_min", alter: sequence.Clauses{RestartAt: i64(0)},
			wantErr: "RESTART value (0) cannot be less than MINVALUE (1)", next: 6},
		{name: "increment_zero", alter: sequence.Clauses{Increment: i64(0)},
			wantErr: "INCREMENT must not be zero", next: 6},
		{name: "cycle_on", c: sequence.Clauses{MaxValue: i64(5)}, alter: sequence.Clauses{Cycle: sequence.Bool(true)}, next: 1},
		{name: "max_raised", c: sequence.Clauses{MaxValue: i64(5)}, alter: sequence.Clauses{NoMaxValue: true}, next: 6},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			m := create(t, st, n.name(tc.name), tc.c)
			reserveModel(t, st, m, 5)
			if tc.setval != 0 {
				if _, err := st.SetVal(ctx, m.name, tc.setval, true); err != nil {
					t.Fatal(err)
				}
				m.pos = sequence.Position{Last: tc.setval, Called: true}
			}
			before := describe(t, st, m)
			spec, pos, wantErr := tc.alter.Alter(m.spec, m.pos)
			info, err := st.Alter(ctx, m.name, tc.alter)
			if wantErr != nil {
				checkError(t, "Alter", err, wantErr)
				if err.Error() != tc.wantErr {
					t.Errorf("Alter error %q, PostgreSQL says %q", err, tc.wantErr)
				}
				describe(t, st, m) // unchanged
			} else {
				if tc.wantErr != "" {
					t.Fatalf("bad test: the sequence model accepts the ALTER PostgreSQL rejects with %q", tc.wantErr)
				}
				if err != nil {
					t.Fatalf("Alter: %v", err)
				}
				m.spec, m.pos = spec, pos
				if info.Name != m.name || !info.Spec.Equal(m.spec) || info.Position != m.pos {
					t.Errorf("Alter returned %+v, want spec {%v} pos %+v", info, m.spec, m.pos)
				}
				if info.Version <= before.Version {
					t.Errorf("Alter: version %d, was %d; want it bumped", info.Version, before.Version)
				}
				describe(t, st, m)
			}
			// The change takes effect at the next reservation.
			b, _ := reserveModel(t, st, m, 2)
			if b.First != tc.next {
				t.Errorf("Reserve after ALTER: first %d, PostgreSQL gives %d", b.First, tc.next)
			}
		})
	}
	t.Run("not_found", func(t *testing.T) {
		_, err := st.Alter(ctx, n.name("missing"), sequence.Clauses{Restart: true})
		checkError(t, "Alter(missing)", err, sequence.NotFoundError(n.name("missing")))
	})
}

func testRename(t *testing.T, st sequence.Store, n namer) {
	ctx := t.Context()
	a, b, c := n.name("a"), n.name("b"), n.name("c")
	m := create(t, st, a, sequence.Clauses{Increment: sequence.Int64(2)})
	first, _ := reserveModel(t, st, m, 5)
	before := describe(t, st, m)

	if err := st.Rename(ctx, a, b); err != nil {
		t.Fatalf("Rename: %v", err)
	}
	_, err := st.Reserve(ctx, a, 1)
	checkError(t, "Reserve(old name)", err, sequence.NotFoundError(a))
	_, err = st.Describe(ctx, a)
	checkError(t, "Describe(old name)", err, sequence.NotFoundError(a))

	m.name = b
	info := describe(t, st, m)
	if info.Reservations != before.Reservations || info.ValuesReserved != before.ValuesReserved {
		t.Errorf("Rename lost counters: %+v, was %+v", info, before)
	}
	second, _ := reserveModel(t, st, m, 5)
	if second.First <= first.Last() {
		t.Errorf("after rename, values restart: %+v after %+v", second, first)
	}

	// The same rename repeated after it completed (a caller that lost the
	// answer and tries again) succeeds and changes nothing.
	if err := st.Rename(ctx, a, b); err != nil {
		t.Errorf("Rename repeated after it completed: %v, want success", err)
	}
	describe(t, st, m)
	checkError(t, "Reserve(old name) after a repeated rename", func() error { _, err := st.Reserve(ctx, a, 1); return err }(),
		sequence.NotFoundError(a))
	reserveModel(t, st, m, 1)

	// Rename onto an existing name, or of a missing one, changes nothing.
	mc := create(t, st, c, sequence.Clauses{})
	checkError(t, "Rename onto existing", st.Rename(ctx, b, c), sequence.ExistsError(c))
	checkError(t, "Rename missing", st.Rename(ctx, a, n.name("d")), sequence.NotFoundError(a))
	describe(t, st, m)
	describe(t, st, mc)
	if _, err := st.Describe(ctx, n.name("d")); !errors.Is(err, sequence.ErrNotFound) {
		t.Errorf("failed Rename created its target: %v", err)
	}

	// Only the rename that made a name counts: once b moves on to e, a
	// rename of a to b or to e is of a missing sequence again.
	e := n.name("e")
	if err := st.Rename(ctx, b, e); err != nil {
		t.Fatalf("Rename(b, e): %v", err)
	}
	checkError(t, "Rename to a name renamed since", st.Rename(ctx, a, b), sequence.NotFoundError(a))
	checkError(t, "Rename to a name renamed from another", st.Rename(ctx, a, e), sequence.NotFoundError(a))
	if err := st.Rename(ctx, e, b); err != nil {
		t.Fatalf("Rename(e, b): %v", err)
	}
	checkError(t, "Rename to a name renamed from another", st.Rename(ctx, a, b), sequence.NotFoundError(a))
	describe(t, st, m)

	// A name freed by a rename can be created afresh; the renamed sequence is
	// unaffected, and a rename of the new one onto it is refused.
	ma := create(t, st, a, sequence.Clauses{})
	reserveModel(t, st, ma, 1)
	reserveModel(t, st, m, 1)
	checkError(t, "Rename of a recreated name onto its old target", st.Rename(ctx, a, b), sequence.ExistsError(b))
	reserveModel(t, st, ma, 1)
}

// testOwnedBy checks that OWNED BY is kept: set by Create and Alter, kept by
// an Alter without it, by SetVal and by Rename, cleared by OWNED BY NONE.
func testOwnedBy(t *testing.T, st sequence.Store, n namer) {
	ctx := t.Context()
	a, b := n.name("a"), n.name("b")
	owner := func(name, want string) {
		t.Helper()
		info, err := st.Describe(ctx, name)
		if err != nil {
			t.Fatalf("Describe(%s): %v", name, err)
		}
		if info.Spec.OwnedBy != want {
			t.Errorf("%s: OwnedBy %q, want %q", name, info.Spec.OwnedBy, want)
		}
	}
	create(t, st, a, sequence.Clauses{OwnedBy: ptr("db/1/16384/1")})
	owner(a, "db/1/16384/1")
	if _, err := st.Alter(ctx, a, sequence.Clauses{Increment: sequence.Int64(3)}); err != nil {
		t.Fatalf("Alter: %v", err)
	}
	owner(a, "db/1/16384/1")
	if _, err := st.SetVal(ctx, a, 7, true); err != nil {
		t.Fatalf("SetVal: %v", err)
	}
	owner(a, "db/1/16384/1")
	if _, err := st.Alter(ctx, a, sequence.Clauses{OwnedBy: ptr("db/1/16390/2")}); err != nil {
		t.Fatalf("Alter OWNED BY: %v", err)
	}
	owner(a, "db/1/16390/2")
	if err := st.Rename(ctx, a, b); err != nil {
		t.Fatalf("Rename: %v", err)
	}
	owner(b, "db/1/16390/2")
	if _, err := st.Alter(ctx, b, sequence.Clauses{OwnedBy: ptr("")}); err != nil {
		t.Fatalf("Alter OWNED BY NONE: %v", err)
	}
	owner(b, "")
	list, err := st.List(ctx)
	if err != nil {
		t.Fatalf("List: %v", err)
	}
	for _, info := range list {
		if info.Name == b && info.Spec.OwnedBy != "" {
			t.Errorf("List: %s OwnedBy %q after OWNED BY NONE", b, info.Spec.OwnedBy)
		}
	}
}

// testDefaults checks that column defaults are kept: set by Create, returned
// by Describe, List and Alter, replaced by an Alter that gives them, kept by
// an Alter without them, by SetVal, Reserve and Rename, removed by an empty
// list.
func testDefaults(t *testing.T, st sequence.Store, n namer) {
	ctx := t.Context()
	a, b := n.name("a"), n.name("b")
	// Names as PostgreSQL spells them: schema-qualified, quoted mixed case,
	// and characters that need escaping in any text form a store may use.
	initial := []sequence.ColumnDefault{
		{Table: `"Orders"`, Column: "Id", Kind: sequence.IdentityAlways},
		{Table: "orders", Column: "id", Kind: sequence.DefaultNextval},
		{Table: "tenant_7.orders", Column: `we"ird, col`, Kind: sequence.IdentityByDefault},
	}
	replaced := []sequence.ColumnDefault{{Table: "invoices", Column: "no", Kind: sequence.IdentityByDefault}}
	none := []sequence.ColumnDefault{}

	m := create(t, st, a, sequence.Clauses{Defaults: &initial})
	if !slices.Equal(m.spec.Defaults, initial) {
		t.Fatalf("bad test: Create clauses made defaults %v", m.spec.Defaults)
	}
	check := func(step, name string, want []sequence.ColumnDefault) {
		t.Helper()
		info, err := st.Describe(ctx, name)
		if err != nil {
			t.Fatalf("%s: Describe(%s): %v", step, name, err)
		}
		if !sameDefaults(info.Spec.Defaults, want) {
			t.Errorf("%s: Describe(%s) defaults %s, want %s", step, name, fmtDefaults(info.Spec.Defaults), fmtDefaults(want))
		}
		infos, err := st.List(ctx)
		if err != nil {
			t.Fatalf("%s: List: %v", step, err)
		}
		found := false
		for _, info := range infos {
			if info.Name == name {
				found = true
				if !sameDefaults(info.Spec.Defaults, want) {
					t.Errorf("%s: List: %s defaults %s, want %s", step, name, fmtDefaults(info.Spec.Defaults), fmtDefaults(want))
				}
			}
		}
		if !found {
			t.Errorf("%s: List lacks %s", step, name)
		}
	}
	check("Create", a, initial)

	steps := []struct {
		name string
		do   func() (sequence.Info, error) // nil Info: the step returns none
		want []sequence.ColumnDefault
	}{
		{"Alter without defaults", func() (sequence.Info, error) {
			return st.Alter(ctx, a, sequence.Clauses{Increment: sequence.Int64(2), OwnedBy: ptr("db/1/2/3")})
		}, initial},
		{"Reserve", func() (sequence.Info, error) {
			_, err := st.Reserve(ctx, a, 5)
			return sequence.Info{}, err
		}, initial},
		{"SetVal", func() (sequence.Info, error) { return st.SetVal(ctx, a, 100, true) }, initial},
		{"Alter with defaults", func() (sequence.Info, error) {
			return st.Alter(ctx, a, sequence.Clauses{Defaults: &replaced})
		}, replaced},
		{"Alter RESTART without defaults", func() (sequence.Info, error) {
			return st.Alter(ctx, a, sequence.Clauses{Restart: true, OwnedBy: ptr("")})
		}, replaced},
		{"Alter with the same defaults", func() (sequence.Info, error) {
			return st.Alter(ctx, a, sequence.Clauses{Defaults: &replaced})
		}, replaced},
	}
	for _, s := range steps {
		info, err := s.do()
		if err != nil {
			t.Fatalf("%s: %v", s.name, err)
		}
		if info.Name != "" && !sameDefaults(info.Spec.Defaults, s.want) {
			t.Errorf("%s returned defaults %s, want %s", s.name, fmtDefaults(info.Spec.Defaults), fmtDefaults(s.want))
		}
		check(s.name, a, s.want)
	}

	if err := st.Rename(ctx, a, b); err != nil {
		t.Fatalf("Rename: %v", err)
	}
	check("Rename", b, replaced)

	info, err := st.Alter(ctx, b, sequence.Clauses{Defaults: &none})
	if err != nil {
		t.Fatalf("Alter with no defaults: %v", err)
	}
	if info.Spec.Defaults != nil {
		t.Errorf("Alter with no defaults returned %s, want nil", fmtDefaults(info.Spec.Defaults))
	}
	check("Alter with no defaults", b, nil)
	if _, err := st.Alter(ctx, b, sequence.Clauses{Defaults: &initial, OwnedBy: ptr("")}); err != nil {
		t.Fatalf("Alter adding defaults again: %v", err)
	}
	check("Alter adding defaults again", b, initial)
	if _, err := st.Alter(ctx, b, sequence.Clauses{Defaults: &none, OwnedBy: ptr("db/1/2/3")}); err != nil {
		t.Fatalf("Alter removing defaults, setting OWNED BY: %v", err)
	}
	check("Alter removing defaults, setting OWNED BY", b, nil)

	// A sequence created without defaults has none (nil, not empty).
	plain := create(t, st, n.name("plain"), sequence.Clauses{})
	check("Create without defaults", plain.name, nil)
}

// sameDefaults reports whether got is want, nil (none) only if want is nil:
// [sequence.Spec.Defaults] is nil when there are none.
func sameDefaults(got, want []sequence.ColumnDefault) bool {
	return (got == nil) == (want == nil) && slices.Equal(got, want)
}

func fmtDefaults(d []sequence.ColumnDefault) string {
	if d == nil {
		return "nil"
	}
	return fmt.Sprintf("%q", d)
}

func testDrop(t *testing.T, st sequence.Store, n namer) {
	ctx := t.Context()
	name := n.name("s")
	m := create(t, st, name, sequence.Clauses{})
	reserveModel(t, st, m, 10)
	if err := st.Drop(ctx, name); err != nil {
		t.Fatalf("Drop: %v", err)
	}
	// A dropped sequence never silently restarts at zero (or anywhere).
	_, err := st.Reserve(ctx, name, 1)
	checkError(t, "Reserve after Drop", err, sequence.NotFoundError(name))
	_, err = st.Describe(ctx, name)
	checkError(t, "Describe after Drop", err, sequence.NotFoundError(name))
	_, err = st.SetVal(ctx, name, 5, true)
	checkError(t, "SetVal after Drop", err, sequence.NotFoundError(name))
	checkError(t, "second Drop", st.Drop(ctx, name), sequence.NotFoundError(name))
	infos, err := st.List(ctx)
	if err != nil {
		t.Fatal(err)
	}
	for _, info := range infos {
		if info.Name == name {
			t.Errorf("List shows dropped %s", name)
		}
	}
	// Created again, it starts from its new START.
	m = create(t, st, name, sequence.Clauses{Start: sequence.Int64(100)})
	reserveModel(t, st, m, 1)
}

// testGen checks the incarnation of a sequence: set by Create (never 0),
// the same in Describe, List, the blocks Reserve returns and
// [sequence.Validator]'s Gen; kept by SetVal, Alter and Rename; different
// after Drop and Create; ErrNotFound for a dropped or renamed-away name.
func testGen(t *testing.T, st sequence.Store, n namer) {
	v, ok := st.(sequence.Validator)
	if !ok {
		t.Fatalf("%T does not implement sequence.Validator", st)
	}
	ctx := t.Context()
	a, b := n.name("a"), n.name("b")
	m := create(t, st, a, sequence.Clauses{})
	gen := func(name string) uint64 {
		t.Helper()
		g, err := v.Gen(ctx, name)
		if err != nil {
			t.Fatalf("Gen(%s): %v", name, err)
		}
		return g
	}
	g := gen(a)
	if g == 0 {
		t.Fatalf("Gen(%s) = 0 after Create, want an incarnation", a)
	}
	if info := describe(t, st, m); info.Gen != g {
		t.Errorf("Describe(%s).Gen = %d, Gen = %d", a, info.Gen, g)
	}
	if blk, _ := reserveModel(t, st, m, 3); blk.Gen != g {
		t.Errorf("Reserve(%s).Gen = %d, want %d", a, blk.Gen, g)
	}
	if info, err := st.SetVal(ctx, a, 10, true); err != nil || info.Gen != g || gen(a) != g {
		t.Errorf("SetVal: Gen %d (%v), want %d kept", info.Gen, err, g)
	}
	m.pos = sequence.Position{Last: 10, Called: true}
	if info, err := st.Alter(ctx, a, sequence.Clauses{Increment: sequence.Int64(2)}); err != nil || info.Gen != g || gen(a) != g {
		t.Errorf("Alter: Gen %d (%v), want %d kept", info.Gen, err, g)
	}
	if err := st.Rename(ctx, a, b); err != nil {
		t.Fatal(err)
	}
	if got := gen(b); got != g {
		t.Errorf("Gen after Rename = %d, want %d kept", got, g)
	}
	_, err := v.Gen(ctx, a)
	checkError(t, "Gen(old name)", err, sequence.NotFoundError(a))
	infos, err := st.List(ctx)
	if err != nil {
		t.Fatal(err)
	}
	for _, info := range infos {
		if info.Name == b && info.Gen != g {
			t.Errorf("List: Gen of %s = %d, want %d", b, info.Gen, g)
		}
	}

	if err := st.Drop(ctx, b); err != nil {
		t.Fatal(err)
	}
	_, err = v.Gen(ctx, b)
	checkError(t, "Gen after Drop", err, sequence.NotFoundError(b))
	m = create(t, st, b, sequence.Clauses{})
	g2 := gen(b)
	if g2 == 0 || g2 == g {
		t.Errorf("Gen of %s created again = %d, was %d: want a new incarnation", b, g2, g)
	}
	if blk, _ := reserveModel(t, st, m, 1); blk.Gen != g2 {
		t.Errorf("Reserve after Drop and Create: Gen %d, want %d", blk.Gen, g2)
	}
	if got, err := sequence.ReadGen(ctx, st, b); err != nil || got != g2 {
		t.Errorf("sequence.ReadGen = %d, %v; want %d", got, err, g2)
	}
}

func testRelease(t *testing.T, st sequence.Store, n namer) {
	r, ok := st.(sequence.Releaser)
	if !ok {
		t.Skipf("%T does not implement sequence.Releaser", st)
	}
	ctx := t.Context()
	release := func(t *testing.T, m *model, unused sequence.Block, want bool) {
		t.Helper()
		ok, err := r.Release(ctx, m.name, unused)
		if err != nil {
			t.Fatalf("Release(%+v): %v", unused, err)
		}
		if ok != want {
			t.Fatalf("Release(%+v) = %v, want %v", unused, ok, want)
		}
		if pos, allowed := m.spec.Release(m.pos, unused); allowed != want {
			t.Fatalf("bad test: the sequence model says Release(%+v) at %+v is %v", unused, m.pos, allowed)
		} else {
			m.pos = pos
		}
		describe(t, st, m)
	}

	t.Run("accepted", func(t *testing.T) {
		m := create(t, st, n.name("acc"), sequence.Clauses{Increment: sequence.Int64(3)})
		b, _ := reserveModel(t, st, m, 10)
		release(t, m, b.Tail(4), true)
		got, _ := reserveModel(t, st, m, 10)
		if got.First != b.Value(4) {
			t.Errorf("after release, next block %+v; want it to start at %d", got, b.Value(4))
		}
	})
	t.Run("refused_after_reservation", func(t *testing.T) {
		m := create(t, st, n.name("ref"), sequence.Clauses{})
		b, _ := reserveModel(t, st, m, 10)
		reserveModel(t, st, m, 10) // someone else reserved after b
		release(t, m, b.Tail(5), false)
		got, _ := reserveModel(t, st, m, 1)
		if got.First != 21 {
			t.Errorf("after refused release, next value %d, want 21", got.First)
		}
	})
	t.Run("chained", func(t *testing.T) {
		// A cache closing with an active block (tail 6..10) and a standby
		// block (11..20) hands back the standby first, then the tail.
		m := create(t, st, n.name("chain"), sequence.Clauses{})
		active, _ := reserveModel(t, st, m, 10)
		standby, _ := reserveModel(t, st, m, 10)
		release(t, m, standby, true)
		release(t, m, active.Tail(5), true)
		got, _ := reserveModel(t, st, m, 100)
		if got.First != 6 {
			t.Errorf("after chained release, next block %+v, want it to start at 6", got)
		}
	})
	t.Run("refused_wrong_tail", func(t *testing.T) {
		m := create(t, st, n.name("wrong"), sequence.Clauses{})
		b, _ := reserveModel(t, st, m, 10)
		// Not the end of the last block, a different step, an empty block.
		release(t, m, sequence.Block{First: 3, Step: 1, Count: 3}, false)
		release(t, m, sequence.Block{First: b.Value(5), Step: 2, Count: 3}, false)
		release(t, m, sequence.Block{Step: 1}, false)
		reserveModel(t, st, m, 1)
	})
	t.Run("refused_after_setval", func(t *testing.T) {
		m := create(t, st, n.name("setval"), sequence.Clauses{})
		b, _ := reserveModel(t, st, m, 10)
		if _, err := st.SetVal(ctx, m.name, 100, true); err != nil {
			t.Fatal(err)
		}
		m.pos = sequence.Position{Last: 100, Called: true}
		release(t, m, b.Tail(5), false)
	})
	t.Run("refused_other_incarnation", func(t *testing.T) {
		// A process holding a block of a sequence dropped and created again
		// (and drawn to the same position) must not hand it back to the new
		// one, whose values it would then give out twice.
		m := create(t, st, n.name("incarnation"), sequence.Clauses{})
		old, _ := reserveModel(t, st, m, 10)
		if err := st.Drop(ctx, m.name); err != nil {
			t.Fatal(err)
		}
		m = create(t, st, m.name, sequence.Clauses{})
		reserveModel(t, st, m, 10) // at 10: where old would have left it
		if ok, err := r.Release(ctx, m.name, old.Tail(5)); ok || err != nil {
			t.Fatalf("Release of the dropped incarnation's tail %+v = %v, %v; want false, nil", old.Tail(5), ok, err)
		}
		describe(t, st, m)
		reserveModel(t, st, m, 1)
	})
	t.Run("not_found", func(t *testing.T) {
		_, err := r.Release(ctx, n.name("missing"), sequence.Block{First: 1, Step: 1, Count: 1})
		checkError(t, "Release(missing)", err, sequence.NotFoundError(n.name("missing")))
	})
}

func testCounters(t *testing.T, st sequence.Store, n namer) {
	m := create(t, st, n.name("s"), sequence.Clauses{MaxValue: sequence.Int64(12)})
	start := time.Now()
	var total int64
	for _, k := range []int64{5, 5, 5} { // the last is truncated to 2
		b, _ := reserveModel(t, st, m, k)
		total += b.Count
	}
	reserveModel(t, st, m, 1) // fails at MAXVALUE: not counted
	end := time.Now()
	info := describe(t, st, m)
	if info.Reservations != 3 || info.ValuesReserved != total {
		t.Errorf("counters: %d reservations, %d values; want 3, %d", info.Reservations, info.ValuesReserved, total)
	}
	// Stores may stamp with their own clock: allow generous skew; the point
	// is that it is set and recent.
	if lr := info.LastReserved; lr.Before(start.Add(-time.Minute)) || lr.After(end.Add(time.Minute)) {
		t.Errorf("LastReserved = %v, want about %v", lr, end)
	}
	// setval and alter keep the counters.
	if _, err := st.SetVal(t.Context(), m.name, 1, false); err != nil {
		t.Fatal(err)
	}
	if _, err := st.Alter(t.Context(), m.name, sequence.Clauses{Increment: sequence.Int64(2)}); err != nil {
		t.Fatal(err)
	}
	info2, err := st.Describe(t.Context(), m.name)
	if err != nil {
		t.Fatal(err)
	}
	if info2.Reservations != info.Reservations || info2.ValuesReserved != info.ValuesReserved {
		t.Errorf("setval/alter changed counters: %+v, was %+v", info2, info)
	}
}

func testNames(t *testing.T, st sequence.Store, n namer) {
	ctx := t.Context()
	// Distinct sequences by PostgreSQL's rules: case matters when quoted, the
	// schema matters, and any character may appear in a quoted name.
	names := []string{
		n.name("orders_seq"),
		sequence.FormatName(sequence.DefaultSchema, "Orders_Seq_"+n.prefix),
		sequence.FormatName("app", n.rel("orders_seq")),
		sequence.FormatName("App", "Orders_Seq_"+n.prefix),
		sequence.FormatName(sequence.DefaultSchema, `we"ird na.me `+n.prefix),
		sequence.FormatName(sequence.DefaultSchema, "select_"+n.prefix+"_ü"),
	}
	// The canonical names are what ParseName gives for the written forms.
	for _, written := range []string{`"Orders_Seq_` + n.prefix + `"`, "APP." + strings.ToUpper(n.rel("orders_seq"))} {
		if c := sequence.MustParseName(written); c != names[1] && c != names[2] {
			t.Fatalf("bad test: ParseName(%s) = %s", written, c)
		}
	}
	var models []*model
	for i, name := range names {
		models = append(models, create(t, st, name, sequence.Clauses{Start: sequence.Int64(int64(1000 * (i + 1)))}))
	}
	for _, m := range models {
		reserveModel(t, st, m, 3)
		describe(t, st, m)
	}
	infos, err := st.List(ctx)
	if err != nil {
		t.Fatal(err)
	}
	seen := map[string]bool{}
	for _, info := range infos {
		seen[info.Name] = true
	}
	for _, name := range names {
		if !seen[name] {
			t.Errorf("List misses %s", name)
		}
	}
	// Each error names its own sequence.
	_, err = st.Reserve(ctx, sequence.FormatName("app", n.rel("nope")), 1)
	checkError(t, "Reserve(app.nope)", err, sequence.NotFoundError(sequence.FormatName("app", n.rel("nope"))))
	checkError(t, "Create(Orders_Seq)", st.Create(ctx, names[1], sequence.DefaultSpec(), sequence.Position{Last: 1}), sequence.ExistsError(names[1]))
	// Renaming across schemas and cases keeps them apart.
	renamed := sequence.FormatName("app", "Renamed_"+n.prefix)
	if err := st.Rename(ctx, names[4], renamed); err != nil {
		t.Fatal(err)
	}
	models[4].name = renamed
	for _, m := range models {
		describe(t, st, m)
		reserveModel(t, st, m, 1)
	}
}

// concurrentReserve runs goroutines×rounds Reserve calls of sizes 1..7 on one
// sequence and returns every block received (stopping a goroutine at ErrLimit).
func concurrentReserve(t *testing.T, st sequence.Store, name string, goroutines, rounds int) []sequence.Block {
	ctx := t.Context()
	var (
		mu     sync.Mutex
		blocks []sequence.Block
		wg     sync.WaitGroup
	)
	errs := make(chan error, goroutines)
	for g := range goroutines {
		wg.Go(func() {
			var mine []sequence.Block
			defer func() {
				mu.Lock()
				blocks = append(blocks, mine...)
				mu.Unlock()
			}()
			for i := range rounds {
				b, err := st.Reserve(ctx, name, int64((g+i)%7+1))
				if errors.Is(err, sequence.ErrLimit) {
					return
				}
				if err != nil {
					errs <- fmt.Errorf("goroutine %d: Reserve: %w", g, err)
					return
				}
				mine = append(mine, b)
			}
		})
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Error(err)
	}
	return blocks
}

// checkExact checks that blocks hold every value of [lo, hi] exactly once.
func checkExact(t *testing.T, blocks []sequence.Block, lo, hi int64) {
	t.Helper()
	seen := make(map[int64]bool, hi-lo+1)
	for _, b := range blocks {
		if b.Step != 1 || b.Count < 1 {
			t.Fatalf("bad block %+v", b)
		}
		for i := range b.Count {
			v := b.Value(i)
			if seen[v] {
				t.Fatalf("value %d handed out twice", v)
			}
			if v < lo || v > hi {
				t.Fatalf("value %d outside [%d, %d]", v, lo, hi)
			}
			seen[v] = true
		}
	}
	if int64(len(seen)) != hi-lo+1 {
		t.Fatalf("%d distinct values, want every value of [%d, %d]", len(seen), lo, hi)
	}
}

func testConcurrent(t *testing.T, st sequence.Store, n namer) {
	const goroutines, rounds = 64, 10 // 8×8 callers
	m := create(t, st, n.name("s"), sequence.Clauses{})
	blocks := concurrentReserve(t, st, m.name, goroutines, rounds)
	if len(blocks) != goroutines*rounds {
		t.Fatalf("%d blocks, want %d", len(blocks), goroutines*rounds)
	}
	var total int64
	for _, b := range blocks {
		total += b.Count
	}
	// The values are exactly 1..total: nothing twice, nothing skipped, so the
	// final position accounts for every block.
	checkExact(t, blocks, 1, total)
	m.pos = sequence.Position{Last: total, Called: true}
	info := describe(t, st, m)
	if info.Reservations != int64(len(blocks)) || info.ValuesReserved != total {
		t.Errorf("counters %d, %d; want %d, %d", info.Reservations, info.ValuesReserved, len(blocks), total)
	}
}

func testConcurrentLimit(t *testing.T, st sequence.Store, n namer) {
	// Callers race to MAXVALUE: the truncated last block and the limit errors
	// must leave every value handed out exactly once.
	const max = 500
	m := create(t, st, n.name("s"), sequence.Clauses{MaxValue: sequence.Int64(max)})
	blocks := concurrentReserve(t, st, m.name, 16, 1000)
	checkExact(t, blocks, 1, max)
	m.pos = sequence.Position{Last: max, Called: true}
	describe(t, st, m)
	_, err := st.Reserve(t.Context(), m.name, 1)
	checkError(t, "Reserve at max", err, sequence.LimitError(m.name, m.spec))
}

func testConcurrentCaches(t *testing.T, st sequence.Store, n namer) {
	// 8 processes' worth of seqcache.Cache on one store, 8 callers each:
	// every value distinct, each caller's values increasing, and after the
	// caches close (handing tails back where allowed) the store's next block
	// holds none of the values served.
	const caches, callers, perCaller = 8, 8, 250
	ctx := t.Context()
	m := create(t, st, n.name("s"), sequence.Clauses{})
	var (
		mu     sync.Mutex
		served = make(map[int64]bool, caches*callers*perCaller)
		wg     sync.WaitGroup
	)
	errs := make(chan error, caches*callers+caches)
	for range caches {
		c := seqcache.New(st, func(o *seqcache.Options) { o.MinBlock, o.MaxBlock = 50, 400 })
		var cwg sync.WaitGroup
		for g := range callers {
			cwg.Go(func() {
				vals := make([]int64, 0, perCaller)
				for range perCaller {
					v, err := c.Next(ctx, m.name)
					if err != nil {
						errs <- fmt.Errorf("caller %d: Next: %w", g, err)
						return
					}
					if len(vals) > 0 && v <= vals[len(vals)-1] {
						errs <- fmt.Errorf("caller %d: %d after %d", g, v, vals[len(vals)-1])
						return
					}
					vals = append(vals, v)
				}
				mu.Lock()
				defer mu.Unlock()
				for _, v := range vals {
					if served[v] {
						errs <- fmt.Errorf("value %d served twice", v)
						return
					}
					served[v] = true
				}
			})
		}
		wg.Go(func() {
			cwg.Wait()
			if err := c.Close(); err != nil {
				errs <- fmt.Errorf("closing a cache: %w", err)
			}
		})
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Fatal(err)
	}
	if len(served) != caches*callers*perCaller {
		t.Fatalf("%d values served, want %d", len(served), caches*callers*perCaller)
	}
	info, err := st.Describe(ctx, m.name)
	if err != nil {
		t.Fatal(err)
	}
	if info.ValuesReserved < int64(len(served)) {
		t.Errorf("store counted %d values reserved, but %d were served", info.ValuesReserved, len(served))
	}
	b, err := st.Reserve(ctx, m.name, 100_000)
	if err != nil {
		t.Fatal(err)
	}
	for v := range served {
		if b.Contains(v) {
			t.Fatalf("after Close, the store hands out %d again (block %+v)", v, b)
		}
	}
}

func ptr(s string) *string { return &s }
