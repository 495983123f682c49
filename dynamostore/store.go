package dynamostore

import (
	"context"
	"errors"
	"fmt"
	"maps"
	"math/rand/v2"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/config"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
	"github.com/seqshim/seqshim/sequence"
)

// API is the part of the DynamoDB client a Store uses; *dynamodb.Client
// implements it. Tests may substitute a fake.
type API interface {
	GetItem(ctx context.Context, in *dynamodb.GetItemInput, optFns ...func(*dynamodb.Options)) (*dynamodb.GetItemOutput, error)
	PutItem(ctx context.Context, in *dynamodb.PutItemInput, optFns ...func(*dynamodb.Options)) (*dynamodb.PutItemOutput, error)
	UpdateItem(ctx context.Context, in *dynamodb.UpdateItemInput, optFns ...func(*dynamodb.Options)) (*dynamodb.UpdateItemOutput, error)
	DeleteItem(ctx context.Context, in *dynamodb.DeleteItemInput, optFns ...func(*dynamodb.Options)) (*dynamodb.DeleteItemOutput, error)
	Scan(ctx context.Context, in *dynamodb.ScanInput, optFns ...func(*dynamodb.Options)) (*dynamodb.ScanOutput, error)
}

var _ API = (*dynamodb.Client)(nil)

// Options configure a Store. The zero value is usable.
type Options struct {
	// Prefix is prepended to every canonical sequence name to form the item
	// key, so that several services share a table and an IAM policy can
	// confine each to its own prefix (see [Policy]).
	Prefix string

	// MaxAttempts bounds the compare-and-set attempts of one operation that
	// keeps losing races; then it fails with sequence.ErrConflict. Default 10.
	MaxAttempts int
	// Backoff is the first retry delay after a lost race; it doubles up to
	// MaxBackoff, and each delay is drawn at random below it (full jitter).
	// Defaults 2ms and 100ms.
	Backoff, MaxBackoff time.Duration

	// Now is the store's clock: it stamps the last reservation and decides
	// which UTC day a reservation counts in under a daily limit
	// (sequence.Spec.DailyLimit). Default time.Now; tests set a fake one.
	Now func() time.Time

	// ConfigOptions and ClientOptions are used by [Open] only: they are
	// passed to config.LoadDefaultConfig and dynamodb.NewFromConfig, after
	// the settings taken from the URL.
	ConfigOptions []func(*config.LoadOptions) error
	ClientOptions []func(*dynamodb.Options)
}

func (o *Options) setDefaults() {
	if o.MaxAttempts <= 0 {
		o.MaxAttempts = 10
	}
	if o.Backoff <= 0 {
		o.Backoff = 2 * time.Millisecond
	}
	if o.MaxBackoff < o.Backoff {
		o.MaxBackoff = max(100*time.Millisecond, o.Backoff)
	}
	if o.Now == nil {
		o.Now = time.Now
	}
}

// Store is a sequence.Store on one DynamoDB table: one item per sequence. It
// is safe for concurrent use.
type Store struct {
	api   API
	table string
	opts  Options

	// For messages, from the client's options; empty if unknown.
	region, endpoint string

	mu     sync.Mutex
	known  map[string]entry  // per name: what the last response told about the item
	issued map[string]issued // per name: the state this Store's last reservation left
}

// issued identifies the item state right after this Store's last
// reservation of a sequence: a Release is allowed only from that state (or
// from the states earlier releases left, which keep it).
type issued struct {
	gen  string
	ver  int64
	resv string
}

var (
	_ sequence.Store     = (*Store)(nil)
	_ sequence.Releaser  = (*Store)(nil)
	_ sequence.Checker   = (*Store)(nil)
	_ sequence.Validator = (*Store)(nil)
	_ sequence.Recoverer = (*Store)(nil)
)

