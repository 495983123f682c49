package seqd

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net/http"
	"slices"
	"sync"
	"sync/atomic"
	"time"

	"connectrpc.com/connect"
	"go.opentelemetry.io/otel"
	"go.opentelemetry.io/otel/metric"

	wire "github.com/seqshim/seqshim/internal/seqdwire"
	"github.com/seqshim/seqshim/seqcache"
	"github.com/seqshim/seqshim/seqd/seqdv1"
	"github.com/seqshim/seqshim/seqd/seqdv1/seqdv1connect"
	"github.com/seqshim/seqshim/sequence"
)

// Config configures a [Server].
type Config struct {
	// Store is where the counters live: any store (DynamoDB, a PostgreSQL
	// table, SQLite). The server reserves its own blocks from it.
	Store sequence.Store
	// Cache configures the server's block cache in front of Store (buffer,
	// block sizes, refill timeout…): see package seqcache. Its sizing
	// follows the values all clients take together.
	Cache seqcache.Options
	// NoCache turns the server's cache off: every Reserve is a reservation
	// in the store, with the client's token (so a store that is a
	// sequence.Recoverer recovers lost answers for the client), and the
	// server is an authenticating, rate-limiting proxy in front of the
	// store, exact to the store contract (positions, counters, Release).
	// With the cache on, the store's position includes the values the
	// server holds, and a client's Release keeps its tail a gap.
	NoCache bool
	// Credentials are the clients allowed to call, each with its sequence
	// name prefixes, operations and rate limit. None: every call is refused,
	// unless Open is set.
	Credentials []Credential
	// Open lets every caller do everything, without a credential: for a
	// server on loopback in tests and demos only.
	Open bool
	// TokenTTL is how long the server remembers a reservation's token, so
	// that a retry of it gets the same block. Default 10 minutes.
	TokenTTL time.Duration
	// MaxCount bounds the values one Reserve takes. Default, with the
	// cache on, DefaultMaxCount: a client's cache sizes its blocks from the
	// gaps between its own blocks, which the server's blocks widen, and
	// without a bound a few clients asking for a million values each would
	// drain the server's cache (the fleet simulation in package seqcache
	// shows it). With NoCache, no bound: a store's block is arithmetic.
	MaxCount int64
	// GenTTL is how long one read of a counter's incarnation answers the
	// Gen calls of every client. Default 500ms.
	GenTTL time.Duration
	// MeterProvider receives the server's metrics; default the global one.
	MeterProvider metric.MeterProvider
	// Logger receives the server's logs; default slog.Default().
	Logger *slog.Logger
	// Now is the clock; default time.Now. For tests.
	Now func() time.Time
}

// DefaultMaxCount is Config.MaxCount's default with the cache on.
const DefaultMaxCount = 10_000

// Server serves the blocks of one store to many clients. Create it with
// [New], serve [Server.Handler], and [Server.Close] it to hand the values
// its cache holds back to the store.
type Server struct {
	cfg    Config
	cache  *seqcache.Cache
	tokens *tokenLog
	auth   *authorizer
	gens   genCache
	status *statusLog
	m      serverMetrics

	closing atomic.Bool
	closed  sync.Once
}

