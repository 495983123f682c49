package dynamostore_test

import (
	"context"
	"errors"
	"net/http"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"github.com/seqshim/seqshim/dynamostore"
	"github.com/seqshim/seqshim/sequence"
)

// seq tracks what a stored sequence must be; expectations come from
// the sequence model's arithmetic, never from the store under test.
type seq struct {
	name string
	spec sequence.Spec
	pos  sequence.Position
}

func newSeq(t *testing.T, st *dynamostore.Store, name string, c sequence.Clauses) *seq {
	t.Helper()
	spec, pos, err := c.Create()
	if err != nil {
		t.Fatal(err)
	}
	if err := st.Create(t.Context(), name, spec, pos); err != nil {
		t.Fatalf("Create(%s): %v", name, err)
	}
	return &seq{name: name, spec: spec, pos: pos}
}

// reserve reserves n values through st and checks the block against the model.
func (m *seq) reserve(t *testing.T, st *dynamostore.Store, n int64) sequence.Block {
	t.Helper()
	want, pos, wantErr := m.spec.Reserve(m.name, m.pos, n)
	got, err := st.Reserve(t.Context(), m.name, n)
	if wantErr != nil {
		if err == nil || err.Error() != wantErr.Error() || !errors.Is(err, sequence.ErrLimit) {
			t.Fatalf("Reserve(%s, %d) = %+v, %v; want error %v", m.name, n, got, err, wantErr)
		}
		return got
	}
	if want.Gen = got.Gen; err != nil || got != want || got.Gen == 0 {
		t.Fatalf("Reserve(%s, %d) = %+v, %v; want %+v of an incarnation", m.name, n, got, err, want)
	}
	m.pos = pos
	return got
}

// countingClient counts the DynamoDB operations sent, by X-Amz-Target.
type countingClient struct {
	mu  sync.Mutex
	ops map[string]int
}

func (c *countingClient) Do(r *http.Request) (*http.Response, error) {
	op := r.Header.Get("X-Amz-Target")
	op = op[strings.LastIndexByte(op, '.')+1:]
	c.mu.Lock()
	c.ops[op]++
	c.mu.Unlock()
	return http.DefaultClient.Do(r)
}

func (c *countingClient) take() map[string]int {
	c.mu.Lock()
	defer c.mu.Unlock()
	ops := c.ops
	c.ops = map[string]int{}
	return ops
}

// TestReserveRequests checks the cost of a reservation on the wire: the
// first reads the item, every later one is a single UpdateItem, and one
// that reaches MAXVALUE reads and compares-and-sets.
func TestReserveRequests(t *testing.T) {
	cc := &countingClient{ops: map[string]int{}}
	client := testClient(t, func(o *dynamodb.Options) { o.HTTPClient = cc })
	st := dynamostore.New(client, testTable(t))
	m := newSeq(t, st, "s", sequence.Clauses{MaxValue: sequence.Int64(2500)})
	cc.take()
	steps := []struct {
		name string
		n    int64
		want map[string]int
	}{
		{"first", 1000, map[string]int{"GetItem": 1, "UpdateItem": 1}},
		{"cached", 1000, map[string]int{"UpdateItem": 1}},
		{"truncated", 1000, map[string]int{"UpdateItem": 1, "GetItem": 1}},
		{"limit", 1000, map[string]int{"GetItem": 1}},
	}
	for _, s := range steps {
		t.Run(s.name, func(t *testing.T) {
			m.reserve(t, st, s.n)
			got := cc.take()
			if len(got) != len(s.want) {
				t.Fatalf("requests %v, want %v", got, s.want)
			}
			for op, n := range s.want {
				if got[op] != n {
					t.Fatalf("requests %v, want %v", got, s.want)
				}
			}
		})
	}
}

