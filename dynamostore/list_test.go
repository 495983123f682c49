package dynamostore_test

import (
	"context"
	"fmt"
	"sync/atomic"
	"testing"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"

	"github.com/seqshim/seqshim/dynamostore"
	"github.com/seqshim/seqshim/sequence"
)

// pagedScans makes every Scan return at most limit items, as DynamoDB does
// past 1 MB per response, and counts the Scan calls.
type pagedScans struct {
	dynamostore.API
	limit int32
	scans atomic.Int64
}

func (p *pagedScans) Scan(ctx context.Context, in *dynamodb.ScanInput, optFns ...func(*dynamodb.Options)) (*dynamodb.ScanOutput, error) {
	p.scans.Add(1)
	cp := *in
	cp.Limit = aws.Int32(p.limit)
	return p.API.Scan(ctx, &cp, optFns...)
}

// TestListPaginates: List follows LastEvaluatedKey through every page of
// the Scan, so no sequence is missing however many responses it takes;
// with a prefix, pages that the filter empties do not end it either.
func TestListPaginates(t *testing.T) {
	client := testClient(t)
	table := testTable(t)
	ctx := t.Context()
	const n = 25
	spec, pos, _ := sequence.Clauses{}.Create()
	mine := dynamostore.New(client, table, func(o *dynamostore.Options) { o.Prefix = "mine/" })
	others := dynamostore.New(client, table, func(o *dynamostore.Options) { o.Prefix = "others/" })
	for i := range n {
		if err := mine.Create(ctx, fmt.Sprintf("s%02d", i), spec, pos); err != nil {
			t.Fatal(err)
		}
		if err := others.Create(ctx, fmt.Sprintf("o%02d", i), spec, pos); err != nil {
			t.Fatal(err)
		}
	}
	api := &pagedScans{API: client, limit: 3}
	paged := dynamostore.New(api, table, func(o *dynamostore.Options) { o.Prefix = "mine/" })
	list, err := paged.List(ctx)
	if err != nil {
		t.Fatalf("List: %v", err)
	}
	if len(list) != n {
		t.Fatalf("List returned %d sequences over %d Scan calls, want %d", len(list), api.scans.Load(), n)
	}
	for i, info := range list {
		if want := fmt.Sprintf("s%02d", i); info.Name != want {
			t.Errorf("List[%d] = %s, want %s (sorted, prefix removed)", i, info.Name, want)
		}
	}
	// 2n items, 3 a page: at least 2n/3 pages.
	if got := api.scans.Load(); got < 2*n/3 {
		t.Errorf("%d Scan calls for %d items at %d a page: the limit was not applied", got, 2*n, api.limit)
	}
}