// New returns a server for cfg.
func New(cfg Config) (*Server, error) {
	if cfg.Store == nil {
		return nil, errors.New("seqd: no store")
	}
	if cfg.TokenTTL <= 0 {
		cfg.TokenTTL = 10 * time.Minute
	}
	if cfg.MaxCount <= 0 && !cfg.NoCache {
		cfg.MaxCount = DefaultMaxCount
	}
	if cfg.GenTTL <= 0 {
		cfg.GenTTL = 500 * time.Millisecond
	}
	if cfg.MeterProvider == nil {
		cfg.MeterProvider = otel.GetMeterProvider()
	}
	if cfg.Logger == nil {
		cfg.Logger = slog.Default()
	}
	if cfg.Now == nil {
		cfg.Now = time.Now
	}
	auth, err := newAuthorizer(cfg.Credentials, cfg.Open)
	if err != nil {
		return nil, err
	}
	opts := cfg.Cache
	if opts.MeterProvider == nil {
		opts.MeterProvider = cfg.MeterProvider
	}
	if opts.Logger == nil {
		opts.Logger = cfg.Logger
	}
	s := &Server{cfg: cfg, auth: auth, tokens: newTokenLog(cfg.TokenTTL, cfg.Now)}
	s.cache = seqcache.New(cfg.Store, func(o *seqcache.Options) { *o = opts })
	s.gens = genCache{ttl: cfg.GenTTL, now: cfg.Now, m: map[string]*genEntry{}}
	s.status = newStatusLog(s, cfg.Now)
	if err := s.m.init(cfg.MeterProvider); err != nil {
		return nil, err
	}
	return s, nil
}

// Handler serves the API (gRPC, gRPC-Web and Connect: HTTP/JSON) under
// /seqshim.seqd.v1.SequenceService/, with /healthz (the process is up) and
// /readyz (it can serve: the store answers, it is not shutting down).
func (s *Server) Handler() http.Handler {
	mux := http.NewServeMux()
	path, h := seqdv1connect.NewSequenceServiceHandler(&api{s: s},
		connect.WithReadMaxBytes(maxRequest), connect.WithSendMaxBytes(16<<20))
	mux.Handle(path, h)
	s.health(mux)
	return mux
}

// OpsHandler serves what operators read, on an address of its own (seqd
// --ops-listen, loopback by default), since it names every counter:
// /status (the status page, with charts), /status.json (its data),
// /healthz and /readyz.
func (s *Server) OpsHandler() http.Handler {
	mux := http.NewServeMux()
	s.health(mux)
	mux.HandleFunc("GET /status", s.status.page)
	mux.HandleFunc("GET /status.json", s.status.json)
	return mux
}

// maxRequest bounds the size of a request message.
const maxRequest = 64 << 10

func (s *Server) health(mux *http.ServeMux) {
	mux.HandleFunc("GET /healthz", func(w http.ResponseWriter, _ *http.Request) {
		w.Header().Set("Content-Type", "text/plain; charset=utf-8")
		fmt.Fprintln(w, "ok")
	})
	mux.HandleFunc("GET /readyz", s.ready)
}

func (s *Server) ready(w http.ResponseWriter, r *http.Request) {
	w.Header().Set("Content-Type", "text/plain; charset=utf-8")
	if s.closing.Load() {
		w.WriteHeader(http.StatusServiceUnavailable)
		fmt.Fprintln(w, "shutting down")
		return
	}
	ctx, cancel := context.WithTimeout(r.Context(), 3*time.Second)
	defer cancel()
	if err := sequence.Check(ctx, s.cfg.Store); err != nil {
		w.WriteHeader(http.StatusServiceUnavailable)
		fmt.Fprintln(w, "store:", err)
		return
	}
	fmt.Fprintln(w, "ready")
}

// Drain marks the server as shutting down: /readyz fails from then on, so
// that a load balancer stops sending it clients, while it keeps serving.
func (s *Server) Drain() { s.closing.Store(true) }

// Close stops the server's refills and hands the unused values of its
// cache back to the store, when nobody reserved after them. Stop serving
// the Handler first (http.Server.Shutdown).
func (s *Server) Close() error {
	s.Drain()
	var err error
	s.closed.Do(func() {
		s.status.stop()
		err = s.cache.Close()
	})
	return err
}

// Stats are the server's cache's counters of every counter served.
func (s *Server) Stats() []seqcache.Stats { return s.cache.AllStats() }

