package memstore

import (
	"errors"
	"slices"
	"testing"
	"time"

	"github.com/seqshim/seqshim/sequence"
	"github.com/seqshim/seqshim/sequence/storetest"
)

func TestContract(t *testing.T) {
	storetest.Run(t, func(t *testing.T) sequence.Store { return New() })
}

// TestContractShared runs the contract on one store shared by every subtest,
// as the shared stores are used.
func TestContractShared(t *testing.T) {
	st := New()
	storetest.Run(t, func(t *testing.T) sequence.Store { return st })
}

func TestOpen(t *testing.T) {
	tests := []struct {
		a, b string
		same bool
	}{
		{"memory:", "memory:", true},
		{"memory:x", "memory://x", true},
		{"memory:x", "memory:x?seqshim.buffer=5", true},
		{"memory:", "memory:x", false},
		{"memory:x", "memory:y", false},
	}
	for _, tc := range tests {
		t.Run(tc.a+"|"+tc.b, func(t *testing.T) {
			a, err := Open(tc.a)
			if err != nil {
				t.Fatal(err)
			}
			b, err := Open(tc.b)
			if err != nil {
				t.Fatal(err)
			}
			if (a == b) != tc.same {
				t.Errorf("Open(%q) == Open(%q): %v, want %v", tc.a, tc.b, a == b, tc.same)
			}
		})
	}
	for _, bad := range []string{"", "memory", "sqlite:x", "mem:"} {
		if _, err := Open(bad); err == nil {
			t.Errorf("Open(%q) succeeded", bad)
		}
	}
}

func TestCreateValidates(t *testing.T) {
	st := New()
	spec := sequence.DefaultSpec()
	spec.Increment = 0
	err := st.Create(t.Context(), "s", spec, sequence.Position{Last: 1})
	if err == nil || err.Error() != "INCREMENT must not be zero" {
		t.Errorf("Create(increment 0) = %v", err)
	}
	spec = sequence.DefaultSpec()
	err = st.Create(t.Context(), "s", spec, sequence.Position{Last: 0})
	if !errorsIsInvalid(err) {
		t.Errorf("Create(position out of bounds) = %v, want ErrInvalid", err)
	}
}

func BenchmarkReserve(b *testing.B) {
	st := New()
	ctx := b.Context()
	if err := st.Create(ctx, "s", sequence.DefaultSpec(), sequence.DefaultSpec().Initial()); err != nil {
		b.Fatal(err)
	}
	b.ReportAllocs()
	for b.Loop() {
		if _, err := st.Reserve(ctx, "s", 100); err != nil {
			b.Fatal(err)
		}
	}
}

func errorsIsInvalid(err error) bool { return errors.Is(err, sequence.ErrInvalid) }

// TestDefaultsNotShared checks that the column defaults a caller passes in or
// gets back are copies: changing them does not change the store.
func TestDefaultsNotShared(t *testing.T) {
	orig := []sequence.ColumnDefault{{Table: "orders", Column: "id", Kind: sequence.IdentityAlways}}
	tests := []struct {
		name string
		// got returns a slice the caller holds after an operation on s.
		got func(t *testing.T, st *Store, in []sequence.ColumnDefault) []sequence.ColumnDefault
	}{
		{"Create argument", func(t *testing.T, st *Store, in []sequence.ColumnDefault) []sequence.ColumnDefault {
			return in
		}},
		{"Describe", func(t *testing.T, st *Store, _ []sequence.ColumnDefault) []sequence.ColumnDefault {
			info, err := st.Describe(t.Context(), "s")
			if err != nil {
				t.Fatal(err)
			}
			return info.Spec.Defaults
		}},
		{"List", func(t *testing.T, st *Store, _ []sequence.ColumnDefault) []sequence.ColumnDefault {
			infos, err := st.List(t.Context())
			if err != nil || len(infos) != 1 {
				t.Fatalf("List: %v, %v", infos, err)
			}
			return infos[0].Spec.Defaults
		}},
		{"Alter result", func(t *testing.T, st *Store, _ []sequence.ColumnDefault) []sequence.ColumnDefault {
			info, err := st.Alter(t.Context(), "s", sequence.Clauses{Cache: sequence.Int64(5)})
			if err != nil {
				t.Fatal(err)
			}
			return info.Spec.Defaults
		}},
		{"Alter argument", func(t *testing.T, st *Store, _ []sequence.ColumnDefault) []sequence.ColumnDefault {
			in := slices.Clone(orig)
			if _, err := st.Alter(t.Context(), "s", sequence.Clauses{Defaults: &in}); err != nil {
				t.Fatal(err)
			}
			return in
		}},
		{"SetVal result", func(t *testing.T, st *Store, _ []sequence.ColumnDefault) []sequence.ColumnDefault {
			info, err := st.SetVal(t.Context(), "s", 5, true)
			if err != nil {
				t.Fatal(err)
			}
			return info.Spec.Defaults
		}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			st := New()
			in := slices.Clone(orig)
			spec, pos, err := sequence.Clauses{Defaults: &in}.Create()
			if err != nil {
				t.Fatal(err)
			}
			spec.Defaults = in // the caller's own slice, not the clone Create made
			if err := st.Create(t.Context(), "s", spec, pos); err != nil {
				t.Fatal(err)
			}
			got := tc.got(t, st, in)
			if len(got) != 1 {
				t.Fatalf("defaults %v, want %v", got, orig)
			}
			got[0].Column = "changed"
			info, err := st.Describe(t.Context(), "s")
			if err != nil {
				t.Fatal(err)
			}
			if !slices.Equal(info.Spec.Defaults, orig) {
				t.Errorf("after the caller changed its slice: stored defaults %v, want %v", info.Spec.Defaults, orig)
			}
		})
	}
}

