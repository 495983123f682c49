package cosmosstore

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"math/rand/v2"
	"net/http"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/Azure/azure-sdk-for-go/sdk/azcore"
	"github.com/Azure/azure-sdk-for-go/sdk/data/azcosmos"

	"github.com/seqshim/seqshim/sequence"
)

// Options configure a Store. The zero value is usable.
type Options struct {
	// Prefix is prepended to every canonical sequence name to form the
	// document's key, so that several services share a container.
	Prefix string

	// MaxAttempts bounds the writes of one operation that keeps losing
	// races (412 Precondition Failed) or being throttled (429 Too Many
	// Requests); then it fails with sequence.ErrConflict, or with the 429
	// marked sequence.ErrThrottled. Default 16.
	MaxAttempts int
	// Backoff is the first delay after a lost race; it doubles up to
	// MaxBackoff, and each delay is drawn at random below it (full
	// jitter). Defaults 2ms and 200ms. After a 429 the delay is the
	// service's retry-after, plus up to a quarter of it at random.
	Backoff, MaxBackoff time.Duration

	// Now is the store's clock: it stamps the last reservation and decides
	// which UTC day a reservation counts in under a daily limit
	// (sequence.Spec.DailyLimit). Default time.Now; tests set a fake one.
	Now func() time.Time

	// ClientOptions are used by [Open] only, for the azcosmos client it
	// makes (a transport, logging, telemetry, retry delays). Its retried
	// status codes are set to 408, 500, 502, 503 and 504: 429 is the
	// Store's to retry and count (see the package documentation).
	ClientOptions *azcosmos.ClientOptions
}

func (o *Options) setDefaults() {
	if o.MaxAttempts <= 0 {
		o.MaxAttempts = 16
	}
	if o.Backoff <= 0 {
		o.Backoff = 2 * time.Millisecond
	}
	if o.MaxBackoff < o.Backoff {
		o.MaxBackoff = max(200*time.Millisecond, o.Backoff)
	}
	if o.Now == nil {
		o.Now = time.Now
	}
}

// Store is a sequence.Store on one Cosmos DB container: one document per
// sequence, each its own logical partition. It is safe for concurrent use.
type Store struct {
	client    *azcosmos.Client
	container *azcosmos.ContainerClient
	database  string
	name      string // the container's
	endpoint  string
	opts      Options

	mu    sync.Mutex
	known map[string]state         // per name: the document and ETag of the last write, or of the read before it (only updates, which take turns, remember: a read finishing after a write must not overwrite it)
	turns map[string]chan struct{} // per name: held by the update under way (see turn)

	stats struct {
		requests, conflicts, throttles atomic.Int64
		milliRU                        atomic.Int64
	}
}

// state is a document as a response left it, with its ETag.
type state struct {
	doc  document
	etag azcore.ETag
}

var (
	_ sequence.Store     = (*Store)(nil)
	_ sequence.Releaser  = (*Store)(nil)
	_ sequence.Checker   = (*Store)(nil)
	_ sequence.Validator = (*Store)(nil)
	_ sequence.Recoverer = (*Store)(nil)
)

// New returns a Store on a container of a database (created by
// [Store.Init]) through client. The client's retry policy should leave 429
// to the Store, as [Open]'s does: otherwise the SDK waits out throttling
// before the Store can count it.
func New(client *azcosmos.Client, database, container string, optFns ...func(*Options)) (*Store, error) {
	var o Options
	for _, fn := range optFns {
		fn(&o)
	}
	o.setDefaults()
	c, err := client.NewContainer(database, container)
	if err != nil {
		return nil, fmt.Errorf("cosmosstore: %w", err)
	}
	return &Store{client: client, container: c, database: database, name: container, endpoint: client.Endpoint(), opts: o,
		known: make(map[string]state), turns: make(map[string]chan struct{})}, nil
}

// Database returns the database's name.
func (s *Store) Database() string { return s.database }

// Container returns the container's name.
func (s *Store) Container() string { return s.name }

// Prefix returns the key prefix.
func (s *Store) Prefix() string { return s.opts.Prefix }

