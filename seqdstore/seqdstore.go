package seqdstore

import (
	"context"
	"crypto/tls"
	"crypto/x509"
	"errors"
	"fmt"
	"math/rand/v2"
	"net"
	"net/http"
	"net/url"
	"os"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"connectrpc.com/connect"

	wire "github.com/seqshim/seqshim/internal/seqdwire"
	"github.com/seqshim/seqshim/internal/storeurl"
	"github.com/seqshim/seqshim/seqd/seqdv1"
	"github.com/seqshim/seqshim/seqd/seqdv1/seqdv1connect"
	"github.com/seqshim/seqshim/sequence"
)

// Schemes: seqd:// is TLS, seqd+http:// plain HTTP.
const (
	Scheme     = "seqd"
	SchemeHTTP = "seqd+http"
)

// EnvToken is the environment variable a store URL without a token takes
// its bearer token from.
const EnvToken = "SEQD_TOKEN"

func init() {
	open := func(ctx context.Context, rawurl string) (sequence.Store, error) { return Open(ctx, rawurl) }
	storeurl.Register(Scheme, open)
	storeurl.Register(SchemeHTTP, open)
}

// Store is the client store: a sequence.Store whose every operation is a
// call to the sequence service. It implements sequence.Releaser,
// sequence.Checker, sequence.Validator and sequence.Recoverer. Safe for
// concurrent use; Close releases its connections.
type Store struct {
	hosts  []host
	start  atomic.Uint32 // the host calls try first: a random one, then the last that answered
	url    string        // without the token, for messages
	client *http.Client

	mu      sync.Mutex
	sentTo  map[sequence.Token]int // the host a token's reservation went to, for Recover
	sentLog []sequence.Token
	got     map[string]*received // by sequence name
}

// received is what the store knows of the blocks it received for one
// sequence: the last value (sent as after, so that values keep increasing
// across servers), and the latest blocks with their tokens (a tail given
// back carries its reservation's token, the proof it is this client's).
type received struct {
	after  *int64
	blocks []tokenBlock // the latest first… at most keepBlocks
}

type tokenBlock struct {
	tok sequence.Token
	b   sequence.Block
}

// keepBlocks is how many blocks per sequence the store remembers for
// Release: a cache releases its active block's tail and its standby blocks
// (many, for a sequence of a few values that cycles).
const keepBlocks = 256

type host struct {
	addr string
	c    seqdv1connect.SequenceServiceClient
}

