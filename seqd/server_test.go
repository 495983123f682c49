package seqd_test

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"connectrpc.com/connect"

	"github.com/seqshim/seqshim/dynamostore"
	"github.com/seqshim/seqshim/internal/testkit/testenv"
	"github.com/seqshim/seqshim/memstore"
	"github.com/seqshim/seqshim/seqcache"
	"github.com/seqshim/seqshim/seqd"
	"github.com/seqshim/seqshim/seqd/seqdv1"
	"github.com/seqshim/seqshim/seqd/seqdv1/seqdv1connect"
	"github.com/seqshim/seqshim/seqdstore"
	"github.com/seqshim/seqshim/sequence"
	"github.com/seqshim/seqshim/sequence/storetest"
	"github.com/seqshim/seqshim/sqlstore"
	_ "github.com/seqshim/seqshim/sqlstore/sqlite"
)

// serve starts a server on st over loopback HTTP for the test and returns
// its URL.
func serve(t testing.TB, cfg seqd.Config) (*seqd.Server, *httptest.Server) {
	t.Helper()
	srv, err := seqd.New(cfg)
	if err != nil {
		t.Fatal(err)
	}
	hs := httptest.NewServer(srv.Handler())
	t.Cleanup(func() {
		hs.Close()
		if err := srv.Close(); err != nil {
			t.Errorf("server Close: %v", err)
		}
	})
	return srv, hs
}

// storeURL is the seqd+http URL of hs, with a token.
func storeURL(hs *httptest.Server, token string) string {
	u := "seqd+http://" + strings.TrimPrefix(hs.URL, "http://")
	if token != "" {
		u = "seqd+http://:" + token + "@" + strings.TrimPrefix(hs.URL, "http://")
	}
	return u
}

func open(t testing.TB, url string) *seqdstore.Store {
	t.Helper()
	st, err := seqdstore.Open(context.Background(), url)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { st.Close() })
	return st
}

// backing are the stores a server is tested in front of: each returns a
// fresh one (a shared one for the integration stores, with fresh names).
var backing = []struct {
	name string
	open func(t *testing.T) sequence.Store
}{
	{"memory", func(t *testing.T) sequence.Store { return memstore.New() }},
	{"sqlite", func(t *testing.T) sequence.Store {
		st, err := sqlstore.Open(context.Background(), "sqlite:"+filepath.Join(t.TempDir(), "seqs.db"))
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { st.Close() })
		return st
	}},
	{"postgres", func(t *testing.T) sequence.Store {
		st, err := sqlstore.Open(context.Background(), testenv.PG(t))
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { st.Close() })
		return st
	}},
	{"dynamodb", func(t *testing.T) sequence.Store {
		return testenv.NewDynamoTable(t).Store(func(o *dynamostore.Options) {})
	}},
}

// TestContract runs the store contract against the client store, through a
// server in front of every store, its cache off: the service is then
// exactly the store it serves.
func TestContract(t *testing.T) {
	for _, b := range backing {
		t.Run(b.name, func(t *testing.T) {
			_, hs := serve(t, seqd.Config{Store: b.open(t), Open: true, NoCache: true})
			storetest.Run(t, func(t *testing.T) sequence.Store { return open(t, storeURL(hs, "")) })
		})
	}
}