// Stats are a Store's request counts since it was made.
type Stats struct {
	Requests int64 // requests answered by Cosmos DB (any status)
	// Conflicts counts writes refused with 412 Precondition Failed: another
	// process wrote the document since this Store read it, so it read the
	// document again and retried.
	Conflicts int64
	// Throttles counts requests refused with 429 Too Many Requests.
	Throttles int64
	// RequestUnits is the sum of the responses' request charges.
	RequestUnits float64
}

// Stats returns the Store's request counts.
func (s *Store) Stats() Stats {
	return Stats{
		Requests: s.stats.requests.Load(), Conflicts: s.stats.conflicts.Load(), Throttles: s.stats.throttles.Load(),
		RequestUnits: float64(s.stats.milliRU.Load()) / 1000,
	}
}

func (s *Store) key(name string) string { return s.opts.Prefix + name }

func (s *Store) charge(ru float32) {
	s.stats.requests.Add(1)
	s.stats.milliRU.Add(int64(float64(ru)*1000 + 0.5))
}

// charged counts the request an error answered.
func (s *Store) charged(err error) {
	var re *azcore.ResponseError
	if !errors.As(err, &re) {
		return
	}
	ru := float32(0)
	if re.RawResponse != nil {
		if v, err := strconv.ParseFloat(re.RawResponse.Header.Get("x-ms-request-charge"), 32); err == nil {
			ru = float32(v)
		}
	}
	s.charge(ru)
}

func (s *Store) remember(name string, st state) {
	s.mu.Lock()
	s.known[name] = st
	s.mu.Unlock()
}

func (s *Store) forget(name string) {
	s.mu.Lock()
	delete(s.known, name)
	s.mu.Unlock()
}

func (s *Store) recall(name string) (state, bool) {
	s.mu.Lock()
	st, ok := s.known[name]
	s.mu.Unlock()
	return st, ok
}

// read is a point read of the document of key, nil if there is none.
func (s *Store) read(ctx context.Context, key string) (*state, error) {
	id := escapeID(key)
	resp, err := s.container.ReadItem(ctx, azcosmos.NewPartitionKeyString(id), id, nil)
	if err != nil {
		s.charged(err)
		if status(err) == http.StatusNotFound && !ownerMissing(err) {
			return nil, nil
		}
		return nil, err
	}
	s.charge(resp.RequestCharge)
	var d document
	if err := json.Unmarshal(resp.Value, &d); err != nil {
		return nil, fmt.Errorf("document %q does not decode: %w", id, err)
	}
	if d.Name != key {
		return nil, fmt.Errorf("document %q holds key %q, want %q", id, d.Name, key)
	}
	if resp.ETag == "" {
		return nil, fmt.Errorf("document %q came without an ETag", id) // a replace could not be conditioned on it
	}
	return &state{doc: d, etag: resp.ETag}, nil
}

// load reads the sequence name: sequence.ErrNotFound if it does not exist
// or a rename fenced it.
func (s *Store) load(ctx context.Context, name string) (*state, error) {
	st, err := s.read(ctx, s.key(name))
	if err != nil {
		return nil, s.wrap("read", name, err)
	}
	if st == nil || st.doc.Moved != "" {
		s.forget(name)
		return nil, sequence.NotFoundError(name)
	}
	return st, nil
}

// action is what an update does with the document its function changed.
type action int

const (
	replace action = iota // write it back
	keep                  // nothing to write
	remove                // delete it
)

