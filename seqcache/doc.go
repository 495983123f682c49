// Package seqcache is the in-process block cache of seqshim: sequence values
// handed out from memory, reserved in blocks from a shared store and
// refilled in the background before they run out.
//
// # Basics
//
// The sequence model — [sequence.Spec], [sequence.Block], names, errors and
// the store contract — is package sequence; a store implements
// [sequence.Store], and the cache needs only its [sequence.Reserver] side.
//
// A [Cache] hands out values:
//
//	c := seqcache.New(store) // store: a sequence.Reserver, e.g. memstore.New()
//	defer c.Close()
//	id, err := c.Next(ctx, "orders_seq")
//
// or, skipping the name lookup, through a [Handle]:
//
//	h := c.Handle("orders_seq")
//	id, err := h.Next(ctx)
//
// # How the cache refills
//
// Each sequence has an active block and a queue of standby blocks. Next takes
// a value from the active block with one atomic add: no lock, no allocation,
// no I/O. When the values cached (left in the active block plus the standby
// queue) fall to the threshold max(rate × Options.Buffer, Options.MinThreshold),
// or when no standby block is left, one background refill reserves more. The
// rate comes from a sliding window (Options.Window of Options.Sample samples)
// of the count of values served, read from the blocks' cursors, so the hot
// path records nothing; a span shorter than one Sample counts as one Sample,
// so a burst in the first milliseconds is not taken for a rate of millions a
// second. A block asked of the store covers one Sample at the
// current rate, clamped to [Options.MinBlock, Options.MaxBlock]. At most one
// store call per sequence is in flight. When nothing is cached, Next waits
// for the refill, at most Options.MaxWait and no longer than its context
// allows, and then fails with an error wrapping [ErrUnavailable] and the
// store's last error. Transient store failures are retried in the background
// with jittered backoff, so the cache recovers by itself when the store does.
//
// # Guarantees
//
//   - A value is handed out at most once, by any Cache of any process sharing
//     the store: blocks come only from store responses.
//   - Values handed out by one Cache are increasing (decreasing for a negative
//     increment), except across a CYCLE wrap, or a setval, ALTER ... RESTART
//     or similar change to the sequence.
//   - With the store down, a warmed cache keeps serving for about
//     Options.Buffer at the observed rate.
//
// # Caveats
//
//   - Values may have gaps: a process that dies loses its cached values, as
//     PostgreSQL loses its CACHE. [Cache.Close] hands unused values back to a
//     [sequence.Releaser] store when nobody reserved after them.
//   - Changes to a sequence made by this process (setval, ALTER, DROP,
//     RENAME) go through [Cache.Change], so that no value of the old state
//     is handed out afterwards. After this process makes a name exist
//     (CREATE, the new name of a RENAME), [Cache.Invalidate] drops what the
//     cache may still hold for that name: values of an earlier sequence of
//     that name that another process dropped, and the "does not exist" its
//     refills got since.
//     Changes made by other processes take effect here when the cached values
//     run out, as with PostgreSQL's CACHE.
package seqcache