// entry is what a Store remembers of a sequence between reservations, so the
// common Reserve is a single UpdateItem. It is only a guess: every write is
// conditioned on ver, and a failed condition drops the entry.
type entry struct {
	spec   sequence.Spec
	gen    string
	ver    int64
	last   int64
	called bool
	usage  sequence.Usage // the day's count under spec.DailyLimit
}

// New returns a Store on the table (created by [CreateTable]) through client.
func New(client API, table string, optFns ...func(*Options)) *Store {
	var o Options
	for _, fn := range optFns {
		fn(&o)
	}
	o.setDefaults()
	s := &Store{api: client, table: table, opts: o, known: make(map[string]entry), issued: make(map[string]issued)}
	if c, ok := client.(interface{ Options() dynamodb.Options }); ok {
		co := c.Options()
		s.region = co.Region
		if co.BaseEndpoint != nil {
			s.endpoint = *co.BaseEndpoint
		}
	}
	return s
}

// Table returns the table name.
func (s *Store) Table() string { return s.table }

// Prefix returns the key prefix.
func (s *Store) Prefix() string { return s.opts.Prefix }

func (s *Store) key(name string) string { return s.opts.Prefix + name }

func (s *Store) remember(name string, r record) {
	s.mu.Lock()
	s.known[name] = entryOf(r)
	s.mu.Unlock()
}

func entryOf(r record) entry {
	return entry{spec: r.info.Spec, gen: r.gen, ver: r.info.Version, last: r.info.Position.Last, called: r.info.Position.Called,
		usage: r.info.DayUsage}
}

// reserved records a successful reservation: the next Release must find the
// item as this one left it.
func (s *Store) reserved(name string, e entry, attrs map[string]types.AttributeValue) {
	resv, _ := attrs[attrResv].(*types.AttributeValueMemberN)
	s.mu.Lock()
	s.known[name] = e
	if resv != nil {
		s.issued[name] = issued{gen: e.gen, ver: e.ver, resv: resv.Value}
	} else {
		delete(s.issued, name)
	}
	s.mu.Unlock()
}

func (s *Store) forget(name string) {
	s.mu.Lock()
	delete(s.known, name)
	s.mu.Unlock()
}

func (s *Store) recall(name string) (entry, bool) {
	s.mu.Lock()
	e, ok := s.known[name]
	s.mu.Unlock()
	return e, ok
}

// load is a consistent read of the sequence; a missing item, or one fenced by
// a rename, is sequence.ErrNotFound.
func (s *Store) load(ctx context.Context, name string) (record, error) {
	out, err := s.api.GetItem(ctx, &dynamodb.GetItemInput{
		TableName:      &s.table,
		Key:            keyOf(s.key(name)),
		ConsistentRead: aws.Bool(true),
	})
	if err != nil {
		return record{}, err
	}
	if len(out.Item) == 0 {
		s.forget(name)
		return record{}, sequence.NotFoundError(name)
	}
	r, err := decode(name, out.Item)
	if err != nil {
		return record{}, err
	}
	if r.moved != "" {
		s.forget(name)
		return record{}, sequence.NotFoundError(name)
	}
	s.remember(name, r)
	return r, nil
}

// Gen implements sequence.Validator: one consistent GetItem projected on
// the incarnation (and the rename fence: an item being renamed away is
// sequence.ErrNotFound, as for Reserve). The incarnation is the FNV-64a hash
// of the item's gen attribute (see genOf).
func (s *Store) Gen(ctx context.Context, name string) (uint64, error) {
	proj := "#gen, #moved"
	out, err := s.api.GetItem(ctx, &dynamodb.GetItemInput{
		TableName:                &s.table,
		Key:                      keyOf(s.key(name)),
		ConsistentRead:           aws.Bool(true),
		ProjectionExpression:     &proj,
		ExpressionAttributeNames: names(proj),
	})
	if err != nil {
		return 0, s.wrap("gen", name, err)
	}
	if _, moved := out.Item[attrMoved]; len(out.Item) == 0 || moved {
		return 0, sequence.NotFoundError(name)
	}
	g, ok := out.Item[attrGen].(*types.AttributeValueMemberS)
	if !ok {
		return 0, fmt.Errorf("%w %q: attribute %q", errMalformed, name, attrGen)
	}
	return genOf(g.Value), nil
}

