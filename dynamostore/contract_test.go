package dynamostore_test

import (
	"testing"
	"time"

	"github.com/seqshim/seqshim/dynamostore"
	"github.com/seqshim/seqshim/sequence"
	"github.com/seqshim/seqshim/sequence/storetest"
)

// TestContract runs the shared store contract, once without a key prefix and
// once with one (every subtest on its own Store over one table per variant).
func TestContract(t *testing.T) {
	for _, prefix := range []string{"", "svc-a/"} {
		t.Run("prefix="+prefix, func(t *testing.T) {
			client := testClient(t)
			table := testTable(t)
			storetest.Run(t, func(t *testing.T) sequence.Store {
				return dynamostore.New(client, table, func(o *dynamostore.Options) { o.Prefix = prefix })
			})
		})
	}
}

// TestContractBudget runs the daily-limit contract on dynalite, each handle
// a Store of its own (its own remembered state) on one table, as separate
// processes would have.
func TestContractBudget(t *testing.T) {
	client := testClient(t)
	table := testTable(t)
	storetest.RunBudget(t, func(t *testing.T, now func() time.Time) sequence.Store {
		return dynamostore.New(client, table, func(o *dynamostore.Options) { o.Now = now })
	})
}