// TestCachedServer: clients draw through a server whose cache sits in front
// of the store; two servers share it. No value twice, far fewer store
// reservations than client requests, and a clean shutdown hands the unused
// values back.
func TestCachedServer(t *testing.T) {
	ctx := context.Background()
	st := memstore.New()
	spec := sequence.DefaultSpec()
	if err := st.Create(ctx, "orders_seq", spec, spec.Initial()); err != nil {
		t.Fatal(err)
	}
	cacheOpts := seqcache.Options{MinBlock: 500, MaxBlock: 5000}
	srvA, hsA := serve(t, seqd.Config{Store: st, Open: true, Cache: cacheOpts})
	_, hsB := serve(t, seqd.Config{Store: st, Open: true, Cache: cacheOpts})
	const clients, each = 16, 2000
	var (
		mu       sync.Mutex
		seen     = map[int64]int{}
		requests int
		wg       sync.WaitGroup
	)
	for i := range clients {
		hs := hsA
		if i%2 == 1 {
			hs = hsB
		}
		cs := open(t, storeURL(hs, ""))
		counting := &countingStore{Store: cs}
		c := seqcache.New(counting, func(o *seqcache.Options) { o.MinBlock = 20; o.MaxBlock = 100 })
		wg.Add(1)
		go func() {
			defer wg.Done()
			defer c.Close()
			for range each {
				v, err := c.Next(ctx, "orders_seq")
				if err != nil {
					t.Error(err)
					return
				}
				mu.Lock()
				if p, dup := seen[v]; dup {
					t.Errorf("value %d handed to client %d and client %d", v, p, i)
				}
				seen[v] = i
				mu.Unlock()
			}
			mu.Lock()
			requests += int(counting.n.Load())
			mu.Unlock()
		}()
	}
	wg.Wait()
	info, err := st.Describe(ctx, "orders_seq")
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("%d values to %d clients in %d client requests; %d store reservations", len(seen), clients, requests, info.Reservations)
	if len(seen) != clients*each {
		t.Fatalf("%d values, want %d", len(seen), clients*each)
	}
	if info.Reservations*4 > int64(requests) {
		t.Errorf("%d store reservations for %d client requests: the server's cache should absorb most", info.Reservations, requests)
	}
	before := info.Position
	if err := srvA.Close(); err != nil {
		t.Fatal(err)
	}
	stats := srvA.Stats()
	var released int64
	for _, s := range stats {
		released += s.Released
	}
	after, err := st.Describe(ctx, "orders_seq")
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("server A's shutdown released %d values; store position %+v, then %+v", released, before, after.Position)

	// A server alone on a counter hands its unused values back at shutdown:
	// the store stands at the last value a client got.
	if err := st.Create(ctx, "alone_seq", spec, spec.Initial()); err != nil {
		t.Fatal(err)
	}
	srvC, hsC := serve(t, seqd.Config{Store: st, Open: true, Cache: cacheOpts})
	b, err := open(t, storeURL(hsC, "")).Reserve(ctx, "alone_seq", 7)
	if err != nil || b.First != 1 || b.Count != 7 {
		t.Fatalf("a client's first block: %+v, %v", b, err)
	}
	if in, _ := st.Describe(ctx, "alone_seq"); in.Position.Last < 500 {
		t.Fatalf("the server reserved %+v: want a block of its own cache's size", in.Position)
	}
	if err := srvC.Close(); err != nil {
		t.Fatal(err)
	}
	if in, _ := st.Describe(ctx, "alone_seq"); in.Position != (sequence.Position{Last: 7, Called: true}) {
		t.Errorf("after the server's shutdown the store stands at %+v, want 7 (the last value a client got)", in.Position)
	}
}

// countingStore counts the reservations a client makes.
type countingStore struct {
	*seqdstore.Store
	n atomicInt
}

type atomicInt struct {
	mu sync.Mutex
	v  int64
}

func (a *atomicInt) Add(d int64) { a.mu.Lock(); a.v += d; a.mu.Unlock() }
func (a *atomicInt) Load() int64 { a.mu.Lock(); defer a.mu.Unlock(); return a.v }

func (c *countingStore) Reserve(ctx context.Context, name string, n int64) (sequence.Block, error) {
	c.n.Add(1)
	return c.Store.Reserve(ctx, name, n)
}

func (c *countingStore) ReserveToken(ctx context.Context, name string, n int64, tok sequence.Token) (sequence.Block, error) {
	c.n.Add(1)
	return c.Store.ReserveToken(ctx, name, n, tok)
}