// Open returns the store of a URL:
//
//	seqd://[:TOKEN@]HOST:PORT[,HOST:PORT…][?token_file=PATH&ca=PATH&server_name=NAME]
//	seqd+http://[:TOKEN@]HOST:PORT[,HOST:PORT…][?token_file=PATH]
//
// seqd:// speaks TLS (the system's roots, or the CA certificates in ca);
// seqd+http:// plain HTTP, for loopback and networks that encrypt
// themselves. The bearer token comes from the URL's password, token_file,
// or $SEQD_TOKEN. Of several hosts, a store keeps to one (a random one, so
// a fleet spreads over them) and moves on to the next when it does not
// answer.
// Open does not contact the service.
func Open(_ context.Context, rawurl string) (*Store, error) {
	scheme, rest, ok := strings.Cut(rawurl, "://")
	scheme = strings.ToLower(scheme)
	if !ok || scheme != Scheme && scheme != SchemeHTTP {
		return nil, fmt.Errorf("%w: %q: want seqd://HOST:PORT or seqd+http://HOST:PORT", storeurl.ErrURL, storeurl.Redact(rawurl))
	}
	authority, query, _ := strings.Cut(rest, "?")
	authority = strings.TrimSuffix(authority, "/")
	q, err := url.ParseQuery(query)
	if err != nil {
		return nil, fmt.Errorf("%w: %s: %v", storeurl.ErrURL, storeurl.Redact(rawurl), err)
	}
	token := ""
	if at := strings.LastIndexByte(authority, '@'); at >= 0 {
		user := authority[:at]
		authority = authority[at+1:]
		if _, pw, ok := strings.Cut(user, ":"); ok {
			if token, err = url.PathUnescape(pw); err != nil {
				return nil, fmt.Errorf("%w: %s: the token: %v", storeurl.ErrURL, storeurl.Redact(rawurl), err)
			}
		}
	}
	for k := range q {
		if k != "token_file" && k != "ca" && k != "server_name" {
			return nil, fmt.Errorf("%w: %s: unknown parameter %q (want token_file, ca, server_name)", storeurl.ErrURL, storeurl.Redact(rawurl), k)
		}
	}
	if f := q.Get("token_file"); f != "" && token == "" {
		b, err := os.ReadFile(f)
		if err != nil {
			return nil, sequence.Misconfigured(fmt.Errorf("seqd store %s: token_file: %w", storeurl.Redact(rawurl), err))
		}
		token = strings.TrimSpace(string(b))
	}
	if token == "" {
		token = os.Getenv(EnvToken)
	}
	base := "https://"
	tlsConf := &tls.Config{MinVersion: tls.VersionTLS12, ServerName: q.Get("server_name")}
	if scheme == SchemeHTTP {
		base = "http://"
		if q.Has("ca") || q.Has("server_name") {
			return nil, fmt.Errorf("%w: %s: ca and server_name are for seqd:// (TLS)", storeurl.ErrURL, storeurl.Redact(rawurl))
		}
	}
	if ca := q.Get("ca"); ca != "" {
		pem, err := os.ReadFile(ca)
		if err != nil {
			return nil, sequence.Misconfigured(fmt.Errorf("seqd store %s: ca: %w", storeurl.Redact(rawurl), err))
		}
		pool := x509.NewCertPool()
		if !pool.AppendCertsFromPEM(pem) {
			return nil, sequence.Misconfigured(fmt.Errorf("seqd store %s: ca %s holds no PEM certificate", storeurl.Redact(rawurl), ca))
		}
		tlsConf.RootCAs = pool
	}
	tr := &http.Transport{
		Proxy:               http.ProxyFromEnvironment,
		DialContext:         (&net.Dialer{Timeout: 5 * time.Second, KeepAlive: 30 * time.Second}).DialContext,
		TLSClientConfig:     tlsConf,
		ForceAttemptHTTP2:   true,
		MaxIdleConnsPerHost: 16,
		IdleConnTimeout:     90 * time.Second,
		TLSHandshakeTimeout: 5 * time.Second,
	}
	s := &Store{client: &http.Client{Transport: tr}, url: storeurl.Redact(rawurl), sentTo: map[sequence.Token]int{},
		got: map[string]*received{}}
	var opts []connect.ClientOption
	if token != "" {
		opts = append(opts, connect.WithInterceptors(bearer(token)))
	}
	for _, a := range strings.Split(authority, ",") {
		a = strings.TrimSpace(a)
		if _, port, err := net.SplitHostPort(a); err != nil || port == "" {
			return nil, fmt.Errorf("%w: %s: host %q: want HOST:PORT", storeurl.ErrURL, storeurl.Redact(rawurl), a)
		}
		s.hosts = append(s.hosts, host{addr: a, c: seqdv1connect.NewSequenceServiceClient(s.client, base+a, opts...)})
	}
	s.start.Store(uint32(rand.IntN(len(s.hosts))))
	return s, nil
}

// bearer adds the token to every request.
func bearer(token string) connect.UnaryInterceptorFunc {
	return func(next connect.UnaryFunc) connect.UnaryFunc {
		return func(ctx context.Context, req connect.AnyRequest) (connect.AnyResponse, error) {
			req.Header().Set("Authorization", "Bearer "+token)
			return next(ctx, req)
		}
	}
}

// Close releases the store's idle connections.
func (s *Store) Close() error {
	s.client.CloseIdleConnections()
	return nil
}

// String is the store's URL, without its token.
func (s *Store) String() string { return s.url }

// unreachable reports whether err means the host did not answer (so
// another may), rather than an answer.
func unreachable(err error) bool {
	var ce *connect.Error
	if !errors.As(err, &ce) {
		return true
	}
	switch ce.Code() {
	case connect.CodeUnavailable, connect.CodeUnknown, connect.CodeInternal:
		return len(ce.Details()) == 0 // a store's error comes with its detail: an answer
	case connect.CodeDeadlineExceeded, connect.CodeCanceled:
		return false
	}
	return false
}