// reserve takes a block of at most n values for client c.
func (s *Server) reserve(ctx context.Context, c *client, name string, n int64, tok sequence.Token, after *int64) (sequence.Block, uint64, error) {
	if s.cfg.MaxCount > 0 && n > s.cfg.MaxCount {
		n = s.cfg.MaxCount
	}
	n, err := c.admit(name, n)
	if err != nil {
		return sequence.Block{}, 0, err
	}
	var (
		b     sequence.Block
		epoch uint64
	)
	switch rec, ok := s.cfg.Store.(sequence.Recoverer); {
	case !s.cfg.NoCache:
		b, epoch, err = s.take(ctx, name, n, tok, after)
	case ok && !tok.IsZero():
		b, err = rec.ReserveToken(ctx, name, n, tok)
	default:
		b, err = s.cfg.Store.Reserve(ctx, name, n)
	}
	if err != nil {
		s.m.storeError(ctx, c.name, name)
		return b, 0, err
	}
	s.m.served(ctx, c.name, name, b.Count)
	s.status.served(c.name, name, b.Count)
	return b, epoch, nil
}

// take takes at most n values from the server's cache, past after when
// given. Values at or before it — the client had higher ones from another
// server, or the cache holds values given back — go back into the cache for
// other clients, and this client's block comes from the store directly,
// whose blocks come after everything handed out (epoch 0 says so); a
// sequence that cycles is served from the cache as it is. epoch is the
// cache's epoch the block was taken in (see seqcache.Handle.Untake), 0 for
// a block not from the cache, or if the epoch changed meanwhile.
func (s *Server) take(ctx context.Context, name string, n int64, tok sequence.Token, after *int64) (sequence.Block, uint64, error) {
	h := s.cache.Handle(name)
	epoch := h.Epoch()
	b, err := h.Take(ctx, n)
	if err != nil {
		return b, 0, err
	}
	if h.Epoch() != epoch {
		epoch = 0
	}
	if after == nil || b.Step > 0 && b.First > *after || b.Step < 0 && b.First < *after {
		return b, epoch, nil
	}
	if info, err := s.cfg.Store.Describe(ctx, name); err == nil && info.Spec.Cycle {
		return b, epoch, nil
	}
	// Back into the cache for other clients; if another took a value after
	// it meanwhile, the block stays a gap.
	h.Untake(b, epoch)
	if rec, ok := s.cfg.Store.(sequence.Recoverer); ok && !tok.IsZero() {
		b, err = rec.ReserveToken(ctx, name, n, tok)
	} else {
		b, err = s.cfg.Store.Reserve(ctx, name, n)
	}
	return b, 0, err
}

// describe reads a counter with the position a client reads before ALTER,
// setval or seqctl export: the last value the server handed out, as
// PostgreSQL's, as if the server's cache had handed its unused values back
// (which it does before it applies a change). The values the server holds
// are left where they are: a client's tail given back later still goes
// back into them. When the store moved meanwhile (a refill landed, another
// server reserved), the position is the store's.
func (s *Server) describe(ctx context.Context, name string) (sequence.Info, error) {
	h := s.cache.Handle(name)
	var got sequence.Info
	for range 3 {
		before := h.Unserved()
		var err error
		if got, err = s.cfg.Store.Describe(ctx, name); err != nil {
			return got, err
		}
		if !slices.Equal(before, h.Unserved()) {
			continue // a refill landed while we read: read again
		}
		pos := got.Position
		for i := len(before) - 1; i >= 0; i-- {
			b := before[i]
			if b.Gen != 0 && got.Gen != 0 && b.Gen != got.Gen {
				break
			}
			p, ok := got.Spec.Release(pos, b)
			if !ok {
				break
			}
			pos = p
		}
		got.Position = pos
		return got, nil
	}
	return got, nil
}

// genCache answers Gen for every client from one store read per counter
// per ttl.
type genCache struct {
	ttl time.Duration
	now func() time.Time
	mu  sync.Mutex
	m   map[string]*genEntry
}

type genEntry struct {
	done chan struct{}
	at   time.Time
	gen  uint64
	err  error
}