// Reserve implements sequence.Reserver.
//
// The common case is one UpdateItem that adds the block to the stored
// position, conditioned on the item existing, on the incarnation and version
// this Store last saw and on the position leaving room for the whole block. Otherwise
// (first use, a changed spec, a block that would reach MAXVALUE/MINVALUE or
// wrap) it reads the item consistently, computes the block with
// [sequence.Spec.Reserve] and writes the new position with a compare-and-set.
// Either way the block is derived from the response to a write that
// succeeded; a request without a response is a gap (for ReserveToken: unless
// a read finds its token, see [Store.ReserveToken]).
//
// Under a daily limit the same write also moves the day's count (attributes
// uday and uused), and its condition enforces the limit: the fast path
// requires uused to leave room for the whole block on the same day, or the
// stored day to be an earlier one (the count then restarts); the slow path's
// compare-and-set covers the count read with the rest of the item. So the
// values handed out in one UTC day never exceed the limit, whatever number
// of Stores race; the block that reaches it is truncated by
// [sequence.Spec.ReserveAt], and a reservation with nothing left fails with
// sequence.ErrDailyLimit without writing.
func (s *Store) Reserve(ctx context.Context, name string, n int64) (sequence.Block, error) {
	return s.reserve(ctx, name, n, sequence.Token{})
}

// ReserveToken implements [sequence.Recoverer]: Reserve, whose write (the
// fast path's UpdateItem or the slow path's compare-and-set, daily limit or
// not) also sets tok to token and tokfirst, tokstep, tokcount to the block
// (on the fast path tokfirst is computed by the update itself from the
// position before it: DynamoDB evaluates every operand against the item as
// it was), and tokver to the version the write was conditioned on.
//
// The SDK does not retry a request made with a token that failed without
// an answer saying it was not applied (only throttling is retried): the
// error comes back at once, for the caller to Recover. And a token is
// applied at most once: the fast path's update is conditioned on tok not
// being token already (the compare-and-set on the reservation count), so a
// request sent again anyway (by another retrying layer) fails, and the read
// that follows finds the token and returns that block, not a second one.
func (s *Store) ReserveToken(ctx context.Context, name string, n int64, token sequence.Token) (sequence.Block, error) {
	return s.reserve(ctx, name, n, token)
}

// Recover implements [sequence.Recoverer] with one consistent GetItem: the
// block stored with token if tok is token, else false. Only the latest
// reservation's token is kept: once another reservation (with a token or
// without) or a release wrote the item, the proof is gone and the block
// stays a gap. A recovered block that is still the latest reservation (the
// version unchanged since) may have its tail released, like one received.
func (s *Store) Recover(ctx context.Context, name string, token sequence.Token) (sequence.Block, bool, error) {
	if token.IsZero() {
		return sequence.Block{}, false, nil
	}
	r, err := s.load(ctx, name)
	if errors.Is(err, sequence.ErrNotFound) {
		return sequence.Block{}, false, nil
	}
	if err != nil {
		return sequence.Block{}, false, s.wrap("recover", name, err)
	}
	b, ok := s.proved(name, r, token)
	return b, ok, nil
}

// proved returns the block of the reservation made with token if r, an
// item just read, carries it: the proof that the reservation was applied
// and is still the latest. A Release may then take back its tail, as after
// a reservation answered (unless the item's version changed since).
func (s *Store) proved(name string, r record, token sequence.Token) (sequence.Block, bool) {
	if token.IsZero() || r.tok != token.String() || r.tokBlock.Count <= 0 {
		return sequence.Block{}, false
	}
	s.mu.Lock()
	if r.info.Version == r.tokVer {
		s.issued[name] = issued{gen: r.gen, ver: r.info.Version, resv: r.resv}
	}
	s.mu.Unlock()
	b := r.tokBlock
	// As Reserve returns it: with the incarnation, and the policy as now.
	b.Gen, b.Policy = r.info.Gen, r.info.Spec.Policy
	return b, true
}