// call runs fn against the hosts in turn from the next one, until one
// answers; it returns the index of that host.
func call[T any](ctx context.Context, s *Store, fn func(c seqdv1connect.SequenceServiceClient) (T, error)) (T, int, error) {
	first := int(s.start.Load()) % len(s.hosts)
	var (
		out T
		err error
	)
	for i := range s.hosts {
		h := (first + i) % len(s.hosts)
		out, err = fn(s.hosts[h].c)
		if err == nil || !unreachable(err) || ctx.Err() != nil {
			if i > 0 {
				// Stay with the host that answered: a client that keeps to
				// one server gets its blocks in order.
				s.start.CompareAndSwap(uint32(first), uint32(h))
			}
			return out, h, s.err(err)
		}
	}
	return out, -1, s.err(err)
}

// err converts a call's error into the store's.
func (s *Store) err(err error) error {
	if err == nil {
		return nil
	}
	err = wire.FromError(err)
	var se *sequence.Error
	if errors.As(err, &se) {
		return err
	}
	return fmt.Errorf("seqd store %s: %w", s.url, err)
}

// Reserve implements sequence.Reserver.
func (s *Store) Reserve(ctx context.Context, name string, n int64) (sequence.Block, error) {
	return s.ReserveToken(ctx, name, n, sequence.NewToken())
}

// ReserveToken implements sequence.Recoverer: the service remembers the
// block it gave the token, and a repeat gets the same one.
func (s *Store) ReserveToken(ctx context.Context, name string, n int64, token sequence.Token) (sequence.Block, error) {
	req := &seqdv1.ReserveRequest{Name: name, Count: n, Token: token.String(), After: s.after(name)}
	res, h, err := call(ctx, s, func(c seqdv1connect.SequenceServiceClient) (*connect.Response[seqdv1.ReserveResponse], error) {
		return c.Reserve(ctx, connect.NewRequest(req))
	})
	if err != nil {
		if h < 0 {
			h = 0
		}
		s.remember(token, h)
		return sequence.Block{}, err
	}
	b, err := wire.FromBlock(res.Msg.GetBlock())
	if err != nil {
		return b, err
	}
	if b.Count > n {
		return sequence.Block{}, fmt.Errorf("seqd store %s: %d values for a request of %d", s.url, b.Count, n)
	}
	s.received(name, token, b)
	return b, nil
}

// after is the last value received for name, if any.
func (s *Store) after(name string) *int64 {
	s.mu.Lock()
	defer s.mu.Unlock()
	if r := s.got[name]; r != nil && r.after != nil {
		v := *r.after
		return &v
	}
	return nil
}

func (s *Store) received(name string, tok sequence.Token, b sequence.Block) {
	s.mu.Lock()
	defer s.mu.Unlock()
	r := s.got[name]
	if r == nil {
		r = &received{}
		s.got[name] = r
	}
	last := b.Last()
	r.after = &last
	r.blocks = append([]tokenBlock{{tok, b}}, r.blocks[:min(len(r.blocks), keepBlocks-1)]...)
}

// forget drops what the store knows of name's blocks: after a change
// (setval, RESTART, DROP) the counter may move back.
func (s *Store) forget(names ...string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	for _, n := range names {
		delete(s.got, n)
	}
}

// tokenOf finds the reservation unused is the tail of.
func (s *Store) tokenOf(name string, unused sequence.Block) (sequence.Token, bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if r := s.got[name]; r != nil && unused.Count > 0 {
		for _, tb := range r.blocks {
			if tb.b.Step == unused.Step && tb.b.Contains(unused.First) && tb.b.Last() == unused.Last() {
				return tb.tok, true
			}
		}
	}
	return sequence.Token{}, false
}

// released notes that unused went back: the values before it are the last
// this client got.
func (s *Store) released(name string, tok sequence.Token, unused sequence.Block) {
	s.mu.Lock()
	defer s.mu.Unlock()
	r := s.got[name]
	if r == nil {
		return
	}
	for i := range r.blocks {
		if r.blocks[i].tok == tok {
			r.blocks[i].b.Count -= unused.Count
		}
	}
	if prev := unused.First - unused.Step; unused.Step > 0 && prev < unused.First || unused.Step < 0 && prev > unused.First {
		r.after = &prev
	} else {
		r.after = nil
	}
}