// update is the store's one algorithm: read the document, compute the new
// one, write it back with If-Match on the ETag read. A 412 means another
// process wrote first: read again and retry, after a jittered backoff. A
// 429 waits the service's retry-after. Both are bounded by MaxAttempts.
//
// fn gets a copy of the document to change; it returns what to do with
// it, or an error that ends the update. With cached, the first attempt
// uses the document this Store last saw instead of reading it (one request
// instead of two when nobody else wrote); an error fn returns for a
// document not read in this call is not final either: the document is
// read and fn called again.
func (s *Store) update(ctx context.Context, op, name string, cached bool, fn func(d *document) (action, error)) error {
	release, err := s.turn(ctx, name)
	if err != nil {
		return err
	}
	defer release()
	var cur *state
	fresh := false
	if cached {
		if st, ok := s.recall(name); ok {
			cur = &st
		}
	}
	var lastErr error
	for attempt := 0; ; attempt++ {
		if attempt >= s.opts.MaxAttempts {
			s.forget(name)
			if status(lastErr) == http.StatusTooManyRequests {
				return s.wrap(op, name, lastErr) // marked throttled
			}
			return sequence.ConflictError(name)
		}
		if cur == nil {
			st, err := s.load(ctx, name)
			if status(err) == http.StatusTooManyRequests {
				lastErr = err
				s.stats.throttles.Add(1)
				if err := s.sleep(ctx, retryAfter(err)); err != nil {
					return err
				}
				continue
			}
			if err != nil {
				return err
			}
			cur, fresh = st, true
		}
		d := cur.doc
		act, err := fn(&d)
		if (err != nil || act == keep) && !fresh {
			// Decided on the remembered document, which may be stale:
			// read it and decide again.
			cur = nil
			attempt--
			continue
		}
		if err != nil {
			return err
		}
		switch act {
		case keep:
			s.remember(name, *cur)
			return nil
		case remove:
			if lastErr = s.delete(ctx, d.ID, cur.etag); lastErr == nil {
				s.forget(name)
				return nil
			}
		case replace:
			var etag azcore.ETag
			if etag, lastErr = s.replace(ctx, d, cur.etag); lastErr == nil {
				if etag != "" {
					s.remember(name, state{doc: d, etag: etag})
				} else {
					s.forget(name) // read it next time: never If-Match on nothing
				}
				return nil
			}
		}
		cur, fresh = nil, false
		switch status(lastErr) {
		case http.StatusPreconditionFailed:
			s.stats.conflicts.Add(1)
			if err := s.sleep(ctx, s.backoff(attempt)); err != nil {
				return err
			}
		case http.StatusTooManyRequests:
			s.stats.throttles.Add(1)
			if err := s.sleep(ctx, retryAfter(lastErr)); err != nil {
				return err
			}
		case http.StatusNotFound:
			if ownerMissing(lastErr) {
				return s.wrap(op, name, lastErr)
			}
			s.forget(name)
			return sequence.NotFoundError(name)
		default:
			s.forget(name)
			return s.wrap(op, name, lastErr)
		}
	}
}

// replace writes d over the document with If-Match on etag and returns
// the new ETag; its request is counted either way.
func (s *Store) replace(ctx context.Context, d document, etag azcore.ETag) (azcore.ETag, error) {
	body, err := json.Marshal(&d)
	if err != nil {
		return "", err
	}
	resp, err := s.container.ReplaceItem(ctx, azcosmos.NewPartitionKeyString(d.ID), d.ID, body, &azcosmos.ItemOptions{IfMatchEtag: &etag})
	if err != nil {
		s.charged(err)
		return "", err
	}
	s.charge(resp.RequestCharge)
	return resp.ETag, nil
}

// delete deletes the document id with If-Match on etag; its request is
// counted either way.
func (s *Store) delete(ctx context.Context, id string, etag azcore.ETag) error {
	resp, err := s.container.DeleteItem(ctx, azcosmos.NewPartitionKeyString(id), id, &azcosmos.ItemOptions{IfMatchEtag: &etag})
	if err != nil {
		s.charged(err)
		return err
	}
	s.charge(resp.RequestCharge)
	return nil
}

// turn waits until no other update of name is under way in this Store, or
// ctx ends. The goroutines of one process take turns: racing each other
// for one document, all but one would lose their write (and its request
// units) to a 412; only other processes race.
func (s *Store) turn(ctx context.Context, name string) (release func(), err error) {
	s.mu.Lock()
	ch := s.turns[name]
	if ch == nil {
		ch = make(chan struct{}, 1)
		s.turns[name] = ch
	}
	s.mu.Unlock()
	select {
	case ch <- struct{}{}:
		return func() { <-ch }, nil
	case <-ctx.Done():
		return nil, ctx.Err()
	}
}