func rawClient(hs *httptest.Server, token string) seqdv1connect.SequenceServiceClient {
	var opts []connect.ClientOption
	if token != "" {
		opts = append(opts, connect.WithInterceptors(connect.UnaryInterceptorFunc(func(next connect.UnaryFunc) connect.UnaryFunc {
			return func(ctx context.Context, req connect.AnyRequest) (connect.AnyResponse, error) {
				req.Header().Set("Authorization", "Bearer "+token)
				return next(ctx, req)
			}
		})))
	}
	return seqdv1connect.NewSequenceServiceClient(http.DefaultClient, hs.URL, opts...)
}

// TestIdempotentReserve: a retry with the token gets the same block, never
// a second; Recover of a token given nothing gives it up.
func TestIdempotentReserve(t *testing.T) {
	ctx := context.Background()
	st := memstore.New()
	spec := sequence.DefaultSpec()
	if err := st.Create(ctx, "s", spec, spec.Initial()); err != nil {
		t.Fatal(err)
	}
	for _, noCache := range []bool{false, true} {
		t.Run(fmt.Sprintf("nocache=%v", noCache), func(t *testing.T) {
			_, hs := serve(t, seqd.Config{Store: st, Open: true, NoCache: noCache})
			c := rawClient(hs, "")
			tok := sequence.NewToken().String()
			reserve := func(name, tok string, n int64) (*seqdv1.Block, error) {
				res, err := c.Reserve(ctx, connect.NewRequest(&seqdv1.ReserveRequest{Name: name, Count: n, Token: tok}))
				if err != nil {
					return nil, err
				}
				return res.Msg.GetBlock(), nil
			}
			b1, err := reserve("s", tok, 10)
			if err != nil {
				t.Fatal(err)
			}
			b2, err := reserve("s", tok, 10)
			if err != nil || b2.GetFirst() != b1.GetFirst() || b2.GetCount() != b1.GetCount() {
				t.Fatalf("the retry got %v, %v; want the same block %v", b2, err, b1)
			}
			rec, err := c.Recover(ctx, connect.NewRequest(&seqdv1.RecoverRequest{Name: "s", Token: tok}))
			if err != nil || !rec.Msg.GetFound() || rec.Msg.GetBlock().GetFirst() != b1.GetFirst() {
				t.Fatalf("Recover of the first token: %v, %v", rec, err)
			}
			tok3 := sequence.NewToken().String()
			b3, err := reserve("s", tok3, 10)
			if err != nil || b3.GetFirst() == b1.GetFirst() {
				t.Fatalf("a new token got %v, %v", b3, err)
			}
			// Only the latest reservation is recovered: an older block
			// adopted after a newer one would take values backwards.
			if rec, err := c.Recover(ctx, connect.NewRequest(&seqdv1.RecoverRequest{Name: "s", Token: tok})); err != nil || rec.Msg.GetFound() {
				t.Errorf("Recover of the first token after another reservation: %v, %v; want not found", rec, err)
			}
			if rec, err := c.Recover(ctx, connect.NewRequest(&seqdv1.RecoverRequest{Name: "s", Token: tok3})); err != nil || !rec.Msg.GetFound() || rec.Msg.GetBlock().GetFirst() != b3.GetFirst() {
				t.Errorf("Recover of the latest token: %v, %v", rec, err)
			}
			if _, err := reserve("t", tok, 10); connect.CodeOf(err) != connect.CodeInvalidArgument {
				t.Errorf("the token reused for another sequence: %v, want InvalidArgument", err)
			}
			lost := sequence.NewToken().String()
			rec, err = c.Recover(ctx, connect.NewRequest(&seqdv1.RecoverRequest{Name: "s", Token: lost}))
			if err != nil || rec.Msg.GetFound() {
				t.Fatalf("Recover of a token never sent: %v, %v", rec, err)
			}
			if b, err := reserve("s", lost, 10); connect.CodeOf(err) != connect.CodeFailedPrecondition {
				t.Errorf("a Reserve after Recover gave its token up: %v, %v; want FailedPrecondition", b, err)
			}
			for _, bad := range []string{"xyz", strings.Repeat("0", 32), strings.Repeat("a", 31)} {
				if _, err := reserve("s", bad, 1); connect.CodeOf(err) != connect.CodeInvalidArgument {
					t.Errorf("token %q: %v, want InvalidArgument", bad, err)
				}
			}
		})
	}
}

