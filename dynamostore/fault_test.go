package dynamostore_test

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math/rand/v2"
	"net"
	"net/http"
	"slices"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/smithy-go"

	"github.com/seqshim/seqshim/dynamostore"
	"github.com/seqshim/seqshim/seqcache"
	"github.com/seqshim/seqshim/sequence"
)

// faultyHTTP is an aws.HTTPClient that injects faults between the SDK and
// dynalite: a throttling error instead of sending the request (nothing
// applied), or a connection reset instead of a successful response that the
// server has applied (the ambiguous case). For every reservation whose
// response it throws away it records the block the response held.
type faultyHTTP struct {
	inner              aws.HTTPClient
	throttle, drop     float64 // probabilities per request
	step               int64   // the sequence's increment, to rebuild dropped blocks
	mu                 sync.Mutex
	rng                *rand.Rand
	lost               []sequence.Block
	requests, injected int
}

var _ aws.HTTPClient = (*faultyHTTP)(nil)

var throttleBodies = []string{
	`{"__type":"com.amazonaws.dynamodb.v20120810#ThrottlingException","message":"Rate of requests exceeds the allowed throughput."}`,
	`{"__type":"com.amazonaws.dynamodb.v20120810#ProvisionedThroughputExceededException","message":"The level of configured provisioned throughput for the table was exceeded."}`,
}

func (f *faultyHTTP) Do(r *http.Request) (*http.Response, error) {
	body, err := io.ReadAll(r.Body)
	if err != nil {
		return nil, err
	}
	r.Body.Close()
	r.Body = io.NopCloser(bytes.NewReader(body))
	f.mu.Lock()
	f.requests++
	p := f.rng.Float64()
	throttle := p < f.throttle
	drop := !throttle && f.rng.Float64() < f.drop
	which := f.rng.IntN(len(throttleBodies))
	f.mu.Unlock()

	if throttle {
		f.count()
		return &http.Response{
			Status: "400 Bad Request", StatusCode: http.StatusBadRequest,
			Proto: "HTTP/1.1", ProtoMajor: 1, ProtoMinor: 1,
			Header: http.Header{
				"Content-Type":     {"application/x-amz-json-1.0"},
				"X-Amzn-Requestid": {"seqshim-fault"},
			},
			Body:          io.NopCloser(strings.NewReader(throttleBodies[which])),
			ContentLength: int64(len(throttleBodies[which])),
			Request:       r,
		}, nil
	}
	resp, err := f.inner.Do(r)
	if err != nil || resp.StatusCode != http.StatusOK || !drop {
		return resp, err
	}
	// The server applied the request; the caller will never know.
	out, err := io.ReadAll(resp.Body)
	resp.Body.Close()
	if err != nil {
		return nil, err
	}
	if strings.HasSuffix(r.Header.Get("X-Amz-Target"), ".UpdateItem") {
		if b, ok := f.reservation(body, out); ok {
			f.mu.Lock()
			f.lost = append(f.lost, b)
			f.mu.Unlock()
		}
	}
	f.count()
	return nil, &net.OpError{Op: "read", Net: "tcp", Err: syscall.ECONNRESET}
}

func (f *faultyHTTP) count() {
	f.mu.Lock()
	f.injected++
	f.mu.Unlock()
}

// reservation rebuilds the block of a reservation from its request (the
// value count :cnt) and response (the new position).
func (f *faultyHTTP) reservation(req, resp []byte) (sequence.Block, bool) {
	var in struct {
		ExpressionAttributeValues map[string]struct{ N string }
	}
	var out struct {
		Attributes map[string]struct{ N string }
	}
	if json.Unmarshal(req, &in) != nil || json.Unmarshal(resp, &out) != nil {
		return sequence.Block{}, false
	}
	cnt, err1 := strconv.ParseInt(in.ExpressionAttributeValues[":cnt"].N, 10, 64)
	last, err2 := strconv.ParseInt(out.Attributes["last"].N, 10, 64)
	if err1 != nil || err2 != nil {
		return sequence.Block{}, false // not a reservation (Release, admin)
	}
	return sequence.Block{First: last - (cnt-1)*f.step, Step: f.step, Count: cnt}, true
}

