package memstore

import (
	"errors"
	"testing"

	"github.com/seqshim/seqshim/internal/storetest"
	"github.com/seqshim/seqshim/sequence"
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