// TestTwoProcesses drives one sequence through two Stores on one table (two
// processes): each change made by one is seen by the other's next Reserve,
// despite what it had cached.
func TestTwoProcesses(t *testing.T) {
	client := testClient(t)
	table := testTable(t)
	a, b := dynamostore.New(client, table), dynamostore.New(client, table)
	ctx := t.Context()
	m := newSeq(t, a, "s", sequence.Clauses{})

	type step struct {
		name string
		run  func(t *testing.T)
	}
	steps := []step{
		{"a reserves", func(t *testing.T) { m.reserve(t, a, 10) }},
		{"b reserves", func(t *testing.T) { m.reserve(t, b, 10) }},
		{"a reserves after b", func(t *testing.T) { m.reserve(t, a, 10) }},
		{"b alters increment, a follows", func(t *testing.T) {
			c := sequence.Clauses{Increment: sequence.Int64(5), MaxValue: sequence.Int64(1000)}
			info, err := b.Alter(ctx, "s", c)
			if err != nil {
				t.Fatal(err)
			}
			spec, pos, _ := c.Alter(m.spec, m.pos)
			if !info.Spec.Equal(spec) || info.Position != pos {
				t.Fatalf("Alter = %+v, want spec %+v pos %+v", info, spec, pos)
			}
			m.spec, m.pos = spec, pos
			m.reserve(t, a, 3)
		}},
		{"b setval not called, a follows", func(t *testing.T) {
			if _, err := b.SetVal(ctx, "s", 100, false); err != nil {
				t.Fatal(err)
			}
			m.pos = sequence.Position{Last: 100}
			m.reserve(t, a, 2)
			m.reserve(t, a, 2)
		}},
		{"b setval called, a follows", func(t *testing.T) {
			if _, err := b.SetVal(ctx, "s", 500, true); err != nil {
				t.Fatal(err)
			}
			m.pos = sequence.Position{Last: 500, Called: true}
			m.reserve(t, a, 4)
		}},
		{"a truncated at max, b at the limit", func(t *testing.T) {
			m.reserve(t, a, 1000)
			m.reserve(t, b, 1)
			m.reserve(t, a, 1)
		}},
		{"b cycles, a follows", func(t *testing.T) {
			c := sequence.Clauses{Cycle: sequence.Bool(true)}
			if _, err := b.Alter(ctx, "s", c); err != nil {
				t.Fatal(err)
			}
			m.spec, m.pos, _ = c.Alter(m.spec, m.pos)
			m.reserve(t, a, 3)
			m.reserve(t, b, 3)
		}},
		{"b releases its tail, a gets it", func(t *testing.T) {
			blk := m.reserve(t, b, 10)
			tail := blk.Tail(4)
			ok, err := b.Release(ctx, "s", tail)
			if err != nil || !ok {
				t.Fatalf("Release(%+v) = %v, %v", tail, ok, err)
			}
			m.pos, _ = m.spec.Release(m.pos, tail)
			if got := m.reserve(t, a, 10); got.First != tail.First {
				t.Fatalf("after release, block %+v, want it to start at %d", got, tail.First)
			}
		}},
		{"b renames, a sees it", func(t *testing.T) {
			if err := b.Rename(ctx, "s", "t"); err != nil {
				t.Fatal(err)
			}
			_, err := a.Reserve(ctx, "s", 1)
			if !errors.Is(err, sequence.ErrNotFound) || err.Error() != `relation "s" does not exist` {
				t.Fatalf("Reserve of renamed sequence: %v", err)
			}
			m.name = "t"
			m.reserve(t, a, 5)
		}},
		{"b drops, a gets not found", func(t *testing.T) {
			if err := b.Drop(ctx, "t"); err != nil {
				t.Fatal(err)
			}
			_, err := a.Reserve(ctx, "t", 1)
			var se *sequence.Error
			if !errors.As(err, &se) || !errors.Is(err, sequence.ErrNotFound) || se.Code != sequence.CodeUndefinedTable {
				t.Fatalf("Reserve of dropped sequence: %v", err)
			}
			if err := a.Drop(ctx, "t"); !errors.Is(err, sequence.ErrNotFound) {
				t.Fatalf("second Drop: %v", err)
			}
		}},
		{"recreated, a starts over", func(t *testing.T) {
			m = newSeq(t, b, "t", sequence.Clauses{Start: sequence.Int64(7)})
			m.reserve(t, a, 3)
		}},
		{"recreated with another spec, a follows", func(t *testing.T) {
			// a remembers the item fresh (not called, version 1), exactly
			// as the new one will be but for its spec.
			if _, err := a.Describe(ctx, "u"); !errors.Is(err, sequence.ErrNotFound) {
				t.Fatal(err)
			}
			newSeq(t, b, "u", sequence.Clauses{})
			if _, err := a.Describe(ctx, "u"); err != nil {
				t.Fatal(err)
			}
			if err := b.Drop(ctx, "u"); err != nil {
				t.Fatal(err)
			}
			m = newSeq(t, b, "u", sequence.Clauses{Increment: sequence.Int64(5)})
			m.reserve(t, a, 3)
		}},
		{"a's tail not released into a recreated sequence", func(t *testing.T) {
			blk := m.reserve(t, a, 10)
			if err := b.Drop(ctx, "u"); err != nil {
				t.Fatal(err)
			}
			// The same spec and the same reservations: the new item's
			// position, version and counters equal the old one's.
			m = newSeq(t, b, "u", sequence.Clauses{Increment: sequence.Int64(5)})
			m.reserve(t, b, 3)
			m.reserve(t, b, 10)
			if ok, err := a.Release(ctx, "u", blk.Tail(5)); ok || err != nil {
				t.Fatalf("Release into the recreated sequence = %v, %v; want refused", ok, err)
			}
			m.reserve(t, a, 1)
		}},
	}
	for _, s := range steps {
		if !t.Run(s.name, s.run) {
			break
		}
	}
}

