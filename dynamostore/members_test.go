package dynamostore_test

import (
	"context"
	"errors"
	"strings"
	"sync"
	"testing"

	"github.com/aws/aws-sdk-go-v2/service/dynamodb"

	"github.com/seqshim/seqshim/dynamostore"
	"github.com/seqshim/seqshim/sequence"
)

// hookAPI runs a function once, just before the next DeleteItem or the next
// UpdateItem whose update expression contains a string: another process's
// request landing between two of a Store's.
type hookAPI struct {
	dynamostore.API
	mu           sync.Mutex // guards the fields below
	beforeDelete func()
	beforeUpdate func()
	updateWith   string
}

func (h *hookAPI) take(f *func()) func() {
	h.mu.Lock()
	defer h.mu.Unlock()
	fn := *f
	*f = nil
	return fn
}

func (h *hookAPI) DeleteItem(ctx context.Context, in *dynamodb.DeleteItemInput, optFns ...func(*dynamodb.Options)) (*dynamodb.DeleteItemOutput, error) {
	if fn := h.take(&h.beforeDelete); fn != nil {
		fn()
	}
	return h.API.DeleteItem(ctx, in, optFns...)
}

func (h *hookAPI) UpdateItem(ctx context.Context, in *dynamodb.UpdateItemInput, optFns ...func(*dynamodb.Options)) (*dynamodb.UpdateItemOutput, error) {
	h.mu.Lock()
	match := in.UpdateExpression != nil && strings.Contains(*in.UpdateExpression, h.updateWith)
	h.mu.Unlock()
	if match {
		if fn := h.take(&h.beforeUpdate); fn != nil {
			fn()
		}
	}
	return h.API.UpdateItem(ctx, in, optFns...)
}

// hooked returns a Store through a hookAPI and another Store on the same
// table: the other process.
func hooked(t *testing.T) (*dynamostore.Store, *hookAPI, *dynamostore.Store) {
	client := testClient(t)
	table := testTable(t)
	h := &hookAPI{API: client}
	return dynamostore.New(h, table), h, dynamostore.New(client, table)
}

func memberOf(name string) sequence.Member {
	return sequence.Member{DB: sequence.DatabaseID("7301", "16384", name), OwnedBy: "t." + name}
}

func createWith(t *testing.T, st *dynamostore.Store, name string, members ...sequence.Member) sequence.Spec {
	t.Helper()
	spec := sequence.DefaultSpec()
	spec.Members = members
	if err := st.Create(t.Context(), name, spec, spec.Initial()); err != nil {
		t.Fatalf("Create(%s): %v", name, err)
	}
	return spec
}

func membersOf(t *testing.T, st *dynamostore.Store, name string) []string {
	t.Helper()
	info, err := st.Describe(t.Context(), name)
	if err != nil {
		t.Fatalf("Describe(%s): %v", name, err)
	}
	return sequence.MemberDBs(info.Spec.Members)
}

// TestMembershipRequests checks the cost of Attach and Detach on the wire:
// one UpdateItem each in the common case, a DeleteItem more for the last
// member, and the members map made first for an item without one.
func TestMembershipRequests(t *testing.T) {
	cc := &countingClient{ops: map[string]int{}}
	client := testClient(t, func(o *dynamodb.Options) { o.HTTPClient = cc })
	st := dynamostore.New(client, testTable(t))
	ctx := t.Context()
	spec := createWith(t, st, "s", memberOf("a"))
	createWith(t, st, "legacy")
	createWith(t, st, "legacy2")
	cc.take()
	steps := []struct {
		name string
		do   func() error
		want map[string]int
	}{
		{"attach", func() error { _, err := st.Attach(ctx, "s", memberOf("b"), spec); return err },
			map[string]int{"UpdateItem": 1}},
		{"detach one of two", func() error { return wantDropped(st.Detach(ctx, "s", memberOf("a").DB))(false) },
			map[string]int{"UpdateItem": 1}},
		{"detach the last", func() error { return wantDropped(st.Detach(ctx, "s", memberOf("b").DB))(true) },
			map[string]int{"UpdateItem": 1, "DeleteItem": 1}},
		// Refused for want of the map, read, map made, sent again.
		{"attach without the map", func() error { _, err := st.Attach(ctx, "legacy", memberOf("a"), spec); return err },
			map[string]int{"UpdateItem": 3, "GetItem": 1}},
		{"attach with the map", func() error { _, err := st.Attach(ctx, "legacy", memberOf("b"), spec); return err },
			map[string]int{"UpdateItem": 1}},
		{"detach without the map", func() error { return wantDropped(st.Detach(ctx, "legacy2", memberOf("a").DB))(true) },
			map[string]int{"UpdateItem": 1, "GetItem": 1, "DeleteItem": 1}},
	}
	for _, s := range steps {
		if err := s.do(); err != nil {
			t.Fatalf("%s: %v", s.name, err)
		}
		got := cc.take()
		if len(got) != len(s.want) {
			t.Fatalf("%s: requests %v, want %v", s.name, got, s.want)
		}
		for op, n := range s.want {
			if got[op] != n {
				t.Fatalf("%s: requests %v, want %v", s.name, got, s.want)
			}
		}
	}
	if got := membersOf(t, st, "legacy"); len(got) != 2 {
		t.Errorf("legacy members %v, want a and b", got)
	}
}

func wantDropped(dropped bool, err error) func(bool) error {
	return func(want bool) error {
		if err == nil && dropped != want {
			return errors.New("dropped is not as expected")
		}
		return err
	}
}

