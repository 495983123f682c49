package cosmosstore_test

import (
	"context"
	"errors"
	"io"
	"net/http"
	"os"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/Azure/azure-sdk-for-go/sdk/azcore/policy"
	"github.com/Azure/azure-sdk-for-go/sdk/data/azcosmos"

	"github.com/seqshim/seqshim/cosmosstore"
	"github.com/seqshim/seqshim/internal/testkit/testenv"
	"github.com/seqshim/seqshim/seqcache"
	"github.com/seqshim/seqshim/sequence"
)

// faults sits between the SDK and the emulator: it answers the requests a
// rule matches itself, or forwards them and loses the answer.
type faults struct {
	mu    sync.Mutex
	rules []*rule
	seen  int // requests that reached the emulator
}

type rule struct {
	method string // "PUT" (replace), "POST" (create), ...
	times  int    // how many more requests it takes; -1: all
	status int    // the answer, without forwarding; 0: forward and lose the answer
	header http.Header
}

func (f *faults) add(r *rule) {
	f.mu.Lock()
	f.rules = append(f.rules, r)
	f.mu.Unlock()
}

func (f *faults) clear() {
	f.mu.Lock()
	f.rules = nil
	f.mu.Unlock()
}

func (f *faults) Do(req *http.Request) (*http.Response, error) {
	f.mu.Lock()
	var match *rule
	if strings.Contains(req.URL.Path, "/docs") {
		for _, r := range f.rules {
			if r.times != 0 && r.method == req.Method {
				match = r
				if r.times > 0 {
					r.times--
				}
				break
			}
		}
	}
	f.mu.Unlock()
	if match != nil && match.status != 0 {
		h := match.header.Clone()
		if h == nil {
			h = http.Header{}
		}
		h.Set("Content-Type", "application/json")
		return &http.Response{
			StatusCode: match.status, Status: http.StatusText(match.status), Header: h, Request: req,
			Body: io.NopCloser(strings.NewReader(`{"code":"Injected","message":"injected by the test"}`)),
		}, nil
	}
	resp, err := http.DefaultTransport.RoundTrip(req)
	if err == nil {
		f.mu.Lock()
		f.seen++
		f.mu.Unlock()
	}
	if match != nil && err == nil {
		_, _ = io.Copy(io.Discard, resp.Body)
		resp.Body.Close()
		return nil, errors.New("injected: the connection broke after the request was sent")
	}
	return resp, err
}

// faultyStore opens a Store on a new container through faults, with the
// SDK's retries quick.
func faultyStore(t *testing.T, optFns ...func(*cosmosstore.Options)) (*cosmosstore.Store, *faults) {
	t.Helper()
	c := testenv.NewCosmosContainer(t)
	f := &faults{}
	opts := append([]func(*cosmosstore.Options){func(o *cosmosstore.Options) {
		o.ClientOptions = &azcosmos.ClientOptions{ClientOptions: policy.ClientOptions{
			Transport: f,
			Retry:     policy.RetryOptions{RetryDelay: time.Millisecond, MaxRetryDelay: 5 * time.Millisecond},
		}}
	}}, optFns...)
	st, err := cosmosstore.Open(context.Background(), c.URL(""), opts...)
	if err != nil {
		t.Fatal(err)
	}
	return st, f
}

func createSeq(t *testing.T, st *cosmosstore.Store, name string) {
	t.Helper()
	spec := sequence.DefaultSpec()
	if err := st.Create(context.Background(), name, spec, spec.Initial()); err != nil {
		t.Fatal(err)
	}
}

func reserve(t *testing.T, st sequence.Reserver, name string, n, first int64) sequence.Block {
	t.Helper()
	b, err := st.Reserve(context.Background(), name, n)
	if err != nil {
		t.Fatalf("Reserve(%d): %v", n, err)
	}
	if b.First != first || b.Count != n {
		t.Fatalf("Reserve(%d) = %d values from %d, want %d from %d", n, b.Count, b.First, n, first)
	}
	return b
}

