package dynamostore_test

import (
	"context"
	"errors"
	"net"
	"net/http"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/service/dynamodb"

	"github.com/seqshim/seqshim/dynamostore"
	"github.com/seqshim/seqshim/sequence"
)

// lossyAPI applies an UpdateItem and then loses its answer, or fails a
// GetItem without sending it, when told to.
type lossyAPI struct {
	dynamostore.API
	mu         sync.Mutex // guards the fields below
	loseUpdate bool       // the next successful UpdateItem's answer is lost
	failGet    bool       // every GetItem fails
	resend     bool       // a lost UpdateItem is sent again, as the SDK's retryer does
	blind      bool       // once an answer is lost, every GetItem fails
}

// loseBlind makes the next UpdateItem's answer lost and every GetItem after
// it fail, until set.
func (l *lossyAPI) loseBlind() {
	l.mu.Lock()
	l.loseUpdate, l.blind, l.failGet = true, true, false
	l.mu.Unlock()
}

var errLost = &net.OpError{Op: "read", Net: "tcp", Err: syscall.ECONNRESET}

func (l *lossyAPI) UpdateItem(ctx context.Context, in *dynamodb.UpdateItemInput, optFns ...func(*dynamodb.Options)) (*dynamodb.UpdateItemOutput, error) {
	out, err := l.API.UpdateItem(ctx, in, optFns...)
	l.mu.Lock()
	lose := err == nil && l.loseUpdate
	if lose {
		l.loseUpdate = false
		l.failGet = l.failGet || l.blind
	}
	resend := l.resend
	l.mu.Unlock()
	if lose && resend {
		return l.API.UpdateItem(ctx, in, optFns...)
	}
	if lose {
		return nil, errLost
	}
	return out, err
}

func (l *lossyAPI) GetItem(ctx context.Context, in *dynamodb.GetItemInput, optFns ...func(*dynamodb.Options)) (*dynamodb.GetItemOutput, error) {
	l.mu.Lock()
	fail := l.failGet
	l.mu.Unlock()
	if fail {
		return nil, &net.OpError{Op: "dial", Net: "tcp", Err: syscall.ECONNREFUSED}
	}
	return l.API.GetItem(ctx, in, optFns...)
}

func (l *lossyAPI) set(loseUpdate, failGet bool) {
	l.mu.Lock()
	l.loseUpdate, l.failGet, l.blind = loseUpdate, failGet, false
	l.mu.Unlock()
}