// TestFaults: several processes reserve through a network that throttles
// 10% of requests and resets the connection after 30% of the successful
// responses. No value is ever handed out twice; the values lost are exactly
// those of the dropped responses (received and lost blocks tile the
// sequence); every failed call returns an error before its deadline.
func TestFaults(t *testing.T) {
	tests := []struct {
		name    string
		clauses sequence.Clauses
		limit   bool // the sequence runs out during the test
	}{
		{"unbounded", sequence.Clauses{Increment: sequence.Int64(2)}, false},
		// Near MAXVALUE every reservation is a read and a compare-and-set.
		{"to max", sequence.Clauses{MaxValue: sequence.Int64(4000)}, true},
	}
	for i, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			spec, pos, err := tt.clauses.Create()
			if err != nil {
				t.Fatal(err)
			}
			fh := &faultyHTTP{inner: http.DefaultClient, throttle: 0.1, drop: 0.3, step: spec.Increment,
				rng: rand.New(rand.NewPCG(uint64(i), uint64(time.Now().UnixNano())))}
			// No SDK retries: every request is one attempt, so "dropped" is
			// exactly what faultyHTTP saw.
			client := testClient(t, func(o *dynamodb.Options) {
				o.HTTPClient = fh
				o.Retryer = aws.NopRetryer{}
			})
			table := testTable(t)
			admin := dynamostore.New(testClient(t), table)
			if err := admin.Create(t.Context(), "s", spec, pos); err != nil {
				t.Fatal(err)
			}

			const procs, perProc, calls = 3, 3, 120
			var (
				mu       sync.Mutex
				received []sequence.Block
				failures = map[string]int{}
				wg       sync.WaitGroup
			)
			for p := range procs {
				st := dynamostore.New(client, table, func(o *dynamostore.Options) { o.Backoff = time.Millisecond })
				for g := range perProc {
					rng := rand.New(rand.NewPCG(uint64(p), uint64(g)))
					wg.Go(func() {
						for range calls {
							ctx, cancel := context.WithTimeout(t.Context(), 10*time.Second)
							b, err := st.Reserve(ctx, "s", 1+rng.Int64N(40))
							cancel()
							mu.Lock()
							switch {
							case err == nil:
								received = append(received, b)
							case errors.Is(err, context.DeadlineExceeded):
								t.Errorf("Reserve hung until its deadline: %v", err)
							case errors.Is(err, sequence.ErrLimit) && tt.limit:
								failures["limit"]++
							case errors.Is(err, sequence.ErrConflict):
								failures["conflict"]++
							case sequence.IsTransient(err) && !errors.As(err, new(*sequence.Error)):
								failures[kind(err)]++
							default:
								t.Errorf("Reserve: unexpected error %v", err)
							}
							mu.Unlock()
						}
					})
				}
			}
			wg.Wait()

			// Zero duplicates, and received ∪ lost is exactly START..last.
			checkTiling(t, spec, received, fh.lost)
			info, err := admin.Describe(t.Context(), "s")
			if err != nil {
				t.Fatal(err)
			}
			var last int64 = spec.Start - spec.Increment
			for _, b := range append(received, fh.lost...) {
				last = max(last, b.Last())
			}
			if info.Position != (sequence.Position{Last: last, Called: true}) {
				t.Fatalf("final position %+v, want {%d true}: values lost beyond the dropped blocks", info.Position, last)
			}
			if n := int64(len(received) + len(fh.lost)); info.Reservations != n {
				t.Fatalf("store counted %d reservations, %d received + %d lost", info.Reservations, len(received), len(fh.lost))
			}
			if tt.limit && failures["limit"] == 0 {
				t.Fatalf("the sequence never reached its limit: test too short")
			}
			if failures["reset"] == 0 || failures["throttled"] == 0 {
				t.Fatalf("faults not seen by callers: %v", failures)
			}
			t.Logf("%d requests, %d faults injected; %d blocks received, %d lost; failures %v",
				fh.requests, fh.injected, len(received), len(fh.lost), failures)
		})
	}
}

// kind classifies a transient error for the test log.
func kind(err error) string {
	var ne *net.OpError
	var ae smithy.APIError
	switch {
	case errors.As(err, &ne) && errors.Is(err, syscall.ECONNRESET):
		return "reset"
	case errors.As(err, &ae) && (ae.ErrorCode() == "ThrottlingException" || ae.ErrorCode() == "ProvisionedThroughputExceededException"):
		return "throttled"
	}
	return fmt.Sprintf("other: %v", err)
}

// TestFaultsCache: caches of several processes over the faulty network,
// with the recovery of lost answers on and off. Next either returns a value
// nobody else got or an error, before its deadline; every block recovered
// is one whose response was dropped; the blocks received and the dropped
// ones not recovered tile the sequence. The values of those are the waste
// each mode reports.
func TestFaultsCache(t *testing.T) {
	for _, recovery := range []bool{true, false} {
		name := map[bool]string{true: "recovery on", false: "recovery off"}[recovery]
		t.Run(name, func(t *testing.T) { faultsCache(t, recovery, name) })
	}
}