// backoff is the delay before the retry after a lost race: full jitter
// below Backoff doubled attempt times, at most MaxBackoff.
func (s *Store) backoff(attempt int) time.Duration {
	d := s.opts.MaxBackoff
	if attempt < 20 {
		d = min(s.opts.Backoff<<attempt, s.opts.MaxBackoff)
	}
	return rand.N(d) + 1
}

// retryAfter is the delay a 429 asks for (x-ms-retry-after-ms, else
// Retry-After in seconds, else 100ms), plus up to a quarter of it at random
// so that the processes it throttled do not come back at once.
func retryAfter(err error) time.Duration {
	d := 100 * time.Millisecond
	var re *azcore.ResponseError
	if errors.As(err, &re) && re.RawResponse != nil {
		h := re.RawResponse.Header
		if ms, err := strconv.ParseFloat(h.Get("x-ms-retry-after-ms"), 64); err == nil && ms >= 0 {
			d = time.Duration(ms * float64(time.Millisecond))
		} else if sec, err := strconv.Atoi(h.Get("Retry-After")); err == nil && sec >= 0 {
			d = time.Duration(sec) * time.Second
		}
	}
	d = min(d, 30*time.Second)
	return d + rand.N(d/4+1)
}

func (s *Store) sleep(ctx context.Context, d time.Duration) error {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-t.C:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}

// Reserve implements [sequence.Reserver]: the block is computed by
// [sequence.Spec.ReserveAt] from the document, which is written back with
// If-Match on its ETag (see the package documentation).
func (s *Store) Reserve(ctx context.Context, name string, n int64) (sequence.Block, error) {
	return s.reserve(ctx, name, n, sequence.Token{})
}

// ReserveToken implements [sequence.Recoverer]: Reserve that writes token
// and the block into the same replace. A retry that finds its own token in
// the document (its earlier write applied, its answer lost) returns that
// block.
func (s *Store) ReserveToken(ctx context.Context, name string, n int64, token sequence.Token) (sequence.Block, error) {
	return s.reserve(ctx, name, n, token)
}

func (s *Store) reserve(ctx context.Context, name string, n int64, token sequence.Token) (sequence.Block, error) {
	if err := ctx.Err(); err != nil {
		return sequence.Block{}, err
	}
	tok := ""
	if !token.IsZero() {
		tok = token.String()
	}
	var b sequence.Block
	err := s.update(ctx, "reserve", name, true, func(d *document) (action, error) {
		info, err := d.info(name)
		if err != nil {
			return keep, err
		}
		if tok != "" && d.Tok == tok {
			b = d.tokenBlock(info.Spec) // this call's earlier write applied
			return keep, nil
		}
		now := s.opts.Now().Round(0)
		blk, pos, usage, err := info.Spec.ReserveAt(name, info.Position, info.DayUsage, now, n)
		if err != nil {
			return keep, err
		}
		d.Last, d.Called = num(pos.Last), pos.Called
		d.UDay, d.UUsed = num(usage.Day), num(usage.Used)
		d.Resv++
		d.Nres += num(blk.Count)
		d.LastRes = num(now.UnixMilli())
		d.clearToken()
		if tok != "" {
			d.Tok, d.TokFirst, d.TokStep, d.TokCount = tok, num(blk.First), num(blk.Step), num(blk.Count)
		}
		blk.Gen = uint64(d.Gen)
		b = blk
		return replace, nil
	})
	if err != nil {
		return sequence.Block{}, err
	}
	return b, nil
}

// Recover implements [sequence.Recoverer] with one point read: the block
// if the document's token is token.
func (s *Store) Recover(ctx context.Context, name string, token sequence.Token) (sequence.Block, bool, error) {
	if err := ctx.Err(); err != nil {
		return sequence.Block{}, false, err
	}
	st, err := s.load(ctx, name)
	if err != nil {
		return sequence.Block{}, false, err
	}
	if token.IsZero() || st.doc.Tok != token.String() {
		return sequence.Block{}, false, nil
	}
	spec, err := st.doc.spec()
	if err != nil {
		return sequence.Block{}, false, s.wrap("recover", name, err)
	}
	return st.doc.tokenBlock(spec), true, nil
}