// TestRecover: a reservation applied by the store whose answer is lost, on
// every path a reservation takes, is recovered exactly (the block the model
// computes from the state before it), only with its own token, and only
// while nobody wrote a reservation or a release after it. The fast path
// with a remembered state checks that DynamoDB (dynalite in tests)
// evaluates tokfirst = last + :off against the item before the update.
func TestRecover(t *testing.T) {
	now := time.Date(2026, 3, 1, 12, 0, 0, 0, time.UTC)
	clock := func() time.Time { return now }
	tests := []struct {
		name    string
		clauses sequence.Clauses
		warm    int64 // values reserved (answer received) before the lost one; 0: none
		n       int64
	}{
		{"first use: a read, then the fast path", sequence.Clauses{}, 0, 10},
		{"fast path, tokfirst from the position before the update", sequence.Clauses{Increment: sequence.Int64(7)}, 3, 10},
		{"fast path, descending", sequence.Clauses{Increment: sequence.Int64(-3)}, 5, 20},
		{"compare-and-set at MAXVALUE", sequence.Clauses{MaxValue: sequence.Int64(100)}, 95, 10},
		{"compare-and-set wrapping with CYCLE", sequence.Clauses{MaxValue: sequence.Int64(10), Cycle: sequence.Bool(true)}, 10, 4},
		{"daily limit, fast path", sequence.Clauses{DailyLimit: sequence.Int64(1000)}, 5, 10},
		{"daily limit, truncated by compare-and-set", sequence.Clauses{DailyLimit: sequence.Int64(30)}, 25, 10},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			ctx := t.Context()
			client := testClient(t)
			table := testTable(t)
			admin := dynamostore.New(client, table, func(o *dynamostore.Options) { o.Now = clock })
			lossy := &lossyAPI{API: client}
			st := dynamostore.New(lossy, table, func(o *dynamostore.Options) { o.Now = clock })
			spec, pos, err := tt.clauses.Create()
			if err != nil {
				t.Fatal(err)
			}
			if err := admin.Create(ctx, "s", spec, pos); err != nil {
				t.Fatal(err)
			}
			if tt.warm > 0 {
				if _, err := st.Reserve(ctx, "s", tt.warm); err != nil {
					t.Fatal(err)
				}
			}
			before, err := admin.Describe(ctx, "s")
			if err != nil {
				t.Fatal(err)
			}
			want, wantPos, _, err := before.Spec.ReserveAt("s", before.Position, before.DayUsage, now, tt.n)
			if err != nil {
				t.Fatal(err)
			}

			tok := sequence.NewToken()
			lossy.loseBlind() // the answer lost, and ReserveToken's read-back too
			if b, err := st.ReserveToken(ctx, "s", tt.n, tok); !errors.Is(err, syscall.ECONNRESET) {
				t.Fatalf("ReserveToken with the answer lost = %+v, %v; want the reset", b, err)
			}
			lossy.set(false, false)
			after, err := admin.Describe(ctx, "s")
			if err != nil {
				t.Fatal(err)
			}
			if after.Position != wantPos {
				t.Fatalf("position after the lost reservation %+v, want %+v: it was not applied", after.Position, wantPos)
			}
			if b, ok, err := st.Recover(ctx, "s", sequence.NewToken()); ok || err != nil {
				t.Fatalf("Recover with another token = %+v, %v, %v; want false, nil", b, ok, err)
			}
			if b, ok, err := st.Recover(ctx, "s", sequence.Token{}); ok || err != nil {
				t.Fatalf("Recover with the zero token = %+v, %v, %v; want false, nil", b, ok, err)
			}
			want.Gen = after.Gen // a recovered block carries its incarnation, as a reserved one does
			got, ok, err := st.Recover(ctx, "s", tok)
			if err != nil || !ok || got != want {
				t.Fatalf("Recover = %+v, %v, %v; want %+v, true, nil", got, ok, err, want)
			}
			// A request whose answer was lost and that is sent again (by a
			// retrying layer that does not know better) is one reservation:
			// ReserveToken returns its block (where the sequence has values
			// left).
			before, err = admin.Describe(ctx, "s")
			if err != nil {
				t.Fatal(err)
			}
			if want2, wantPos2, _, err := before.Spec.ReserveAt("s", before.Position, before.DayUsage, now, tt.n); err == nil {
				want2.Gen = before.Gen
				lossy.mu.Lock()
				lossy.loseUpdate, lossy.resend = true, true
				lossy.mu.Unlock()
				if b, err := st.ReserveToken(ctx, "s", tt.n, sequence.NewToken()); err != nil || b != want2 {
					t.Fatalf("ReserveToken with its request sent twice = %+v, %v; want %+v", b, err, want2)
				}
				if after, err := admin.Describe(ctx, "s"); err != nil || after.Position != wantPos2 {
					t.Fatalf("position after a request sent twice %+v, %v; want %+v (one reservation)", after.Position, err, wantPos2)
				}
				if _, ok, _ := st.Recover(ctx, "s", tok); ok {
					t.Fatal("the first token still proves its block after another reservation")
				}
				lossy.set(false, false)
				got = want2
			}
			// The recovered block is the latest reservation: its tail goes
			// back like a received block's, and the proof with it.
			if ok, err := st.Release(ctx, "s", got.Tail(1)); err != nil || !ok {
				t.Fatalf("Release of the recovered block's tail = %v, %v; want true", ok, err)
			}
			if b, ok, err := st.Recover(ctx, "s", tok); ok || err != nil {
				t.Fatalf("Recover after a release = %+v, %v, %v; want false, nil", b, ok, err)
			}
		})
	}
}

