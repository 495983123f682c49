package storetest_test

import (
	"testing"
	"time"

	"github.com/seqshim/seqshim/memstore"
	"github.com/seqshim/seqshim/sequence"
	"github.com/seqshim/seqshim/sequence/storetest"
)

// TestRun runs the suite as a store author would (see the package
// documentation), against memstore: a fresh store per subtest.
func TestRun(t *testing.T) {
	storetest.Run(t, func(t *testing.T) sequence.Store { return memstore.New() })
}

// TestRunBudget runs the daily-limit suite against memstore: one store for
// every handle, on the suite's clock, as one process's memory is shared.
func TestRunBudget(t *testing.T) {
	var st *memstore.Store
	storetest.RunBudget(t, func(t *testing.T, now func() time.Time) sequence.Store {
		if st == nil {
			st = memstore.New(func(o *memstore.Options) { o.Now = now })
		}
		return st
	})
}