// Gen implements [sequence.Validator] with one point read.
func (s *Store) Gen(ctx context.Context, name string) (uint64, error) {
	if err := ctx.Err(); err != nil {
		return 0, err
	}
	st, err := s.load(ctx, name)
	if err != nil {
		return 0, err
	}
	return uint64(st.doc.Gen), nil
}

// Release implements [sequence.Releaser] with [sequence.Spec.Release]: the
// tail is taken back only if nobody reserved after it, and only to the
// incarnation it came from.
func (s *Store) Release(ctx context.Context, name string, unused sequence.Block) (bool, error) {
	if err := ctx.Err(); err != nil {
		return false, err
	}
	released := false
	err := s.update(ctx, "release", name, true, func(d *document) (action, error) {
		released = false
		info, err := d.info(name)
		if err != nil {
			return keep, err
		}
		if unused.Gen != 0 && unused.Gen != info.Gen {
			return keep, nil
		}
		pos, ok := info.Spec.Release(info.Position, unused)
		if !ok {
			return keep, nil
		}
		d.Last, d.Called = num(pos.Last), pos.Called
		d.clearToken()
		released = true
		return replace, nil
	})
	if err != nil {
		return false, err
	}
	return released, nil
}

// Create implements [sequence.Admin]: one create of the document. A create
// whose answer was lost and that the SDK sent again meets its own document
// (the same incarnation) and succeeds.
func (s *Store) Create(ctx context.Context, name string, spec sequence.Spec, pos sequence.Position) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	if err := spec.Validate(); err != nil {
		return err
	}
	if _, err := spec.SetVal(name, pos.Last, pos.Called); err != nil {
		return err
	}
	d := newDocument(s.key(name), spec, pos, newGen())
	if err := s.create(ctx, d); err != nil {
		if status(err) == http.StatusConflict {
			st, rerr := s.read(ctx, d.Name)
			if rerr == nil && st != nil && st.doc.Gen == d.Gen {
				s.remember(name, *st)
				return nil
			}
			return sequence.ExistsError(name)
		}
		return s.wrap("create", name, err)
	}
	return nil
}

// create writes a new document; an existing one is a 409.
func (s *Store) create(ctx context.Context, d document) error {
	body, err := json.Marshal(&d)
	if err != nil {
		return err
	}
	resp, err := s.container.CreateItem(ctx, azcosmos.NewPartitionKeyString(d.ID), body, nil)
	if err != nil {
		s.charged(err)
		return err
	}
	s.charge(resp.RequestCharge)
	return nil
}

// newGen is a random incarnation, never 0, positive as an int64 (it is
// kept as one).
func newGen() uint64 { return rand.Uint64()>>1 | 1 }

// Alter implements [sequence.Admin] with [sequence.Clauses.Alter].
func (s *Store) Alter(ctx context.Context, name string, c sequence.Clauses) (sequence.Info, error) {
	return s.change(ctx, "alter", name, func(info *sequence.Info) error {
		spec, pos, err := c.Alter(info.Spec, info.Position)
		if err != nil {
			return err
		}
		info.Spec, info.Position = spec, pos
		return nil
	})
}

// SetVal implements [sequence.Admin] with [sequence.Spec.SetVal].
func (s *Store) SetVal(ctx context.Context, name string, value int64, isCalled bool) (sequence.Info, error) {
	return s.change(ctx, "setval", name, func(info *sequence.Info) error {
		pos, err := info.Spec.SetVal(name, value, isCalled)
		if err != nil {
			return err
		}
		info.Position = pos
		return nil
	})
}