// TestRecoverNoProof: a reservation after the lost one, with a token or
// without, takes the proof away; a read-back that fails is an error, and
// the block stays a gap.
func TestRecoverNoProof(t *testing.T) {
	for _, tt := range []struct {
		name  string
		after func(ctx context.Context, st *dynamostore.Store) error
	}{
		{"another reservation without a token", func(ctx context.Context, st *dynamostore.Store) error {
			_, err := st.Reserve(ctx, "s", 5)
			return err
		}},
		{"another reservation with a token", func(ctx context.Context, st *dynamostore.Store) error {
			_, err := st.ReserveToken(ctx, "s", 5, sequence.NewToken())
			return err
		}},
		{"dropped and created again", func(ctx context.Context, st *dynamostore.Store) error {
			if err := st.Drop(ctx, "s"); err != nil {
				return err
			}
			return st.Create(ctx, "s", sequence.DefaultSpec(), sequence.DefaultSpec().Initial())
		}},
	} {
		t.Run(tt.name, func(t *testing.T) {
			ctx := t.Context()
			client := testClient(t)
			table := testTable(t)
			other := dynamostore.New(client, table) // another process
			lossy := &lossyAPI{API: client}
			st := dynamostore.New(lossy, table)
			if err := other.Create(ctx, "s", sequence.DefaultSpec(), sequence.DefaultSpec().Initial()); err != nil {
				t.Fatal(err)
			}
			tok := sequence.NewToken()
			lossy.loseBlind() // the answer lost, and ReserveToken's read-back too
			if _, err := st.ReserveToken(ctx, "s", 10, tok); err == nil {
				t.Fatal("ReserveToken succeeded with its answer lost")
			}
			lossy.set(false, false)
			if err := tt.after(ctx, other); err != nil {
				t.Fatal(err)
			}
			if b, ok, err := st.Recover(ctx, "s", tok); ok || err != nil {
				t.Fatalf("Recover = %+v, %v, %v; want false, nil", b, ok, err)
			}
		})
	}
	t.Run("read-back fails", func(t *testing.T) {
		ctx := t.Context()
		client := testClient(t)
		table := testTable(t)
		lossy := &lossyAPI{API: client}
		st := dynamostore.New(lossy, table)
		if err := st.Create(ctx, "s", sequence.DefaultSpec(), sequence.DefaultSpec().Initial()); err != nil {
			t.Fatal(err)
		}
		tok := sequence.NewToken()
		lossy.loseBlind() // the answer lost, and ReserveToken's read-back too
		if _, err := st.ReserveToken(ctx, "s", 10, tok); err == nil {
			t.Fatal("ReserveToken succeeded with its answer lost")
		}
		lossy.set(false, true)
		b, ok, err := st.Recover(ctx, "s", tok)
		if ok || !errors.Is(err, syscall.ECONNREFUSED) {
			t.Fatalf("Recover with the read failing = %+v, %v, %v; want false and the error", b, ok, err)
		}
		// The next reservation starts after the lost block: a gap, no reuse.
		lossy.set(false, false)
		next, err := st.Reserve(ctx, "s", 1)
		if err != nil || next.First != 11 {
			t.Fatalf("Reserve after the gap = %+v, %v; want first value 11", next, err)
		}
	})
}

// dropFirst is an aws.HTTPClient that forwards every request and throws
// away the response of the first UpdateItem (the server applied it), and
// counts the UpdateItem requests sent.
type dropFirst struct {
	mu      sync.Mutex // guards updates
	updates int
}

func (d *dropFirst) Do(r *http.Request) (*http.Response, error) {
	resp, err := http.DefaultClient.Do(r)
	if !strings.HasSuffix(r.Header.Get("X-Amz-Target"), ".UpdateItem") {
		return resp, err
	}
	d.mu.Lock()
	d.updates++
	first := d.updates == 1
	d.mu.Unlock()
	if first && err == nil {
		resp.Body.Close()
		return nil, errLost
	}
	return resp, err
}

// TestReserveTokenNotResent: with the SDK's standard retryer, a reservation
// made with a token whose response is lost is not sent again (it may have
// been applied): the error comes back at once, after one request, and
// Recover finds the block. Without a token the SDK retries as usual.
func TestReserveTokenNotResent(t *testing.T) {
	for _, withToken := range []bool{true, false} {
		t.Run(map[bool]string{true: "token", false: "no token"}[withToken], func(t *testing.T) {
			ctx := t.Context()
			d := &dropFirst{}
			client := testClient(t, func(o *dynamodb.Options) { o.HTTPClient = d }) // the default retryer
			table := testTable(t)
			st := dynamostore.New(client, table)
			if err := dynamostore.New(testClient(t), table).Create(ctx, "s", sequence.DefaultSpec(), sequence.DefaultSpec().Initial()); err != nil {
				t.Fatal(err)
			}
			if !withToken {
				b, err := st.Reserve(ctx, "s", 10)
				if err != nil || b.First < 11 || d.updates < 2 {
					t.Fatalf("Reserve = %+v, %v after %d UpdateItem requests; want a retry's block, after 1..10", b, err, d.updates)
				}
				return
			}
			tok := sequence.NewToken()
			if b, err := st.ReserveToken(ctx, "s", 10, tok); err == nil || d.updates != 1 {
				t.Fatalf("ReserveToken = %+v, %v after %d UpdateItem requests; want the error after 1", b, err, d.updates)
			}
			if b, ok, err := st.Recover(ctx, "s", tok); err != nil || !ok || b.First != 1 || b.Step != 1 || b.Count != 10 || b.Gen == 0 {
				t.Fatalf("Recover = %+v, %v, %v; want 1..10", b, ok, err)
			}
		})
	}
}