func (g *genCache) get(ctx context.Context, st sequence.Store, name string) (uint64, error) {
	g.mu.Lock()
	e := g.m[name]
	if e != nil {
		select {
		case <-e.done:
			if g.now().Sub(e.at) > g.ttl || e.err != nil && !errors.Is(e.err, sequence.ErrNotFound) {
				e = nil
			}
		default: // a read in flight: wait for it
		}
	}
	if e == nil {
		e = &genEntry{done: make(chan struct{}), at: g.now()}
		g.m[name] = e
		g.mu.Unlock()
		e.gen, e.err = sequence.ReadGen(ctx, st, name)
		close(e.done)
		return e.gen, e.err
	}
	g.mu.Unlock()
	select {
	case <-e.done:
		return e.gen, e.err
	case <-ctx.Done():
		return 0, ctx.Err()
	}
}

// forget drops what the cache knows of name, after a change.
func (g *genCache) forget(name string) {
	g.mu.Lock()
	delete(g.m, name)
	g.mu.Unlock()
}

// change runs a store operation that changes counter name (ALTER, setval,
// DROP, RENAME, a detach that may drop it) through the server's cache: no
// value of the old state is handed out after it.
func (s *Server) change(ctx context.Context, name string, fn func(ctx context.Context) error) error {
	defer s.gens.forget(name)
	return s.cache.Change(ctx, name, fn)
}

// api implements the service.
type api struct {
	seqdv1connect.UnimplementedSequenceServiceHandler
	s *Server
}

var _ seqdv1connect.SequenceServiceHandler = (*api)(nil)

// call authorizes a request for op on name ("" for none) and returns the
// client; the error is a *connect.Error.
func (a *api) call(h http.Header, op op, name string) (*client, error) {
	if op != opCheck && op != opList {
		if err := checkName(name); err != nil {
			return nil, err
		}
	}
	return a.s.auth.authorize(h, op, name)
}

func (a *api) Reserve(ctx context.Context, req *connect.Request[seqdv1.ReserveRequest]) (*connect.Response[seqdv1.ReserveResponse], error) {
	m := req.Msg
	c, err := a.call(req.Header(), opReserve, m.GetName())
	if err != nil {
		return nil, err
	}
	defer a.s.m.request(ctx, c.name, "Reserve")
	if m.GetCount() < 1 {
		return nil, wire.Error(invalidf("count %d: want 1 or more", m.GetCount()))
	}
	var b sequence.Block
	if m.GetToken() == "" {
		b, _, err = a.s.reserve(ctx, c, m.GetName(), m.GetCount(), sequence.Token{}, m.After)
	} else {
		var tok sequence.Token
		if tok, err = parseToken(m.GetToken()); err != nil {
			return nil, wire.Error(err)
		}
		b, err = a.s.tokens.do(ctx, c.name, tok, m.GetName(), m.GetCount(), func(ctx context.Context) (sequence.Block, uint64, error) {
			return a.s.reserve(ctx, c, m.GetName(), m.GetCount(), tok, m.After)
		})
	}
	if err != nil {
		return nil, wire.Error(err)
	}
	return connect.NewResponse(&seqdv1.ReserveResponse{Block: wire.Block(b)}), nil
}

func (a *api) Recover(ctx context.Context, req *connect.Request[seqdv1.RecoverRequest]) (*connect.Response[seqdv1.RecoverResponse], error) {
	m := req.Msg
	c, err := a.call(req.Header(), opReserve, m.GetName())
	if err != nil {
		return nil, err
	}
	defer a.s.m.request(ctx, c.name, "Recover")
	tok, err := parseToken(m.GetToken())
	if err != nil {
		return nil, wire.Error(err)
	}
	b, found, err := a.s.tokens.recover(ctx, c.name, tok, m.GetName())
	if rec, ok := a.s.cfg.Store.(sequence.Recoverer); err == nil && !found && a.s.cfg.NoCache && ok {
		// The reservation may have reached the store through another
		// server, or before this one restarted: the store's token says.
		b, found, err = rec.Recover(ctx, m.GetName(), tok)
	}
	if err != nil {
		return nil, wire.Error(err)
	}
	out := &seqdv1.RecoverResponse{Found: found}
	if found {
		out.Block = wire.Block(b)
	}
	return connect.NewResponse(out), nil
}