// change applies fn to the sequence's spec and position and bumps its
// version, in one conditional replace.
func (s *Store) change(ctx context.Context, op, name string, fn func(info *sequence.Info) error) (sequence.Info, error) {
	if err := ctx.Err(); err != nil {
		return sequence.Info{}, err
	}
	var out sequence.Info
	err := s.update(ctx, op, name, false, func(d *document) (action, error) {
		info, err := d.info(name)
		if err != nil {
			return keep, s.wrap(op, name, err)
		}
		if err := fn(&info); err != nil {
			return keep, err
		}
		d.setSpec(info.Spec)
		d.Last, d.Called = num(info.Position.Last), info.Position.Called
		d.Ver++
		info.Version = int64(d.Ver)
		out = info
		return replace, nil
	})
	return out, err
}

// Attach implements [sequence.Memberships]: the counter compared with
// [sequence.Spec.SameCounter] and the member added with
// [sequence.WithMember], in one conditional replace, so a concurrent ALTER
// or Attach is never overwritten.
func (s *Store) Attach(ctx context.Context, name string, m sequence.Member, counter sequence.Spec) (sequence.Info, error) {
	if err := m.Validate(); err != nil {
		return sequence.Info{}, err
	}
	if err := ctx.Err(); err != nil {
		return sequence.Info{}, err
	}
	var out sequence.Info
	err := s.update(ctx, "attach", name, false, func(d *document) (action, error) {
		info, err := d.info(name)
		if err != nil {
			return keep, s.wrap("attach", name, err)
		}
		if !info.Spec.SameCounter(counter) {
			return keep, sequence.CounterError(name, info.Spec, info.Spec.Members)
		}
		info.Spec.Members = sequence.WithMember(slices.Clone(info.Spec.Members), m)
		d.Members = sequence.EncodeMembers(info.Spec.Members)
		out = info
		return replace, nil
	})
	return out, err
}

// Detach implements [sequence.Memberships]: the member removed in one
// conditional replace, or, when it was the last, the document deleted
// with If-Match on the ETag read, so an Attach that came first keeps it.
func (s *Store) Detach(ctx context.Context, name, db string) (bool, error) {
	if err := ctx.Err(); err != nil {
		return false, err
	}
	dropped := false
	err := s.update(ctx, "detach", name, false, func(d *document) (action, error) {
		dropped = false
		members, err := sequence.DecodeMembers(d.Members)
		if err != nil {
			return keep, s.wrap("detach", name, err)
		}
		if len(members) > 0 {
			if _, ok := (sequence.Spec{Members: members}).Member(db); !ok {
				return keep, nil
			}
			if rest := sequence.WithoutMember(members, db); len(rest) > 0 {
				d.Members = sequence.EncodeMembers(rest)
				return replace, nil
			}
		}
		dropped = true
		return remove, nil
	})
	if err != nil {
		return false, err
	}
	return dropped, nil
}

// Drop implements [sequence.Admin]: the document deleted with If-Match on
// the ETag read (a document a rename fenced is not there to drop).
func (s *Store) Drop(ctx context.Context, name string) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	err := s.update(ctx, "drop", name, false, func(*document) (action, error) { return remove, nil })
	return err
}

// Describe implements [sequence.Admin] with one point read.
func (s *Store) Describe(ctx context.Context, name string) (sequence.Info, error) {
	if err := ctx.Err(); err != nil {
		return sequence.Info{}, err
	}
	st, err := s.load(ctx, name)
	if err != nil {
		return sequence.Info{}, err
	}
	info, err := st.doc.info(name)
	if err != nil {
		return sequence.Info{}, s.wrap("describe", name, err)
	}
	return info, nil
}