func (s *Store) reserve(ctx context.Context, name string, n int64, token sequence.Token) (sequence.Block, error) {
	if n < 1 {
		n = 1
	}
	return retry(ctx, s, "reserve", name, func() (sequence.Block, error) {
		now := s.opts.Now()
		if e, ok := s.recall(name); ok {
			if p, ok := plan(e.spec, e.called, n); ok && p.covers(e.last) && fits(e, now, n) {
				b, err := s.add(ctx, name, e, p, n, now, token)
				if err == nil || !conditionFailed(err) {
					return b, s.wrap("reserve", name, err)
				}
				// Stale: the spec changed, the position moved near a bound or
				// was reset, or the item is gone. Read it and decide again.
				s.forget(name)
			}
		}
		r, err := s.load(ctx, name)
		if err != nil {
			return sequence.Block{}, s.wrap("reserve", name, err)
		}
		if b, ok := s.proved(name, r, token); ok {
			// A request of this call was applied and its answer lost (the
			// SDK retried it, and the retry found the token): that block
			// is this call's, and no other is taken.
			return b, nil
		}
		e := entryOf(r)
		var b sequence.Block
		if p, ok := plan(e.spec, e.called, n); ok && p.covers(e.last) && fits(e, now, n) {
			b, err = s.add(ctx, name, e, p, n, now, token)
		} else {
			b, err = s.swap(ctx, name, r, n, now, token)
		}
		if conditionFailed(err) {
			s.forget(name)
		}
		return b, s.wrap("reserve", name, err)
	})
}

// refusalsOnly is the SDK's retryer for a reservation made with a token: it
// retries only throttling, an answer that the request was not applied, and
// returns every other failure (no answer, a reset, a server error: the
// request may have been applied) at once, so that the caller reads the
// token back ([Store.Recover]) within milliseconds rather than after the
// SDK's backoff of up to seconds, by when other processes may have reserved
// and taken the proof away.
type refusalsOnly struct{ aws.Retryer }

func (r refusalsOnly) IsErrorRetryable(err error) bool {
	return throttled(err) && r.Retryer.IsErrorRetryable(err)
}

// tokenRetries makes an operation's retryer refusalsOnly.
func tokenRetries(o *dynamodb.Options) {
	if o.Retryer != nil {
		o.Retryer = refusalsOnly{o.Retryer}
	}
}

// fastPlan is an atomic addition to the position that hands out exactly n
// values: the new last is last±d, valid for any stored last in [lo, hi].
type fastPlan struct {
	d      uint64
	lo, hi int64
}

func (p fastPlan) covers(last int64) bool { return p.lo <= last && last <= p.hi }

// plan works out the fast path for n values from the given called state. It
// lets the sequence model do the arithmetic: a reservation from the lowest position
// (highest, descending) gives the distance d, which is the same from every
// position that leaves room for n values; the range of those positions is
// the bound minus d. ok is false when n values never fit.
func plan(spec sequence.Spec, called bool, n int64) (fastPlan, bool) {
	from := spec.Min
	if spec.Descending() {
		from = spec.Max
	}
	b, p, err := spec.Reserve("", sequence.Position{Last: from, Called: called}, n)
	if err != nil || b.Count != n {
		return fastPlan{}, false
	}
	if spec.Descending() {
		d := uint64(from) - uint64(p.Last)
		return fastPlan{d: d, lo: int64(uint64(spec.Min) + d), hi: spec.Max}, true
	}
	d := uint64(p.Last) - uint64(from)
	return fastPlan{d: d, lo: spec.Min, hi: int64(uint64(spec.Max) - d)}, true
}

// fits reports whether the daily limit, as e last saw the day's count,
// leaves room for n values at now: the fast path hands out exactly n.
func fits(e entry, now time.Time, n int64) bool {
	_, left := e.spec.Allowance(e.usage, now)
	return left >= n
}