func TestCreateTwice(t *testing.T) {
	client := testClient(t)
	table := testTable(t)
	a, b := dynamostore.New(client, table), dynamostore.New(client, table)
	spec := sequence.DefaultSpec()
	if err := a.Create(t.Context(), `"S"`, spec, spec.Initial()); err != nil {
		t.Fatal(err)
	}
	for _, st := range []*dynamostore.Store{a, b} {
		err := st.Create(t.Context(), `"S"`, spec, sequence.Position{Last: 5})
		var se *sequence.Error
		if !errors.As(err, &se) || !errors.Is(err, sequence.ErrExists) || se.Code != sequence.CodeDuplicateTable ||
			se.Message != `relation "S" already exists` {
			t.Fatalf("second Create: %v", err)
		}
	}
	info, err := b.Describe(t.Context(), `"S"`)
	if err != nil || info.Position != spec.Initial() || info.Version != 1 {
		t.Fatalf("Describe after failed Create = %+v, %v; want the original", info, err)
	}
}

// TestCreateInvalid: the store refuses what CREATE SEQUENCE refuses.
func TestCreateInvalid(t *testing.T) {
	st := testStore(t)
	spec := sequence.DefaultSpec()
	tests := []struct {
		name string
		spec sequence.Spec
		pos  sequence.Position
	}{
		{"zero increment", func() sequence.Spec { s := spec; s.Increment = 0; return s }(), spec.Initial()},
		{"position below min", spec, sequence.Position{Last: 0}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			err := st.Create(t.Context(), "bad", tt.spec, tt.pos)
			if !errors.Is(err, sequence.ErrInvalid) {
				t.Fatalf("Create = %v, want ErrInvalid", err)
			}
		})
	}
	if _, err := st.Describe(t.Context(), "bad"); !errors.Is(err, sequence.ErrNotFound) {
		t.Fatalf("Describe after refused Create: %v", err)
	}
}

func TestCreateTable(t *testing.T) {
	client := testClient(t)
	table := testTable(t)
	ctx, cancel := context.WithTimeout(t.Context(), 30*time.Second)
	defer cancel()
	if err := dynamostore.CreateTable(ctx, client, table); err != nil {
		t.Fatalf("CreateTable on an existing table: %v", err)
	}
	other := table + "-other"
	if _, err := client.CreateTable(ctx, &dynamodb.CreateTableInput{
		TableName:            &other,
		BillingMode:          "PAY_PER_REQUEST",
		AttributeDefinitions: []types.AttributeDefinition{{AttributeName: ptr("id"), AttributeType: "S"}},
		KeySchema:            []types.KeySchemaElement{{AttributeName: ptr("id"), KeyType: "HASH"}},
	}); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _, _ = client.DeleteTable(context.Background(), &dynamodb.DeleteTableInput{TableName: &other}) })
	if err := dynamostore.CreateTable(ctx, client, other); !errors.Is(err, dynamostore.ErrTableSchema) {
		t.Fatalf("CreateTable on a table with another key: %v", err)
	}
	out, err := client.DescribeTable(ctx, &dynamodb.DescribeTableInput{TableName: &table})
	if err != nil {
		t.Fatal(err)
	}
	if out.Table.TableStatus != "ACTIVE" || out.Table.BillingModeSummary == nil || out.Table.BillingModeSummary.BillingMode != "PAY_PER_REQUEST" {
		t.Fatalf("table %+v: want ACTIVE, on-demand", out.Table)
	}
}

func ptr[T any](v T) *T { return &v }