// List implements [sequence.Admin]: a cross-partition query of the
// documents under the prefix, page by page, ordered by name here.
func (s *Store) List(ctx context.Context) ([]sequence.Info, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	q := "SELECT * FROM c WHERE STARTSWITH(c.name, @prefix)"
	pager := s.container.NewQueryItemsPager(q, azcosmos.NewPartitionKey(), &azcosmos.QueryOptions{
		QueryParameters: []azcosmos.QueryParameter{{Name: "@prefix", Value: s.opts.Prefix}},
	})
	var infos []sequence.Info
	for pager.More() {
		page, err := pager.NextPage(ctx)
		if err != nil {
			s.charged(err)
			return nil, s.wrap("list", "", err)
		}
		s.charge(page.RequestCharge)
		for _, raw := range page.Items {
			var d document
			if err := json.Unmarshal(raw, &d); err != nil {
				return nil, s.wrap("list", "", fmt.Errorf("a document does not decode: %w", err))
			}
			name, ok := strings.CutPrefix(d.Name, s.opts.Prefix)
			if !ok || d.Moved != "" || d.ID != escapeID(d.Name) {
				continue
			}
			info, err := d.info(name)
			if err != nil {
				return nil, s.wrap("list", name, err)
			}
			infos = append(infos, info)
		}
	}
	slices.SortFunc(infos, func(a, b sequence.Info) int { return strings.Compare(a.Name, b.Name) })
	return infos, nil
}

// Rename implements [sequence.Admin] in three writes, as a document's id
// and partition key cannot change and one transaction cannot span two
// logical partitions: fence the old document (moved), create the new one
// (from: the old key), delete the old. Between them neither name serves
// values. Repeating an interrupted rename completes it; repeating a
// completed one succeeds.
func (s *Store) Rename(ctx context.Context, name, newName string) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	oldKey, newKey := s.key(name), s.key(newName)
	defer s.forget(name)
	defer s.forget(newName)
	for attempt := 0; ; attempt++ {
		if attempt >= s.opts.MaxAttempts {
			return sequence.ConflictError(name)
		}
		old, err := s.read(ctx, oldKey)
		if err != nil {
			return s.wrap("rename", name, err)
		}
		if old == nil || (old.doc.Moved != "" && old.doc.Moved != newKey) {
			// Gone, or being renamed elsewhere: done already if the new
			// document came from it.
			nw, err := s.read(ctx, newKey)
			if err != nil {
				return s.wrap("rename", newName, err)
			}
			if old == nil && nw != nil && nw.doc.From == oldKey && nw.doc.Moved == "" {
				return nil
			}
			return sequence.NotFoundError(name)
		}
		fenced := *old
		if old.doc.Moved == "" {
			if name == newName {
				return sequence.ExistsError(newName)
			}
			nw, err := s.read(ctx, newKey)
			if err != nil {
				return s.wrap("rename", newName, err)
			}
			if nw != nil {
				return sequence.ExistsError(newName)
			}
			fenced.doc.Moved = newKey
			if fenced.etag, err = s.replace(ctx, fenced.doc, old.etag); err != nil {
				if c := status(err); c == http.StatusPreconditionFailed || c == http.StatusNotFound {
					s.stats.conflicts.Add(1)
					if err := s.sleep(ctx, s.backoff(attempt)); err != nil {
						return err
					}
					continue
				}
				return s.wrap("rename", name, err)
			}
			if fenced.etag == "" {
				continue // read the fenced document, and its ETag, again
			}
		}
		moved := fenced.doc
		moved.ID, moved.Name, moved.Moved, moved.From = escapeID(newKey), newKey, "", oldKey
		if err := s.create(ctx, moved); err != nil {
			if status(err) != http.StatusConflict {
				return s.wrap("rename", newName, err)
			}
			nw, rerr := s.read(ctx, newKey)
			if rerr != nil {
				return s.wrap("rename", newName, rerr)
			}
			if nw == nil || nw.doc.From != oldKey || nw.doc.Gen != moved.Gen {
				// The new name is taken: take the fence off again. If that
				// fails too, the old name stays fenced, and the same rename
				// repeated (once the new name is free) completes.
				fenced.doc.Moved = ""
				_, _ = s.replace(ctx, fenced.doc, fenced.etag)
				return sequence.ExistsError(newName)
			}
		}
		err = s.delete(ctx, fenced.doc.ID, fenced.etag)
		if c := status(err); err != nil && c != http.StatusNotFound && c != http.StatusPreconditionFailed {
			return s.wrap("rename", name, err)
		}
		return nil
	}
}