// add is the fast path: one conditional UpdateItem moving the position by
// p.d, the block derived from the new position it returns. Under a daily
// limit it also counts the n values in the day's usage, conditioned on the
// count read (see Reserve).
func (s *Store) add(ctx context.Context, name string, e entry, p fastPlan, n int64, now time.Time, token sequence.Token) (sequence.Block, error) {
	op := "+"
	if e.spec.Descending() {
		op = "-"
	}
	set := "SET #last = #last " + op + " :d, #lastres = :now"
	if !e.called {
		set += ", #called = :t"
	}
	add := " ADD #resv :one, #nres :cnt"
	cond := "attribute_exists(#name) AND #gen = :g AND #ver = :v AND #called = :c AND #last BETWEEN :lo AND :hi"
	values := map[string]types.AttributeValue{
		":d":   &types.AttributeValueMemberN{Value: strconv.FormatUint(p.d, 10)},
		":now": num(now.UnixMilli()),
		":one": num(1),
		":cnt": num(n),
		":g":   str(e.gen),
		":v":   num(e.ver),
		":c":   boolean(e.called),
		":lo":  num(p.lo),
		":hi":  num(p.hi),
	}
	if !e.called {
		values[":t"] = boolean(true)
	}
	var usage sequence.Usage
	if e.spec.DailyLimit > 0 {
		day, _ := e.spec.Allowance(e.usage, now)
		values[":uday"] = num(int64(day))
		if e.usage.Day == day {
			// The same day: room for n more, which ADD counts.
			add += ", #uused :cnt"
			cond += " AND #uday = :uday AND #uused <= :room"
			values[":room"] = num(e.spec.DailyLimit - n)
		} else {
			// A day after the one counted (or none yet): the count restarts.
			set += ", #uday = :uday, #uused = :cnt"
			cond += " AND (attribute_not_exists(#uday) OR #uday < :uday)"
		}
	}
	remove := ""
	if token.IsZero() {
		remove = " REMOVE #tok"
	} else {
		// The first value from the position before the update: the block
		// never wraps on the fast path, so it is last + INCREMENT once
		// called, last itself before.
		var off int64
		if e.called {
			off = e.spec.Increment
		}
		set += ", #tok = :tok, #tokfirst = #last + :off, #tokstep = :step, #tokcount = :cnt, #tokver = :v"
		// Applied once per token: the SDK's retry of a request whose answer
		// was lost fails here, and the read that follows finds the block.
		cond += " AND (attribute_not_exists(#tok) OR #tok <> :tok)"
		values[":tok"], values[":off"], values[":step"] = str(token.String()), num(off), num(e.spec.Increment)
	}
	out, err := s.updateItem(ctx, s.key(name), set+add+remove, cond, values, types.ReturnValueUpdatedNew, optsFor(token)...)
	if err != nil {
		return sequence.Block{}, err
	}
	if e.spec.DailyLimit > 0 {
		day, _ := e.spec.Allowance(e.usage, now)
		usage = sequence.Usage{Day: day, Used: n}
		if v, ok := out.Attributes[attrUUsed].(*types.AttributeValueMemberN); ok {
			if used, err := strconv.ParseInt(v.Value, 10, 64); err == nil {
				usage.Used = used
			}
		}
	}
	last, err := returnedLast(out.Attributes)
	if err != nil {
		return sequence.Block{}, err
	}
	old := int64(uint64(last) - p.d)
	if e.spec.Descending() {
		old = int64(uint64(last) + p.d)
	}
	b, pos, err := e.spec.Reserve(name, sequence.Position{Last: old, Called: e.called}, n)
	if err != nil || b.Count != n || pos.Last != last {
		// The condition guaranteed this; a mismatch means the item was
		// written by something that does not follow this schema.
		return sequence.Block{}, fmt.Errorf("%w %q: position %d after adding %d", errMalformed, name, last, p.d)
	}
	e.last, e.called, e.usage = last, true, usage
	s.reserved(name, e, out.Attributes)
	b.Gen = genOf(e.gen)
	return b, nil
}

