package sequence

import (
	"context"
	"crypto/rand"
	"encoding/hex"
)

// Token names one reservation attempt: 128 random bits, chosen by the caller
// and written by the store with the reservation it applies, so that the
// caller can later prove the reservation was its own (see [Recoverer]). The
// zero Token names no attempt.
type Token [16]byte

// NewToken returns a fresh random Token (never the zero one).
func NewToken() Token {
	var t Token
	for t.IsZero() {
		rand.Read(t[:]) //nolint:errcheck // crypto/rand.Read never fails (it crashes the program instead)
	}
	return t
}

// IsZero reports whether t is the zero Token.
func (t Token) IsZero() bool { return t == Token{} }

// String returns t in hexadecimal, 32 characters: the form stores keep.
func (t Token) String() string { return hex.EncodeToString(t[:]) }

// Recoverer is an optional capability of a store: recovering the block of a
// reservation whose answer was lost (a timeout, a reset connection, a
// response dropped after the store applied it, a commit whose outcome is
// unknown), instead of leaving it a gap.
//
// ReserveToken is [Reserver.Reserve] that also writes token, atomically
// with the reservation it applies, together with the block handed out. A
// store keeps the token of its latest reservation only (Reserve without a
// token clears it).
//
// Recover reads the sequence consistently, once, and returns the block of
// the reservation made with token, true, if and only if the stored token is
// that one: the proof that this caller's reservation was applied and that
// nobody reserved after it. Otherwise it returns false, nil (no reservation
// with the token applied yet, or another reservation, a release or a drop
// came after it: the block, if any, stays a gap), or an error when it could
// not read (also a gap). A block is never guessed.
//
// A caller uses each token for one ReserveToken call and, only after that
// call failed and its context was cancelled, for at most one Recover call:
// a block is then received once, by the reservation's answer or by Recover,
// never both. A request still in flight that applies after Recover said
// false is a gap, never a duplicate.
//
// A wrapper that embeds a store and overrides Reserve must implement these
// too (or hide them): a cache would otherwise reserve around its Reserve.
type Recoverer interface {
	ReserveToken(ctx context.Context, name string, n int64, token Token) (Block, error)
	Recover(ctx context.Context, name string, token Token) (Block, bool, error)
}