func credential(t *testing.T, name string, prefixes []string, ops ...string) (seqd.Credential, string) {
	t.Helper()
	tok := "tok-" + name + "-" + sequence.NewToken().String()
	return seqd.Credential{Name: name, TokenSHA256: seqd.HashToken(tok), Prefixes: prefixes, Ops: ops}, tok
}

// TestAuth: tokens, prefixes and operations; refusals say why without
// naming other tenants' sequences.
func TestAuth(t *testing.T) {
	ctx := context.Background()
	st := memstore.New()
	spec := sequence.DefaultSpec()
	for _, n := range []string{"shop_orders", "shop_items", "billing_invoices"} {
		if err := st.Create(ctx, n, spec, spec.Initial()); err != nil {
			t.Fatal(err)
		}
	}
	shop, shopTok := credential(t, "shop", []string{"shop_"}, "reserve")
	ops, opsTok := credential(t, "ops", []string{""}, "admin")
	_, hs := serve(t, seqd.Config{Store: st, Credentials: []seqd.Credential{shop, ops}})

	shopStore := open(t, storeURL(hs, shopTok))
	if _, err := shopStore.Reserve(ctx, "shop_orders", 5); err != nil {
		t.Fatalf("shop reserves its own: %v", err)
	}
	_, err := shopStore.Reserve(ctx, "billing_invoices", 5)
	if !errors.Is(err, sequence.ErrMisconfigured) || !strings.Contains(err.Error(), "outside the client's name prefixes") {
		t.Errorf("shop reserves billing's: %v; want a refusal as a configuration error", err)
	}
	if err := shopStore.Create(ctx, "shop_new", spec, spec.Initial()); !errors.Is(err, sequence.ErrMisconfigured) || !strings.Contains(err.Error(), "may not administer") {
		t.Errorf("shop creates: %v", err)
	}
	infos, err := shopStore.List(ctx)
	if err != nil {
		t.Fatal(err)
	}
	for _, i := range infos {
		if !strings.HasPrefix(i.Name, "shop_") {
			t.Errorf("shop lists %s", i.Name)
		}
	}
	if len(infos) != 2 {
		t.Errorf("shop lists %d counters, want its 2", len(infos))
	}
	for _, tc := range []struct{ name, token string }{{"no token", ""}, {"unknown token", "nope"}} {
		_, err := rawClient(hs, tc.token).Reserve(ctx, connect.NewRequest(&seqdv1.ReserveRequest{Name: "shop_orders", Count: 1}))
		if connect.CodeOf(err) != connect.CodeUnauthenticated || strings.Contains(err.Error(), "billing") {
			t.Errorf("%s: %v, want Unauthenticated", tc.name, err)
		}
	}
	opsStore := open(t, storeURL(hs, opsTok))
	if _, err := opsStore.Reserve(ctx, "shop_orders", 1); !errors.Is(err, sequence.ErrMisconfigured) {
		t.Errorf("an admin-only credential reserves: %v", err)
	}
	if _, err := opsStore.SetVal(ctx, "shop_orders", 100, true); err != nil {
		t.Errorf("admin setval: %v", err)
	}
	if b, err := shopStore.Reserve(ctx, "shop_orders", 1); err != nil || b.First <= 100 {
		t.Errorf("after setval 100: %+v, %v", b, err)
	}
	if err := sequence.Check(ctx, shopStore); err != nil {
		t.Errorf("Check with a good token: %v", err)
	}
	bad := open(t, storeURL(hs, "wrong"))
	if err := sequence.Check(ctx, bad); !errors.Is(err, sequence.ErrMisconfigured) {
		t.Errorf("Check with a wrong token: %v, want misconfigured", err)
	}
}