// remember notes which host a reservation went to, for its Recover; the
// most recent 4096 only.
func (s *Store) remember(t sequence.Token, h int) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.sentTo[t] = h
	s.sentLog = append(s.sentLog, t)
	if len(s.sentLog) > 4096 {
		delete(s.sentTo, s.sentLog[0])
		s.sentLog = s.sentLog[1:]
	}
}

// Recover implements sequence.Recoverer: it asks the host the
// reservation went to for the block given to the token.
func (s *Store) Recover(ctx context.Context, name string, token sequence.Token) (sequence.Block, bool, error) {
	s.mu.Lock()
	h, ok := s.sentTo[token]
	s.mu.Unlock()
	if !ok {
		h = 0
	}
	res, err := s.hosts[h].c.Recover(ctx, connect.NewRequest(&seqdv1.RecoverRequest{Name: name, Token: token.String()}))
	if err != nil {
		return sequence.Block{}, false, s.err(err)
	}
	if !res.Msg.GetFound() {
		return sequence.Block{}, false, nil
	}
	b, err := wire.FromBlock(res.Msg.GetBlock())
	if err != nil {
		return b, false, err
	}
	s.received(name, token, b)
	return b, true, nil
}

// Release implements sequence.Releaser.
//
// The tail goes back with the token of the reservation that handed it out:
// a server with its cache on takes it back into that cache when no client
// took a value after it; a server without a cache hands it to its store.
func (s *Store) Release(ctx context.Context, name string, unused sequence.Block) (bool, error) {
	tok, ok := s.tokenOf(name, unused)
	req := &seqdv1.ReleaseRequest{Name: name, Unused: wire.Block(unused)}
	if ok {
		req.Token = tok.String()
	}
	res, _, err := call(ctx, s, func(c seqdv1connect.SequenceServiceClient) (*connect.Response[seqdv1.ReleaseResponse], error) {
		return c.Release(ctx, connect.NewRequest(req))
	})
	if err != nil {
		return false, err
	}
	if res.Msg.GetReleased() {
		s.released(name, tok, unused)
	}
	return res.Msg.GetReleased(), nil
}

// Gen implements sequence.Validator.
func (s *Store) Gen(ctx context.Context, name string) (uint64, error) {
	res, _, err := call(ctx, s, func(c seqdv1connect.SequenceServiceClient) (*connect.Response[seqdv1.GenResponse], error) {
		return c.Gen(ctx, connect.NewRequest(&seqdv1.GenRequest{Name: name}))
	})
	if err != nil {
		return 0, err
	}
	return res.Msg.GetGen(), nil
}

// Check implements sequence.Checker: the service answers, accepts the
// token, and its store can serve. A refused token is a configuration
// error.
func (s *Store) Check(ctx context.Context) error {
	_, _, err := call(ctx, s, func(c seqdv1connect.SequenceServiceClient) (*connect.Response[seqdv1.CheckResponse], error) {
		return c.Check(ctx, connect.NewRequest(&seqdv1.CheckRequest{}))
	})
	return err
}

// Create implements sequence.Admin.
func (s *Store) Create(ctx context.Context, name string, spec sequence.Spec, pos sequence.Position) error {
	defer s.forget(name)
	_, _, err := call(ctx, s, func(c seqdv1connect.SequenceServiceClient) (*connect.Response[seqdv1.CreateResponse], error) {
		return c.Create(ctx, connect.NewRequest(&seqdv1.CreateRequest{Name: name, Spec: wire.Spec(spec), Position: wire.Position(pos)}))
	})
	return err
}

// info converts an Info answer.
func (s *Store) info(i *seqdv1.Info, err error) (sequence.Info, error) {
	if err != nil {
		return sequence.Info{}, err
	}
	return wire.FromInfo(i)
}

// Alter implements sequence.Admin.
func (s *Store) Alter(ctx context.Context, name string, cl sequence.Clauses) (sequence.Info, error) {
	defer s.forget(name)
	res, _, err := call(ctx, s, func(c seqdv1connect.SequenceServiceClient) (*connect.Response[seqdv1.AlterResponse], error) {
		return c.Alter(ctx, connect.NewRequest(&seqdv1.AlterRequest{Name: name, Clauses: wire.Clauses(cl)}))
	})
	if err != nil {
		return sequence.Info{}, err
	}
	return s.info(res.Msg.GetInfo(), nil)
}