// TestThrottled: a 429 waits the service's retry-after and is retried, up
// to MaxAttempts; then the error is marked sequence.ErrThrottled (which a
// cache's sizing takes as back-pressure), transient, and names the
// container.
func TestThrottled(t *testing.T) {
	st, f := faultyStore(t, func(o *cosmosstore.Options) { o.MaxAttempts = 5 })
	createSeq(t, st, "public.s")
	reserve(t, st, "public.s", 10, 1)

	throttle := http.Header{"X-Ms-Retry-After-Ms": {"3"}, "X-Ms-Request-Charge": {"0.2"}}
	f.add(&rule{method: http.MethodPut, times: 3, status: http.StatusTooManyRequests, header: throttle})
	before := st.Stats()
	reserve(t, st, "public.s", 10, 11)
	if got := st.Stats().Throttles - before.Throttles; got != 3 {
		t.Errorf("%d throttled requests counted, want 3", got)
	}

	f.add(&rule{method: http.MethodPut, times: -1, status: http.StatusTooManyRequests, header: throttle})
	before = st.Stats()
	_, err := st.Reserve(context.Background(), "public.s", 10)
	if !errors.Is(err, sequence.ErrThrottled) || !sequence.IsTransient(err) {
		t.Fatalf("Reserve while throttled: %v; want an error marked ErrThrottled, transient", err)
	}
	if !strings.Contains(err.Error(), "Cosmos DB container") {
		t.Errorf("%q does not name the container", err)
	}
	if got := st.Stats().Throttles - before.Throttles; got != 5 {
		t.Errorf("%d throttled requests before giving up, want MaxAttempts (5)", got)
	}
	f.clear()
	reserve(t, st, "public.s", 10, 21) // the throttled attempts wrote nothing

	// A throttled read is waited out as well: a lost race (412) makes the
	// next reservation read the document, and that read is throttled twice.
	f.add(&rule{method: http.MethodGet, times: 2, status: http.StatusTooManyRequests, header: throttle})
	f.add(&rule{method: http.MethodPut, times: 1, status: http.StatusPreconditionFailed})
	before = st.Stats()
	reserve(t, st, "public.s", 10, 31)
	if got := st.Stats(); got.Throttles-before.Throttles != 2 || got.Conflicts-before.Conflicts != 1 {
		t.Errorf("%d throttled reads and %d lost races counted, want 2 and 1", got.Throttles-before.Throttles, got.Conflicts-before.Conflicts)
	}
}

// TestLostAnswer: a replace applied whose answer is lost is sent again by
// the SDK and refused with 412 (the ETag moved). A reservation with a token
// finds its token in the document read then and returns that block: no
// gap. One without a token reserves again: its lost block is a gap, never
// handed out twice.
func TestLostAnswer(t *testing.T) {
	st, f := faultyStore(t)
	createSeq(t, st, "public.s")
	reserve(t, st, "public.s", 10, 1)

	f.add(&rule{method: http.MethodPut, times: 1})
	b, err := st.ReserveToken(context.Background(), "public.s", 5, sequence.NewToken())
	if err != nil {
		t.Fatal(err)
	}
	if b.First != 11 || b.Count != 5 {
		t.Errorf("ReserveToken after a lost answer = %d values from %d, want the applied block, 5 from 11", b.Count, b.First)
	}

	f.add(&rule{method: http.MethodPut, times: 1})
	reserve(t, st, "public.s", 5, 21) // 16..20 applied, answer lost: a gap
	info, err := st.Describe(context.Background(), "public.s")
	if err != nil {
		t.Fatal(err)
	}
	if info.Position.Last != 25 || info.Reservations != 4 {
		t.Errorf("position %d after %d reservations, want 25 after 4", info.Position.Last, info.Reservations)
	}

	// A token whose reservation was lost and not retried is recovered by
	// Recover, once, as long as nobody reserved after it.
	tok := sequence.NewToken()
	f.add(&rule{method: http.MethodPut, times: -1})
	if _, err := st.ReserveToken(context.Background(), "public.s", 5, tok); err == nil {
		t.Fatal("ReserveToken through a broken connection succeeded")
	}
	f.clear()
	got, ok, err := st.Recover(context.Background(), "public.s", tok)
	if err != nil || !ok || got.First != 26 || got.Count != 5 {
		t.Errorf("Recover = %+v, %v, %v; want 5 values from 26", got, ok, err)
	}
	reserve(t, st, "public.s", 1, 31)
	if _, ok, err := st.Recover(context.Background(), "public.s", tok); ok || err != nil {
		t.Errorf("Recover after another reservation = %v, %v; want false, nil", ok, err)
	}
}