// TestNativeNotShared checks that the store keeps its own copy of a
// member's native range: changing the range a caller gave (to Create or
// Attach) or was given (by Describe, List or Attach) does not change the
// store's.
func TestNativeNotShared(t *testing.T) {
	const db = "sys/16384/a"
	orig := sequence.NativeRange{First: 100, Last: 199}
	tests := []struct {
		name string
		got  func(t *testing.T, st *Store, in *sequence.NativeRange) *sequence.NativeRange
	}{
		{"Create argument", func(t *testing.T, st *Store, in *sequence.NativeRange) *sequence.NativeRange { return in }},
		{"Attach argument", func(t *testing.T, st *Store, _ *sequence.NativeRange) *sequence.NativeRange {
			info, err := st.Describe(t.Context(), "s")
			if err != nil {
				t.Fatal(err)
			}
			in := orig
			if _, err := st.Attach(t.Context(), "s", sequence.Member{DB: db, Native: &in}, info.Spec); err != nil {
				t.Fatal(err)
			}
			return &in
		}},
		{"Attach result", func(t *testing.T, st *Store, _ *sequence.NativeRange) *sequence.NativeRange {
			info, err := st.Describe(t.Context(), "s")
			if err != nil {
				t.Fatal(err)
			}
			in := orig
			if info, err = st.Attach(t.Context(), "s", sequence.Member{DB: db, Native: &in}, info.Spec); err != nil {
				t.Fatal(err)
			}
			return info.Spec.Members[0].Native
		}},
		{"Describe", func(t *testing.T, st *Store, _ *sequence.NativeRange) *sequence.NativeRange {
			info, err := st.Describe(t.Context(), "s")
			if err != nil {
				t.Fatal(err)
			}
			return info.Spec.Members[0].Native
		}},
		{"List", func(t *testing.T, st *Store, _ *sequence.NativeRange) *sequence.NativeRange {
			infos, err := st.List(t.Context())
			if err != nil || len(infos) != 1 {
				t.Fatalf("List: %v, %v", infos, err)
			}
			return infos[0].Spec.Members[0].Native
		}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			st := New()
			in := orig
			spec := sequence.DefaultSpec()
			spec.Members = []sequence.Member{{DB: db, Native: &in}}
			if err := st.Create(t.Context(), "s", spec, spec.Initial()); err != nil {
				t.Fatal(err)
			}
			got := tc.got(t, st, &in)
			if got == nil || *got != orig {
				t.Fatalf("native range %v, want %+v", got, orig)
			}
			got.First, got.Last = 1, 2
			info, err := st.Describe(t.Context(), "s")
			if err != nil {
				t.Fatal(err)
			}
			if n := info.Spec.Members[0].Native; n == nil || *n != orig {
				t.Errorf("after the caller changed its range: stored native range %v, want %+v", n, orig)
			}
		})
	}
}

// TestContractBudget runs the daily-limit contract on one store with a fake
// clock, shared by every handle as one process's store is.
func TestContractBudget(t *testing.T) {
	var st *Store
	storetest.RunBudget(t, func(t *testing.T, now func() time.Time) sequence.Store {
		if st == nil {
			st = New(func(o *Options) { o.Now = now })
		}
		return st
	})
}