// swap is the slow path: the block computed by the sequence model from the position
// (and the day's usage, under a daily limit) read in r, written with a
// compare-and-set on that exact state (the reservation counter makes it
// immune to ABA).
func (s *Store) swap(ctx context.Context, name string, r record, n int64, now time.Time, token sequence.Token) (sequence.Block, error) {
	b, pos, usage, err := r.info.Spec.ReserveAt(name, r.info.Position, r.info.DayUsage, now, n)
	if err != nil {
		return sequence.Block{}, err
	}
	set := "SET #last = :nl, #called = :t, #lastres = :now"
	values := map[string]types.AttributeValue{}
	if r.info.Spec.DailyLimit > 0 {
		set += ", #uday = :uday, #uused = :uused"
		values[":uday"], values[":uused"] = num(int64(usage.Day)), num(usage.Used)
	}
	update := set + " ADD #resv :one, #nres :cnt"
	if token.IsZero() {
		update += " REMOVE #tok"
	} else {
		update = "SET #tok = :tok, #tokfirst = :tf, #tokstep = :ts, #tokcount = :cnt, #tokver = :v, " + update[len("SET "):]
		values[":tok"], values[":tf"], values[":ts"] = str(token.String()), num(b.First), num(b.Step)
	}
	cond := "attribute_exists(#name) AND #gen = :g AND #ver = :v AND #last = :ol AND #called = :oc AND #resv = :r"
	// UPDATED_NEW only for symmetry with the fast path (and tests that
	// watch the wire): the block is known already.
	maps.Copy(values, map[string]types.AttributeValue{
		":nl":  num(pos.Last),
		":t":   boolean(true),
		":now": num(now.UnixMilli()),
		":one": num(1),
		":cnt": num(b.Count),
		":g":   str(r.gen),
		":v":   num(r.info.Version),
		":ol":  num(r.info.Position.Last),
		":oc":  boolean(r.info.Position.Called),
		":r":   &types.AttributeValueMemberN{Value: r.resv},
	})
	out, err := s.updateItem(ctx, s.key(name), update, cond, values, types.ReturnValueUpdatedNew, optsFor(token)...)
	if err != nil {
		return sequence.Block{}, err
	}
	if last, err := returnedLast(out.Attributes); err != nil || last != pos.Last {
		return sequence.Block{}, fmt.Errorf("%w %q: position after compare-and-set", errMalformed, name)
	}
	e := entryOf(r)
	e.last, e.called, e.usage = pos.Last, true, usage
	s.reserved(name, e, out.Attributes)
	b.Gen = genOf(e.gen)
	return b, nil
}

func returnedLast(attrs map[string]types.AttributeValue) (int64, error) {
	v, ok := attrs[attrLast].(*types.AttributeValueMemberN)
	if !ok {
		return 0, fmt.Errorf("%w: no %q in the response", errMalformed, attrLast)
	}
	return strconv.ParseInt(v.Value, 10, 64)
}