// TestMisconfigured: answers only a change of configuration fixes are
// marked sequence.ErrMisconfigured (a cache fails at once) and say what to
// do.
func TestMisconfigured(t *testing.T) {
	for _, tt := range []struct {
		status int
		want   string
	}{
		{http.StatusUnauthorized, "AZURE_COSMOS_KEY"},
		{http.StatusForbidden, "role"},
	} {
		st, f := faultyStore(t)
		createSeq(t, st, "public.s")
		f.add(&rule{method: http.MethodGet, times: -1, status: tt.status})
		f.add(&rule{method: http.MethodPut, times: -1, status: tt.status})
		_, err := st.Reserve(context.Background(), "public.s", 1)
		if !errors.Is(err, sequence.ErrMisconfigured) || sequence.IsTransient(err) || !strings.Contains(err.Error(), tt.want) {
			t.Errorf("Reserve answered %d: %v; want ErrMisconfigured, not transient, naming %q", tt.status, err, tt.want)
		}
	}

	c := testenv.CosmosContainerToCreate(t) // not created
	st, err := c.Store()
	if err != nil {
		t.Fatal(err)
	}
	err = st.Check(context.Background())
	if !errors.Is(err, sequence.ErrMisconfigured) || !strings.Contains(err.Error(), "seqctl init") {
		t.Errorf("Check of a missing container: %v; want ErrMisconfigured naming seqctl init", err)
	}
	// A container partitioned on another path is refused.
	ctx := context.Background()
	if _, err := c.Client.CreateDatabase(ctx, azcosmos.DatabaseProperties{ID: c.Database}, nil); err != nil {
		t.Fatal(err)
	}
	db, _ := c.Client.NewDatabase(c.Database)
	props := azcosmos.ContainerProperties{ID: c.Container, PartitionKeyDefinition: azcosmos.PartitionKeyDefinition{Paths: []string{"/pk"}}}
	if _, err := db.CreateContainer(ctx, props, nil); err != nil {
		t.Fatal(err)
	}
	for what, err := range map[string]error{"Check": st.Check(ctx), "Init": st.Init(ctx)} {
		if !errors.Is(err, cosmosstore.ErrContainerSchema) || !errors.Is(err, sequence.ErrMisconfigured) {
			t.Errorf("%s of a container partitioned on /pk: %v; want ErrContainerSchema, misconfigured", what, err)
		}
	}
}

// TestRenameInterrupted: a rename stopped after its fence (the new
// document's create failed) leaves neither name serving; the same rename
// repeated completes it, from the position the old name had, and repeating
// it once more succeeds.
func TestRenameInterrupted(t *testing.T) {
	st, f := faultyStore(t)
	ctx := context.Background()
	createSeq(t, st, "public.a")
	reserve(t, st, "public.a", 7, 1)
	f.add(&rule{method: http.MethodPost, times: 1, status: http.StatusBadRequest})
	if err := st.Rename(ctx, "public.a", "public.b"); err == nil {
		t.Fatal("Rename succeeded through a failed create")
	}
	for _, name := range []string{"public.a", "public.b"} {
		if _, err := st.Reserve(ctx, name, 1); !errors.Is(err, sequence.ErrNotFound) {
			t.Errorf("Reserve(%s) mid-rename: %v, want ErrNotFound", name, err)
		}
	}
	if err := st.Rename(ctx, "public.a", "public.c"); !errors.Is(err, sequence.ErrNotFound) {
		t.Errorf("another rename of the fenced name: %v, want ErrNotFound", err)
	}
	for range 2 {
		if err := st.Rename(ctx, "public.a", "public.b"); err != nil {
			t.Fatalf("the rename repeated: %v", err)
		}
	}
	reserve(t, st, "public.b", 1, 8)
	if _, err := st.Describe(ctx, "public.a"); !errors.Is(err, sequence.ErrNotFound) {
		t.Errorf("Describe of the old name: %v, want ErrNotFound", err)
	}
}