func faultsCache(t *testing.T, recovery bool, mode string) {
	spec, pos, _ := sequence.Clauses{}.Create()
	fh := &faultyHTTP{inner: http.DefaultClient, throttle: 0.1, drop: 0.3, step: spec.Increment,
		rng: rand.New(rand.NewPCG(7, uint64(time.Now().UnixNano())))}
	client := testClient(t, func(o *dynamodb.Options) {
		o.HTTPClient = fh
		o.Retryer = aws.NopRetryer{}
	})
	table := testTable(t)
	admin := dynamostore.New(testClient(t), table)
	if err := admin.Create(t.Context(), "s", spec, pos); err != nil {
		t.Fatal(err)
	}
	const procs, perProc, calls = 4, 4, 2000
	var (
		log    blockLog
		mu     sync.Mutex
		values = map[int64]bool{}
		errs   int
		wg     sync.WaitGroup
	)
	caches := make([]*seqcache.Cache, procs)
	for p := range caches {
		caches[p] = seqcache.New(recorder{Store: dynamostore.New(client, table), log: &log}, func(o *seqcache.Options) {
			o.MinBlock, o.MaxBlock = 20, 200
			o.MaxWait = 2 * time.Second
			o.NoRecovery = !recovery
		})
		for range perProc {
			wg.Go(func() {
				h := caches[p].Handle("s")
				for range calls {
					ctx, cancel := context.WithTimeout(t.Context(), 10*time.Second)
					v, err := h.Next(ctx)
					cancel()
					mu.Lock()
					switch {
					case err == nil && values[v]:
						t.Errorf("value %d handed out twice", v)
					case err == nil:
						values[v] = true
					case errors.Is(err, context.DeadlineExceeded):
						t.Errorf("Next hung until its deadline: %v", err)
					default:
						errs++
					}
					mu.Unlock()
				}
			})
		}
	}
	wg.Wait()
	log.freeze() // released values are never reserved again in this test
	var recoveries int64
	for _, c := range caches {
		recoveries += c.Handle("s").Stats().Recoveries
		_ = c.Close() // releases may fail on the faulty network; they are gaps then
	}
	// Every block recovered was dropped on the way back; the others dropped
	// are the gaps.
	gaps := slices.Clone(fh.lost)
	for _, b := range log.recovered {
		i := slices.IndexFunc(gaps, func(g sequence.Block) bool { // the values; a recovered block also carries Gen
			return g.First == b.First && g.Step == b.Step && g.Count == b.Count
		})
		if i < 0 {
			t.Fatalf("recovered block %+v is no dropped response's", b)
		}
		gaps = slices.Delete(gaps, i, i+1)
	}
	if int64(len(log.recovered)) != recoveries {
		t.Errorf("%d blocks recovered, the caches counted %d", len(log.recovered), recoveries)
	}
	// Releases change the final position, not which blocks were taken.
	checkTiling(t, spec, log.blocks, gaps)
	for v := range values {
		if !slices.ContainsFunc(log.blocks, func(b sequence.Block) bool { return b.Contains(v) }) {
			t.Fatalf("value %d is in no block received", v)
		}
	}
	if len(fh.lost) == 0 {
		t.Fatal("no response dropped: the test tested nothing")
	}
	if recovery && len(log.recovered) == 0 {
		t.Fatalf("%d responses dropped, none recovered", len(fh.lost))
	}
	if !recovery && len(log.recovered) != 0 {
		t.Fatalf("%d blocks recovered with recovery off", len(log.recovered))
	}
	var issued, wasted int64
	for _, b := range log.blocks {
		issued += b.Count
	}
	for _, b := range gaps {
		issued += b.Count
		wasted += b.Count
	}
	t.Logf("%d values served, %d Next errors; %d blocks received (%d recovered), %d dropped; %d requests, %d faults",
		len(values), errs, len(log.blocks), len(log.recovered), len(fh.lost), fh.requests, fh.injected)
	fmt.Printf("dynamostore faults: %d values wasted in %d lost answers (%.1f%% of %d reserved), %d of %d lost answers recovered (%s)\n",
		wasted, len(gaps), 100*float64(wasted)/float64(max(issued, 1)), issued, len(log.recovered), len(fh.lost), mode)
}