// TestRateLimit: a client over its values a second is refused, and the
// client store reports throttling (a cache backs off).
func TestRateLimit(t *testing.T) {
	ctx := context.Background()
	st := memstore.New()
	spec := sequence.DefaultSpec()
	if err := st.Create(ctx, "s", spec, spec.Initial()); err != nil {
		t.Fatal(err)
	}
	c, tok := credential(t, "loop", []string{""}, "reserve")
	c.ValuesPerSecond, c.Burst = 0.001, 100 // a burst, then (practically) nothing
	_, hs := serve(t, seqd.Config{Store: st, Credentials: []seqd.Credential{c}, NoCache: true})
	cs := open(t, storeURL(hs, tok))
	b, err := cs.Reserve(ctx, "s", 1000)
	if err != nil || b.Count != 100 {
		t.Fatalf("a request over the burst: %+v, %v; want the burst's 100 values", b, err)
	}
	_, err = cs.Reserve(ctx, "s", 10)
	if !errors.Is(err, sequence.ErrThrottled) || !strings.Contains(err.Error(), "rate limit") {
		t.Errorf("over the limit: %v, want throttled", err)
	}
}

// TestErrors: the store's errors reach the client as themselves: SQLSTATE,
// message, kind.
func TestErrors(t *testing.T) {
	ctx := context.Background()
	st := memstore.New()
	spec, pos, err := sequence.Clauses{MaxValue: sequence.Int64(3)}.Create()
	if err != nil {
		t.Fatal(err)
	}
	if err := st.Create(ctx, "small", spec, pos); err != nil {
		t.Fatal(err)
	}
	_, hs := serve(t, seqd.Config{Store: st, Open: true})
	cs := open(t, storeURL(hs, ""))
	if _, err := cs.Reserve(ctx, "small", 3); err != nil {
		t.Fatal(err)
	}
	_, err = cs.Reserve(ctx, "small", 1)
	var se *sequence.Error
	if !errors.As(err, &se) || se.Code != "2200H" || !errors.Is(err, sequence.ErrLimit) ||
		se.Message != `nextval: reached maximum value of sequence "small" (3)` {
		t.Errorf("at MAXVALUE: %v", err)
	}
	_, err = cs.Reserve(ctx, "nope", 1)
	if !errors.As(err, &se) || se.Code != "42P01" || !errors.Is(err, sequence.ErrNotFound) {
		t.Errorf("no such sequence: %v", err)
	}
	if err := cs.Create(ctx, "small", spec, pos); !errors.Is(err, sequence.ErrExists) {
		t.Errorf("create twice: %v", err)
	}
	// A name that is not canonical, an empty one, a huge one, a count below 1.
	raw := rawClient(hs, "")
	for _, req := range []*seqdv1.ReserveRequest{{Name: "SMALL", Count: 1}, {Name: "", Count: 1},
		{Name: strings.Repeat("x", 10_000), Count: 1}, {Name: "small", Count: 0}, {Name: "small", Count: -5}} {
		_, err := raw.Reserve(ctx, connect.NewRequest(req))
		if c := connect.CodeOf(err); c != connect.CodeInvalidArgument {
			t.Errorf("Reserve(%.40q, %d): %v, want InvalidArgument", req.Name, req.Count, err)
		}
	}
}

// TestHealth: /healthz, /readyz, and readyz failing once draining.
func TestHealth(t *testing.T) {
	srv, hs := serve(t, seqd.Config{Store: memstore.New(), Open: true})
	get := func(path string) int {
		res, err := http.Get(hs.URL + path)
		if err != nil {
			t.Fatal(err)
		}
		res.Body.Close()
		return res.StatusCode
	}
	if c := get("/healthz"); c != 200 {
		t.Errorf("/healthz: %d", c)
	}
	if c := get("/readyz"); c != 200 {
		t.Errorf("/readyz: %d", c)
	}
	srv.Drain()
	if c := get("/readyz"); c != 503 {
		t.Errorf("/readyz while draining: %d, want 503", c)
	}
	if c := get("/healthz"); c != 200 {
		t.Errorf("/healthz while draining: %d", c)
	}
}

var _ = time.Second