// Rename implements sequence.Admin.
func (s *Store) Rename(ctx context.Context, name, newName string) error {
	defer s.forget(name, newName)
	_, _, err := call(ctx, s, func(c seqdv1connect.SequenceServiceClient) (*connect.Response[seqdv1.RenameResponse], error) {
		return c.Rename(ctx, connect.NewRequest(&seqdv1.RenameRequest{Name: name, NewName: newName}))
	})
	return err
}

// Drop implements sequence.Admin.
func (s *Store) Drop(ctx context.Context, name string) error {
	defer s.forget(name)
	_, _, err := call(ctx, s, func(c seqdv1connect.SequenceServiceClient) (*connect.Response[seqdv1.DropResponse], error) {
		return c.Drop(ctx, connect.NewRequest(&seqdv1.DropRequest{Name: name}))
	})
	return err
}

// Describe implements sequence.Admin.
func (s *Store) Describe(ctx context.Context, name string) (sequence.Info, error) {
	res, _, err := call(ctx, s, func(c seqdv1connect.SequenceServiceClient) (*connect.Response[seqdv1.DescribeResponse], error) {
		return c.Describe(ctx, connect.NewRequest(&seqdv1.DescribeRequest{Name: name}))
	})
	if err != nil {
		return sequence.Info{}, err
	}
	return s.info(res.Msg.GetInfo(), nil)
}

// List implements sequence.Admin.
func (s *Store) List(ctx context.Context) ([]sequence.Info, error) {
	res, _, err := call(ctx, s, func(c seqdv1connect.SequenceServiceClient) (*connect.Response[seqdv1.ListResponse], error) {
		return c.List(ctx, connect.NewRequest(&seqdv1.ListRequest{}))
	})
	if err != nil {
		return nil, err
	}
	out := make([]sequence.Info, 0, len(res.Msg.GetInfos()))
	for _, i := range res.Msg.GetInfos() {
		info, err := wire.FromInfo(i)
		if err != nil {
			return nil, err
		}
		out = append(out, info)
	}
	return out, nil
}

// SetVal implements sequence.Admin.
func (s *Store) SetVal(ctx context.Context, name string, value int64, isCalled bool) (sequence.Info, error) {
	defer s.forget(name)
	res, _, err := call(ctx, s, func(c seqdv1connect.SequenceServiceClient) (*connect.Response[seqdv1.SetValResponse], error) {
		return c.SetVal(ctx, connect.NewRequest(&seqdv1.SetValRequest{Name: name, Value: value, IsCalled: isCalled}))
	})
	if err != nil {
		return sequence.Info{}, err
	}
	return s.info(res.Msg.GetInfo(), nil)
}

// Attach implements sequence.Memberships.
func (s *Store) Attach(ctx context.Context, name string, m sequence.Member, counter sequence.Spec) (sequence.Info, error) {
	res, _, err := call(ctx, s, func(c seqdv1connect.SequenceServiceClient) (*connect.Response[seqdv1.AttachResponse], error) {
		return c.Attach(ctx, connect.NewRequest(&seqdv1.AttachRequest{Name: name, Member: wire.Member(m), Counter: wire.Spec(counter)}))
	})
	if err != nil {
		return sequence.Info{}, err
	}
	return s.info(res.Msg.GetInfo(), nil)
}

// Detach implements sequence.Memberships.
func (s *Store) Detach(ctx context.Context, name, db string) (bool, error) {
	defer s.forget(name)
	res, _, err := call(ctx, s, func(c seqdv1connect.SequenceServiceClient) (*connect.Response[seqdv1.DetachResponse], error) {
		return c.Detach(ctx, connect.NewRequest(&seqdv1.DetachRequest{Name: name, Db: db}))
	})
	if err != nil {
		return false, err
	}
	return res.Msg.GetDropped(), nil
}

var (
	_ sequence.Store     = (*Store)(nil)
	_ sequence.Releaser  = (*Store)(nil)
	_ sequence.Checker   = (*Store)(nil)
	_ sequence.Validator = (*Store)(nil)
	_ sequence.Recoverer = (*Store)(nil)
)