func (a *api) Release(ctx context.Context, req *connect.Request[seqdv1.ReleaseRequest]) (*connect.Response[seqdv1.ReleaseResponse], error) {
	c, err := a.call(req.Header(), opReserve, req.Msg.GetName())
	if err != nil {
		return nil, err
	}
	defer a.s.m.request(ctx, c.name, "Release")
	// As it is: the store, or the server's cache, refuses a tail that is
	// not its latest block's.
	u := req.Msg.GetUnused()
	unused := sequence.Block{First: u.GetFirst(), Step: u.GetStep(), Count: u.GetCount(), Gen: u.GetGen()}
	rel, ok := a.s.cfg.Store.(sequence.Releaser)
	if !a.s.cfg.NoCache || !ok {
		// With the cache on, a client's tail goes back into the server's
		// cache when no client took a value after it; the server hands
		// the cache's unused values back to the store at its own shutdown
		// and before a change (ALTER, setval).
		done := false
		if tok, err := parseToken(req.Msg.GetToken()); err == nil && !a.s.cfg.NoCache {
			h := a.s.cache.Handle(req.Msg.GetName())
			done = a.s.tokens.giveBack(c.name, tok, req.Msg.GetName(), unused, func(b sequence.Block, epoch uint64) bool {
				if epoch != 0 {
					return h.Untake(b, epoch)
				}
				// A block the store handed out directly: the store takes
				// its tail back if nobody reserved after it.
				if !ok {
					return false
				}
				done, err := rel.Release(ctx, req.Msg.GetName(), b)
				return err == nil && done
			})
		}
		return connect.NewResponse(&seqdv1.ReleaseResponse{Released: done}), nil
	}
	done, err := rel.Release(ctx, req.Msg.GetName(), unused)
	if err != nil {
		return nil, wire.Error(err)
	}
	return connect.NewResponse(&seqdv1.ReleaseResponse{Released: done}), nil
}

func (a *api) Gen(ctx context.Context, req *connect.Request[seqdv1.GenRequest]) (*connect.Response[seqdv1.GenResponse], error) {
	c, err := a.call(req.Header(), opReserve, req.Msg.GetName())
	if err != nil {
		return nil, err
	}
	defer a.s.m.request(ctx, c.name, "Gen")
	g, err := a.s.gens.get(ctx, a.s.cfg.Store, req.Msg.GetName())
	if err != nil {
		return nil, wire.Error(err)
	}
	return connect.NewResponse(&seqdv1.GenResponse{Gen: g}), nil
}

func (a *api) Check(ctx context.Context, req *connect.Request[seqdv1.CheckRequest]) (*connect.Response[seqdv1.CheckResponse], error) {
	c, err := a.call(req.Header(), opCheck, "")
	if err != nil {
		return nil, err
	}
	defer a.s.m.request(ctx, c.name, "Check")
	if err := sequence.Check(ctx, a.s.cfg.Store); err != nil {
		return nil, wire.Error(err)
	}
	return connect.NewResponse(&seqdv1.CheckResponse{}), nil
}

func (a *api) Create(ctx context.Context, req *connect.Request[seqdv1.CreateRequest]) (*connect.Response[seqdv1.CreateResponse], error) {
	m := req.Msg
	c, err := a.call(req.Header(), opAdmin, m.GetName())
	if err != nil {
		return nil, err
	}
	defer a.s.m.request(ctx, c.name, "Create")
	spec, err := wire.FromSpec(m.GetSpec())
	if err != nil {
		return nil, wire.Error(err)
	}
	if m.GetPosition() == nil {
		return nil, wire.Error(invalidf("a Create without its position"))
	}
	if err := a.s.cfg.Store.Create(ctx, m.GetName(), spec, wire.FromPosition(m.GetPosition())); err != nil {
		return nil, wire.Error(err)
	}
	a.s.gens.forget(m.GetName())
	a.s.cache.Invalidate(m.GetName())
	a.s.cache.Retire(m.GetName())
	return connect.NewResponse(&seqdv1.CreateResponse{}), nil
}