// TestNoCredentials: without AZURE_COSMOS_KEY, Open signs in with
// azidentity's default chain; where it finds no identity, the store is
// misconfigured and says what to set.
func TestNoCredentials(t *testing.T) {
	for _, k := range []string{cosmosstore.EnvKey, "AZURE_CLIENT_ID", "AZURE_TENANT_ID", "AZURE_CLIENT_SECRET", "AZURE_FEDERATED_TOKEN_FILE",
		"IDENTITY_ENDPOINT", "MSI_ENDPOINT", "AZURE_TOKEN_CREDENTIALS"} {
		t.Setenv(k, "") // restored at the end
		os.Unsetenv(k)
	}
	t.Setenv("PATH", t.TempDir()) // no az, azd or pwsh to ask
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	st, err := cosmosstore.Open(ctx, "cosmos://127.0.0.1:1/db/c")
	if err != nil {
		t.Fatal(err)
	}
	err = st.Check(ctx)
	if !errors.Is(err, sequence.ErrMisconfigured) || !strings.Contains(err.Error(), cosmosstore.EnvKey) {
		t.Errorf("Check without credentials: %v; want ErrMisconfigured naming %s", err, cosmosstore.EnvKey)
	}
}

// TestBrokenConnection: a write whose connection broke is a transient
// error (azcosmos marks it NonRetriable, as azidentity marks its own), not
// a configuration one.
func TestBrokenConnection(t *testing.T) {
	ctx := context.Background()
	st, f := faultyStore(t)
	createSeq(t, st, "public.s")
	f.add(&rule{method: http.MethodPut, times: -1})
	_, err := st.Reserve(ctx, "public.s", 1)
	if err == nil || errors.Is(err, sequence.ErrMisconfigured) || !sequence.IsTransient(err) {
		t.Errorf("Reserve through a broken connection: %v; want a transient error", err)
	}
}

// TestThrottledCache: a cache over the store counts Cosmos DB's 429s as
// throttling, which its sizing takes as back-pressure (longer spans, as
// for DynamoDB's ThrottlingException), and serves again once they stop.
func TestThrottledCache(t *testing.T) {
	st, f := faultyStore(t, func(o *cosmosstore.Options) { o.MaxAttempts = 2 })
	createSeq(t, st, "public.s")
	cache := seqcache.New(st, func(o *seqcache.Options) {
		o.MinBlock, o.MaxBlock, o.MaxWait = 5, 5, 200*time.Millisecond
	})
	defer cache.Close()
	ctx := context.Background()
	if _, err := cache.Next(ctx, "public.s"); err != nil {
		t.Fatal(err)
	}
	f.add(&rule{method: http.MethodPut, times: -1, status: http.StatusTooManyRequests, header: http.Header{"X-Ms-Retry-After-Ms": {"1"}}})
	var err error
	for range 20 {
		if _, err = cache.Next(ctx, "public.s"); err != nil {
			break
		}
	}
	if err == nil {
		t.Fatal("20 values served from blocks of 5 while every reservation was throttled")
	}
	if s := cache.Stats("public.s"); s.Throttled == 0 {
		t.Errorf("the cache counted no throttled store call: %+v", s)
	}
	f.clear()
	deadline := time.Now().Add(time.Minute)
	for {
		if _, err := cache.Next(ctx, "public.s"); err == nil {
			break
		} else if time.Now().After(deadline) {
			t.Fatalf("no value a minute after the throttling stopped: %v", err)
		}
	}
}