// TestDetachRaces puts another process's request between Detach's update
// (or read) and its DeleteItem: an Attach keeps the sequence, and a Drop and
// Create of the name are never undone by the delete meant for the
// incarnation Detach saw.
func TestDetachRaces(t *testing.T) {
	tests := []struct {
		name        string
		members     []sequence.Member // nil: an item without the members map
		other       func(t *testing.T, other *dynamostore.Store, spec sequence.Spec)
		wantDropped bool
		wantErr     error
		wantMembers []string // of the sequence after, if it exists
	}{
		{
			name:    "attach before the delete",
			members: []sequence.Member{memberOf("last")},
			other: func(t *testing.T, other *dynamostore.Store, spec sequence.Spec) {
				if _, err := other.Attach(t.Context(), "s", memberOf("new"), spec); err != nil {
					t.Fatal(err)
				}
			},
			wantMembers: []string{memberOf("new").DB},
		},
		{
			name: "attach before the delete of an item without members",
			other: func(t *testing.T, other *dynamostore.Store, spec sequence.Spec) {
				if _, err := other.Attach(t.Context(), "s", memberOf("new"), spec); err != nil {
					t.Fatal(err)
				}
			},
			wantMembers: []string{memberOf("new").DB},
		},
		{
			name:    "dropped and created again before the delete",
			members: []sequence.Member{memberOf("last")},
			other: func(t *testing.T, other *dynamostore.Store, spec sequence.Spec) {
				if err := other.Drop(t.Context(), "s"); err != nil {
					t.Fatal(err)
				}
				createWith(t, other, "s") // no members: a delete meant for the old one would take it
			},
			wantErr:     sequence.ErrNotFound,
			wantMembers: []string{},
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			st, h, other := hooked(t)
			ctx := t.Context()
			spec := createWith(t, st, "s", tc.members...)
			gen, err := st.Gen(ctx, "s")
			if err != nil {
				t.Fatal(err)
			}
			h.beforeDelete = func() { tc.other(t, other, spec) }
			dropped, err := st.Detach(ctx, "s", memberOf("last").DB)
			if dropped != tc.wantDropped || !errors.Is(err, tc.wantErr) || (tc.wantErr == nil) != (err == nil) {
				t.Fatalf("Detach = %v, %v; want %v, %v", dropped, err, tc.wantDropped, tc.wantErr)
			}
			if h.beforeDelete != nil {
				t.Fatal("bad test: Detach sent no DeleteItem")
			}
			got := membersOf(t, other, "s")
			if strings.Join(got, ",") != strings.Join(tc.wantMembers, ",") {
				t.Errorf("members after: %v, want %v", got, tc.wantMembers)
			}
			if tc.wantErr != nil {
				if g, err := other.Gen(ctx, "s"); err != nil || g == gen {
					t.Errorf("the new incarnation: Gen %d, %v; want one other than %d", g, err, gen)
				}
			}
		})
	}
}

// TestAttachRaces puts another process's request just before Attach's
// update: an ALTER of the counter makes it fail with the counter error,
// changing nothing; a Drop makes it find no sequence.
func TestAttachRaces(t *testing.T) {
	t.Run("alter", func(t *testing.T) {
		st, h, other := hooked(t)
		ctx := t.Context()
		spec := createWith(t, st, "s", memberOf("a"))
		h.updateWith = "#members.#db"
		h.beforeUpdate = func() {
			if _, err := other.Alter(ctx, "s", sequence.Clauses{Increment: sequence.Int64(5)}); err != nil {
				t.Fatal(err)
			}
		}
		_, err := st.Attach(ctx, "s", memberOf("b"), spec)
		var e *sequence.Error
		if !errors.Is(err, sequence.ErrExists) || !errors.As(err, &e) || e.Code != sequence.CodeDuplicateTable ||
			!strings.Contains(e.Message, "INCREMENT 5") {
			t.Fatalf("Attach after a concurrent ALTER: %v, want the counter error naming INCREMENT 5", err)
		}
		if got := membersOf(t, other, "s"); len(got) != 1 || got[0] != memberOf("a").DB {
			t.Errorf("members after a refused Attach: %v", got)
		}
	})
	t.Run("drop", func(t *testing.T) {
		st, h, other := hooked(t)
		ctx := t.Context()
		spec := createWith(t, st, "s", memberOf("a"))
		h.updateWith = "#members.#db"
		h.beforeUpdate = func() {
			if err := other.Drop(ctx, "s"); err != nil {
				t.Fatal(err)
			}
		}
		if _, err := st.Attach(ctx, "s", memberOf("b"), spec); !errors.Is(err, sequence.ErrNotFound) {
			t.Fatalf("Attach after a concurrent Drop: %v, want ErrNotFound", err)
		}
		if _, err := other.Describe(ctx, "s"); !errors.Is(err, sequence.ErrNotFound) {
			t.Errorf("Attach brought a dropped sequence back: %v", err)
		}
	})
}

// TestMemberKeys checks that a database identity is a map key whatever its
// characters: it travels as an expression attribute name, never inside the
// expression.
func TestMemberKeys(t *testing.T) {
	st := testStore(t)
	ctx := t.Context()
	spec := createWith(t, st, "s")
	odd := []string{"a.b", "c[0]", "#d :e", "f/g/h", `"i" = j`, "ü"}
	for _, db := range odd {
		if _, err := st.Attach(ctx, "s", sequence.Member{DB: db}, spec); err != nil {
			t.Fatalf("Attach(%q): %v", db, err)
		}
	}
	if got := membersOf(t, st, "s"); len(got) != len(odd) {
		t.Fatalf("members %q, want %q", got, odd)
	}
	for i, db := range odd {
		dropped, err := st.Detach(ctx, "s", db)
		if err != nil || dropped != (i == len(odd)-1) {
			t.Fatalf("Detach(%q) = %v, %v", db, dropped, err)
		}
	}
}