func (a *api) Alter(ctx context.Context, req *connect.Request[seqdv1.AlterRequest]) (*connect.Response[seqdv1.AlterResponse], error) {
	m := req.Msg
	c, err := a.call(req.Header(), opAdmin, m.GetName())
	if err != nil {
		return nil, err
	}
	defer a.s.m.request(ctx, c.name, "Alter")
	if m.GetClauses() == nil {
		return nil, wire.Error(invalidf("an Alter without clauses"))
	}
	cl, err := wire.FromClauses(m.GetClauses())
	if err != nil {
		return nil, wire.Error(err)
	}
	var info sequence.Info
	err = a.s.change(ctx, m.GetName(), func(ctx context.Context) (err error) {
		info, err = a.s.cfg.Store.Alter(ctx, m.GetName(), cl)
		return err
	})
	if err != nil {
		return nil, wire.Error(err)
	}
	return connect.NewResponse(&seqdv1.AlterResponse{Info: wire.Info(info)}), nil
}

func (a *api) Rename(ctx context.Context, req *connect.Request[seqdv1.RenameRequest]) (*connect.Response[seqdv1.RenameResponse], error) {
	m := req.Msg
	c, err := a.call(req.Header(), opAdmin, m.GetName())
	if err != nil {
		return nil, err
	}
	if _, err := a.call(req.Header(), opAdmin, m.GetNewName()); err != nil {
		return nil, err
	}
	defer a.s.m.request(ctx, c.name, "Rename")
	err = a.s.change(ctx, m.GetName(), func(ctx context.Context) error {
		return a.s.cfg.Store.Rename(ctx, m.GetName(), m.GetNewName())
	})
	if err != nil {
		return nil, wire.Error(err)
	}
	a.s.gens.forget(m.GetNewName())
	a.s.cache.Invalidate(m.GetNewName())
	a.s.cache.Renamed(m.GetName(), m.GetNewName())
	return connect.NewResponse(&seqdv1.RenameResponse{}), nil
}

func (a *api) Drop(ctx context.Context, req *connect.Request[seqdv1.DropRequest]) (*connect.Response[seqdv1.DropResponse], error) {
	m := req.Msg
	c, err := a.call(req.Header(), opAdmin, m.GetName())
	if err != nil {
		return nil, err
	}
	defer a.s.m.request(ctx, c.name, "Drop")
	err = a.s.change(ctx, m.GetName(), func(ctx context.Context) error { return a.s.cfg.Store.Drop(ctx, m.GetName()) })
	if err != nil {
		return nil, wire.Error(err)
	}
	a.s.cache.Retire(m.GetName())
	return connect.NewResponse(&seqdv1.DropResponse{}), nil
}

func (a *api) Describe(ctx context.Context, req *connect.Request[seqdv1.DescribeRequest]) (*connect.Response[seqdv1.DescribeResponse], error) {
	m := req.Msg
	c, err := a.call(req.Header(), opRead, m.GetName())
	if err != nil {
		return nil, err
	}
	defer a.s.m.request(ctx, c.name, "Describe")
	var info sequence.Info
	if a.s.cfg.NoCache {
		info, err = a.s.cfg.Store.Describe(ctx, m.GetName())
	} else {
		info, err = a.s.describe(ctx, m.GetName())
	}
	if err != nil {
		return nil, wire.Error(err)
	}
	return connect.NewResponse(&seqdv1.DescribeResponse{Info: wire.Info(info)}), nil
}

