package testenv

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/service/dynamodb"

	"github.com/seqshim/seqshim/dynamostore"
	"github.com/seqshim/seqshim/sequence"
)

// TestDynamoTableName: names are valid DynamoDB table names, whatever the
// test is called, and differ between calls.
func TestDynamoTableName(t *testing.T) {
	for _, sub := range []string{"plain", "with spaces/and:punctuation", strings.Repeat("long", 100)} {
		t.Run(sub, func(t *testing.T) {
			a, b := dynamoTableName(t), dynamoTableName(t)
			if a == b {
				t.Errorf("two names are both %s", a)
			}
			if _, err := dynamostore.ParseURL("dynamodb://" + a); err != nil {
				t.Errorf("name %q: %v", a, err)
			}
		})
	}
}

// TestDynamoTable: the table exists while the test runs, its URL and Store
// reach it, and it is gone after the test.
func TestDynamoTable(t *testing.T) {
	DynamoDB(t) // skips here, not in the subtest only
	var d DynamoTable
	t.Run("in use", func(t *testing.T) {
		d = NewDynamoTable(t)
		u, err := dynamostore.ParseURL(d.URL("p/"))
		if want := (dynamostore.URL{Table: d.Name, Region: DynamoRegion, Endpoint: d.Endpoint, Prefix: "p/"}); err != nil || u != want {
			t.Errorf("URL %s parses as %+v, %v; want %+v", d.URL("p/"), u, err, want)
		}
		ctx := t.Context()
		st := d.Store()
		spec := sequence.DefaultSpec()
		if err := st.Create(ctx, "s", spec, spec.Initial()); err != nil {
			t.Fatal(err)
		}
		if b, err := st.Reserve(ctx, "s", 3); err != nil || b.First != 1 || b.Count != 3 {
			t.Fatalf("Reserve = %+v, %v", b, err)
		}
	})
	if d.Client == nil {
		return // the subtest failed to make one
	}
	// dynalite deletes a table in the background (DELETING, then gone):
	// wait for it, within a bound.
	w := dynamodb.NewTableNotExistsWaiter(d.Client, func(o *dynamodb.TableNotExistsWaiterOptions) {
		o.MinDelay, o.MaxDelay = 50*time.Millisecond, 500*time.Millisecond
	})
	if err := w.Wait(context.Background(), &dynamodb.DescribeTableInput{TableName: &d.Name}, 20*time.Second); err != nil {
		t.Errorf("the table is still there after the test: %v", err)
	}
}
