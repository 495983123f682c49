package cosmosstore_test

import (
	"os"
	"testing"
	"time"

	"github.com/seqshim/seqshim/cosmosstore"
	"github.com/seqshim/seqshim/internal/testkit/testenv"
	"github.com/seqshim/seqshim/sequence"
	"github.com/seqshim/seqshim/sequence/storetest"
)

func TestMain(m *testing.M) {
	testenv.CosmosKeyEnv()
	os.Exit(m.Run())
}

// TestContract runs the shared store contract on the emulator, once without
// a key prefix and once with one (every subtest on its own Store over one
// container per variant).
func TestContract(t *testing.T) {
	for _, prefix := range []string{"", "svc-a/"} {
		t.Run("prefix="+prefix, func(t *testing.T) {
			c := testenv.NewCosmosContainer(t)
			storetest.Run(t, func(t *testing.T) sequence.Store {
				st, err := c.Store(func(o *cosmosstore.Options) { o.Prefix = prefix })
				if err != nil {
					t.Fatal(err)
				}
				return st
			})
		})
	}
}

// TestContractBudget runs the daily-limit contract, each handle a Store of
// its own (its own remembered documents) on one container, as separate
// processes would have.
func TestContractBudget(t *testing.T) {
	c := testenv.NewCosmosContainer(t)
	storetest.RunBudget(t, func(t *testing.T, now func() time.Time) sequence.Store {
		st, err := c.Store(func(o *cosmosstore.Options) { o.Now = now })
		if err != nil {
			t.Fatal(err)
		}
		return st
	})
}
