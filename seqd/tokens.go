package seqd

import (
	"context"
	"encoding/hex"
	"errors"
	"sync"
	"time"

	"connectrpc.com/connect"

	"github.com/seqshim/seqshim/sequence"
)

// Reservations are idempotent. A client names each attempt with a token
// (sequence.Token) and repeats it on a retry after a lost answer: the server
// remembers, per client, the block it gave each token for TokenTTL, and
// answers a repeat with the same block — never a second one. Recover of a
// token it gave nothing (yet) says so and gives that token up: a Reserve
// with it arriving later is refused, so a client that moved on never gets a
// block it does not know of.

// reserveTimeout bounds a reservation that runs on after its caller left,
// so that its retry finds the block.
const reserveTimeout = 30 * time.Second

// maxTokens bounds the tokens remembered; the oldest go first.
const maxTokens = 1 << 20

type tokenKey struct {
	client string
	tok    sequence.Token
}

type tokenEntry struct {
	done      chan struct{} // closed when block and err are set
	name      string
	count     int64
	at        time.Time
	answer    sequence.Block // the block answered, the same for every retry
	block     sequence.Block // what of it is still out: a tail given back is cut off
	epoch     uint64         // the server cache's epoch the block was taken in (0: from the store directly, or none)
	err       error
	abandoned bool   // Recover found no block: the token gets none, ever
	seq       uint64 // order of the client's reservations
}

type tokenLog struct {
	ttl time.Duration
	now func() time.Time

	mu     sync.Mutex
	m      map[tokenKey]*tokenEntry
	fifo   []tokenRef // in insertion order, for expiry
	seq    uint64
	latest map[nameKey]uint64 // the seq of each client's latest reservation of each sequence
}

type nameKey struct{ client, name string }

type tokenRef struct {
	k tokenKey
	e *tokenEntry
}

func newTokenLog(ttl time.Duration, now func() time.Time) *tokenLog {
	return &tokenLog{ttl: ttl, now: now, m: map[tokenKey]*tokenEntry{}, latest: map[nameKey]uint64{}}
}

func parseToken(s string) (sequence.Token, error) {
	var t sequence.Token
	b, err := hex.DecodeString(s)
	if err != nil || len(b) != len(t) {
		return t, invalidf("token %.40q: want 32 hexadecimal digits", s)
	}
	copy(t[:], b)
	if t.IsZero() {
		return t, invalidf("the zero token names no attempt")
	}
	return t, nil
}

// insertLocked remembers e under k, forgetting entries past their time.
func (l *tokenLog) insertLocked(k tokenKey, e *tokenEntry) {
	now := l.now()
	drop := 0
	for drop < len(l.fifo) && (now.Sub(l.fifo[drop].e.at) > l.ttl || len(l.fifo)-drop >= maxTokens) {
		r := l.fifo[drop]
		if l.m[r.k] == r.e {
			delete(l.m, r.k)
		}
		drop++
	}
	if drop > 0 {
		l.fifo = append(l.fifo[:0], l.fifo[drop:]...)
	}
	l.m[k] = e
	l.fifo = append(l.fifo, tokenRef{k, e})
}

// do runs reserve once per (client, token): a repeat waits for the first and
// gets its block. A reservation that failed is forgotten, so that its retry
// tries again.
func (l *tokenLog) do(ctx context.Context, client string, tok sequence.Token, name string, count int64,
	reserve func(ctx context.Context) (sequence.Block, uint64, error)) (sequence.Block, error) {
	k := tokenKey{client, tok}
	l.mu.Lock()
	if e := l.m[k]; e != nil {
		l.mu.Unlock()
		switch {
		case e.abandoned:
			return sequence.Block{}, connect.NewError(connect.CodeFailedPrecondition,
				errors.New("seqd: token "+tok.String()+" was given up by Recover: a new attempt needs a new token"))
		case e.name != name || e.count != count:
			return sequence.Block{}, invalidf("token %s was used for another request (%s, %d values)", tok, e.name, e.count)
		}
		select {
		case <-e.done:
			return e.answer, e.err
		case <-ctx.Done():
			return sequence.Block{}, ctx.Err()
		}
	}
	l.seq++
	e := &tokenEntry{done: make(chan struct{}), name: name, count: count, at: l.now(), seq: l.seq}
	l.latest[nameKey{client, name}] = l.seq
	l.insertLocked(k, e)
	l.mu.Unlock()

	// The reservation runs to its end even if the caller leaves: its retry
	// is to find the block.
	rctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), reserveTimeout)
	e.block, e.epoch, e.err = reserve(rctx)
	e.answer = e.block
	cancel()
	if e.err != nil {
		l.mu.Lock()
		if l.m[k] == e {
			delete(l.m, k)
		}
		l.mu.Unlock()
	}
	close(e.done)
	return e.answer, e.err
}

// giveBack takes back unused, the tail of what the reservation of
// (client, token) of sequence name handed out and is still out, with
// untake; it reports whether it did. The token is the proof that the values
// are the caller's: a client can give back only its own.
func (l *tokenLog) giveBack(client string, tok sequence.Token, name string, unused sequence.Block,
	untake func(sequence.Block, uint64) bool) bool {
	l.mu.Lock()
	defer l.mu.Unlock()
	e := l.m[tokenKey{client, tok}]
	if e == nil || e.abandoned || e.name != name {
		return false
	}
	select {
	case <-e.done:
	default:
		return false // still being reserved
	}
	out := e.block
	if e.err != nil || unused.Count < 1 || unused.Count > out.Count || unused.Step != out.Step ||
		!out.Contains(unused.First) || unused.Last() != out.Last() {
		return false
	}
	unused.Gen = out.Gen
	if !untake(unused, e.epoch) {
		return false
	}
	out.Count -= unused.Count
	e.block = out
	return true
}

// recover returns the block given to (client, token), waiting for a
// reservation in flight; found is false when there is none, and the token
// is given up from then on.
func (l *tokenLog) recover(ctx context.Context, client string, tok sequence.Token, name string) (sequence.Block, bool, error) {
	k := tokenKey{client, tok}
	for {
		l.mu.Lock()
		e := l.m[k]
		if e == nil {
			e = &tokenEntry{done: make(chan struct{}), name: name, at: l.now(), abandoned: true}
			close(e.done)
			l.insertLocked(k, e)
			l.mu.Unlock()
			return sequence.Block{}, false, nil
		}
		l.mu.Unlock()
		if e.name != name || e.abandoned {
			return sequence.Block{}, false, nil
		}
		select {
		case <-e.done:
		case <-ctx.Done():
			return sequence.Block{}, false, ctx.Err()
		}
		if e.err == nil {
			// Only the client's latest reservation of the sequence, as a
			// store keeps only the latest token: a block older than one
			// the client got since would take its values backwards.
			l.mu.Lock()
			latest := l.latest[nameKey{client, name}] == e.seq
			l.mu.Unlock()
			if !latest {
				return sequence.Block{}, false, nil
			}
			return e.answer, true, nil
		}
		// It failed and was forgotten: look again, so that the token is
		// given up (or a retry since is waited for).
	}
}