// Release implements sequence.Releaser. The position goes back to the first
// unused value only if nobody reserved after this Store's last reservation
// of the sequence: the item must still be as that reservation left it (same
// incarnation, version and reservation count; releases keep them), and
// [sequence.Spec.Release] must accept the position. A compare-and-set on
// that state enforces it. A Store that has not reserved the sequence refuses.
func (s *Store) Release(ctx context.Context, name string, unused sequence.Block) (bool, error) {
	if unused.Count <= 0 {
		return false, nil
	}
	return retry(ctx, s, "release", name, func() (bool, error) {
		r, err := s.load(ctx, name)
		if err != nil {
			return false, s.wrap("release", name, err)
		}
		s.mu.Lock()
		iss, ok := s.issued[name]
		s.mu.Unlock()
		if !ok || r.gen != iss.gen || r.info.Version != iss.ver || r.resv != iss.resv {
			return false, nil // reserved since, altered, or dropped and created again
		}
		if unused.Gen != 0 && unused.Gen != r.info.Gen {
			return false, nil // a block of the sequence dropped since
		}
		pos, ok := r.info.Spec.Release(r.info.Position, unused)
		if !ok {
			return false, nil
		}
		// The position moves back over the tail: a token of the
		// reservation before no longer proves its block is unused.
		update := "SET #last = :nl, #called = :nc REMOVE #tok"
		cond := "attribute_exists(#name) AND #gen = :g AND #ver = :v AND #last = :ol AND #called = :oc AND #resv = :r"
		_, err = s.updateItem(ctx, s.key(name), update, cond, map[string]types.AttributeValue{
			":nl": num(pos.Last),
			":nc": boolean(pos.Called),
			":g":  str(iss.gen),
			":v":  num(iss.ver),
			":ol": num(r.info.Position.Last),
			":oc": boolean(r.info.Position.Called),
			":r":  &types.AttributeValueMemberN{Value: iss.resv},
		}, types.ReturnValueNone)
		s.forget(name) // the fast path expects called = true; re-read next time
		return err == nil, s.wrap("release", name, err)
	})
}

// retry runs attempt, a read followed by a compare-and-set, until it ends
// otherwise than by losing the race (an error conditionFailed reports),
// sleeping with jittered backoff in between. After MaxAttempts lost races it
// fails with a serialization failure (40001); op and name label errors.
func retry[T any](ctx context.Context, s *Store, op, name string, attempt func() (T, error)) (T, error) {
	for i := 1; ; i++ {
		v, err := attempt()
		if !conditionFailed(err) {
			return v, err
		}
		var zero T
		if i >= s.opts.MaxAttempts {
			return zero, sequence.ConflictError(name)
		}
		if err := s.sleep(ctx, i); err != nil {
			return zero, s.wrap(op, name, err)
		}
	}
}

// sleep waits a random time below the attempt's backoff ceiling.
func (s *Store) sleep(ctx context.Context, attempt int) error {
	ceil := s.opts.Backoff << min(attempt-1, 20)
	if ceil > s.opts.MaxBackoff || ceil <= 0 {
		ceil = s.opts.MaxBackoff
	}
	t := time.NewTimer(rand.N(ceil) + 1)
	defer t.Stop()
	select {
	case <-t.C:
		return nil
	case <-ctx.Done():
		return context.Cause(ctx)
	}
}

func conditionFailed(err error) bool {
	var ccf *types.ConditionalCheckFailedException
	return errors.As(err, &ccf)
}

// trimPrefix returns the canonical name of a key, false if the key is not
// under the store's prefix.
func (s *Store) trimPrefix(key string) (string, bool) {
	if !strings.HasPrefix(key, s.opts.Prefix) {
		return "", false
	}
	return key[len(s.opts.Prefix):], true
}

// updateItem is a conditional UpdateItem of the item with key; the attribute
// names are those the two expressions use.
func (s *Store) updateItem(ctx context.Context, key, update, cond string, values map[string]types.AttributeValue, ret types.ReturnValue, optFns ...func(*dynamodb.Options)) (*dynamodb.UpdateItemOutput, error) {
	return s.api.UpdateItem(ctx, &dynamodb.UpdateItemInput{
		TableName:                 &s.table,
		Key:                       keyOf(key),
		UpdateExpression:          &update,
		ConditionExpression:       &cond,
		ExpressionAttributeNames:  names(update, cond),
		ExpressionAttributeValues: values,
		ReturnValues:              ret,
	}, optFns...)
}

// optsFor returns the options of a reservation's UpdateItem: with a token,
// the SDK does not send again a request that may have been applied.
func optsFor(token sequence.Token) []func(*dynamodb.Options) {
	if token.IsZero() {
		return nil
	}
	return []func(*dynamodb.Options){tokenRetries}
}