func (a *api) List(ctx context.Context, req *connect.Request[seqdv1.ListRequest]) (*connect.Response[seqdv1.ListResponse], error) {
	c, err := a.call(req.Header(), opList, "")
	if err != nil {
		return nil, err
	}
	defer a.s.m.request(ctx, c.name, "List")
	infos, err := a.s.cfg.Store.List(ctx)
	if err != nil {
		return nil, wire.Error(err)
	}
	out := &seqdv1.ListResponse{}
	for _, i := range infos {
		if c.allows(i.Name) {
			out.Infos = append(out.Infos, wire.Info(i))
		}
	}
	return connect.NewResponse(out), nil
}

func (a *api) SetVal(ctx context.Context, req *connect.Request[seqdv1.SetValRequest]) (*connect.Response[seqdv1.SetValResponse], error) {
	m := req.Msg
	c, err := a.call(req.Header(), opAdmin, m.GetName())
	if err != nil {
		return nil, err
	}
	defer a.s.m.request(ctx, c.name, "SetVal")
	var info sequence.Info
	err = a.s.change(ctx, m.GetName(), func(ctx context.Context) (err error) {
		info, err = a.s.cfg.Store.SetVal(ctx, m.GetName(), m.GetValue(), m.GetIsCalled())
		return err
	})
	if err != nil {
		return nil, wire.Error(err)
	}
	return connect.NewResponse(&seqdv1.SetValResponse{Info: wire.Info(info)}), nil
}

func (a *api) Attach(ctx context.Context, req *connect.Request[seqdv1.AttachRequest]) (*connect.Response[seqdv1.AttachResponse], error) {
	m := req.Msg
	c, err := a.call(req.Header(), opAdmin, m.GetName())
	if err != nil {
		return nil, err
	}
	defer a.s.m.request(ctx, c.name, "Attach")
	if m.GetMember() == nil {
		return nil, wire.Error(invalidf("an Attach without its member"))
	}
	mem, err := wire.FromMember(m.GetMember())
	if err != nil {
		return nil, wire.Error(invalidf("%v", err))
	}
	counter, err := wire.FromSpec(m.GetCounter())
	if err != nil {
		return nil, wire.Error(err)
	}
	info, err := a.s.cfg.Store.Attach(ctx, m.GetName(), mem, counter)
	if err != nil {
		return nil, wire.Error(err)
	}
	return connect.NewResponse(&seqdv1.AttachResponse{Info: wire.Info(info)}), nil
}

func (a *api) Detach(ctx context.Context, req *connect.Request[seqdv1.DetachRequest]) (*connect.Response[seqdv1.DetachResponse], error) {
	m := req.Msg
	c, err := a.call(req.Header(), opAdmin, m.GetName())
	if err != nil {
		return nil, err
	}
	defer a.s.m.request(ctx, c.name, "Detach")
	var dropped bool
	err = a.s.change(ctx, m.GetName(), func(ctx context.Context) (err error) {
		dropped, err = a.s.cfg.Store.Detach(ctx, m.GetName(), m.GetDb())
		return err
	})
	if err != nil {
		return nil, wire.Error(err)
	}
	if dropped {
		a.s.cache.Retire(m.GetName())
	}
	return connect.NewResponse(&seqdv1.DetachResponse{Dropped: dropped}), nil
}

// invalidf is a sequence error of kind ErrInvalid (22023).
func invalidf(format string, args ...any) error {
	return &sequence.Error{Code: sequence.CodeInvalidParameterValue, Kind: sequence.ErrInvalid,
		Message: "seqd: " + fmt.Sprintf(format, args...)}
}

// maxName bounds a sequence name in a request (PostgreSQL's names are at
// most 63 bytes a part; quoting and a schema at most double that).
const maxName = 512

// checkName refuses a name no store keeps.
func checkName(name string) error {
	if len(name) > maxName {
		return wire.Error(invalidf("a sequence name of %d bytes: at most %d", len(name), maxName))
	}
	canon, err := sequence.ParseName(name)
	if err != nil {
		return wire.Error(err)
	}
	if canon != name {
		return wire.Error(invalidf("sequence name %q is not canonical (%q): clients send names as sequence.ParseName returns them", name, canon))
	}
	return nil
}
