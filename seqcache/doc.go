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
// queue) fall below the threshold max(rate × Options.Buffer,
// Options.MinThreshold), or when no standby block is left, one background
// refill reserves more. The rate comes from a sliding window (Options.Window
// of Options.Sample samples) of the count of values served, read from the
// blocks' cursors, so the hot path records nothing; a span shorter than one
// Sample counts as one Sample, so a burst in the first milliseconds is not
// taken for a rate of millions a second. How large a block is asked of the
// store is the subject of Sizing, below. At most one store call per sequence
// is in flight. When nothing is cached, Next waits for the refill, at most
// Options.MaxWait and no longer than its context allows, and then fails with an error wrapping [ErrUnavailable] and the
// store's last error. Transient store failures are retried in the background
// with jittered backoff, so the cache recovers by itself when the store does.
//
// # Recovery of lost answers
//
// A reservation whose answer is lost (a timeout, a reset connection, a
// response dropped after the store applied it) would be a gap of a whole
// block. With a store that is a [sequence.Recoverer] (dynamostore,
// sqlstore), each reservation attempt carries a fresh random
// [sequence.Token] that the store writes with the block it hands out. After
// a failure that may hide an applied reservation (a transient one, not
// [sequence.ErrThrottled], which the store reports instead of applying),
// the attempt's context is cancelled and the token is read back once,
// consistently, under Options.RefillTimeout: if the store's latest
// reservation carries it, that is proof, and the block is adopted exactly as
// if the answer had arrived (counted in Stats.Recoveries and
// Stats.Recovered, and seqshim.values.recovered). Without proof (another
// reservation came after it, the request never applied, or applies only
// later) the block stays a gap and the next attempt has a new token: a
// block is never guessed, and never received twice. A read-back that fails
// too (the store unreachable) is tried again by the next refills before any
// new reservation (up to 8 times, about 4 s of backoff, within the default
// MaxWait; not after a change to the sequence, nor when throttled), so that
// an outage that loses answers costs one block, not one per retry.
// Options.NoRecovery turns this off.
//
// # Sizing
//
// A block is sized so that one process writes little, and so that a fleet
// of processes sharing a sequence writes it less often than the store
// allows, without configuration and without the processes knowing of each
// other:
//
//   - Short lives. The first two blocks, asked before any value is drawn,
//     are Options.MinBlock (default 50) values: a process that draws 10
//     values and is killed within its first second loses 90. Later blocks
//     follow the rate measured: a span (below) of consumption at the rate
//     over Options.Window, or at the rate of the last block used up if that
//     is higher (its time counted as at least 5 ms), for at most twice the
//     time the process has been drawing: blocks grow as fast as a starting
//     process draws (a cold start at 10,000 values/s waits for the store at
//     most 3 times, with round trips up to 50 ms), while a burst of a few
//     milliseconds gets blocks of a few milliseconds of it, not of a second.
//   - The span. A block holds a span of consumption, times a random factor
//     in [1.1, 1.4): a rate read a little low still gets a block lasting a
//     span (at a steady 10,000 values/s, a store write brings about 12,500
//     values), and processes drawing at the same rate come to refill at
//     different moments. The span is Options.Sample (1 s), longer under
//     back-pressure.
//   - The fleet. The values between the end of a process's last block and
//     the start of its new one went to the other processes: from them a
//     process reads the fleet's consumption (over at least 250 ms; values
//     reserved rather than drawn, so a fleet whose processes die with
//     values cached reads it high, and writes less), and a block holds at
//     least 1/500 s of it. Whatever the number of processes
//     and however their rates differ, a fleet then writes a sequence at most
//     500 / 1.1 ≈ 450 times a second in steady state (about 400 on average),
//     besides the first blocks of processes starting (5 to 8 writes each in
//     their first second): below DynamoDB's 1,000 writes/s per item. A fleet
//     starting more than about 100 processes a second on one sequence is
//     throttled while it starts.
//   - Back-pressure. A store's answer that it is over capacity
//     ([sequence.ErrThrottled]: DynamoDB's ThrottlingException or
//     ProvisionedThroughputExceededException, a busy SQLite file,
//     PostgreSQL's lock timeout 55P03) doubles the span, once per refill
//     however often the refill is retried, up to 64 Samples; the refill is
//     retried after a random wait of up to 100 ms, doubling to 2 s. Each 10
//     to 15 minutes (drawn anew each time) without a throttled call, the
//     span halves, back down to Sample. A store slower than the fleet
//     budget (a SQLite file on a slow disk) thus settles its fleet too,
//     and the cached values (Options.Buffer) carry the callers through the
//     retries.
//
// Blocks are clamped to [Options.MinBlock, Options.MaxBlock] (default
// 1,000,000). [Stats].Span and [Stats].Throttled show a sequence's span and
// throttled calls. A fleet that keeps its throttled spans loses more values
// when its processes die: up to a block and the buffer each.
//
// A sequence's cache policy in the store ([sequence.Policy]: seqctl alter
// --buffer, --min-block, --max-block) overrides Options.Buffer, MinBlock and
// MaxBlock for that sequence: every block carries the policy as the store
// held it ([sequence.Block.Policy]), and the handle applies it as the block
// arrives, so the threshold and the next block asked for follow it, in every
// process, from its next reservation and without a restart. A zero field
// keeps the Option; where a policy bound and an Option bound cross, the
// policy's wins. [Handle.Policy] returns the policy in force.
//
// # Revalidation
//
// PostgreSQL's CACHE keeps setval and ALTER SEQUENCE run by one session
// invisible to sessions holding cached values until those run out, and so
// does the cache: changes made by other processes take effect at the next
// reservation. A dropped sequence, though, is gone for every session, so the
// cache bounds how long it hands out values of a sequence that another
// process dropped, dropped and created again, or renamed:
//
//   - Every block carries the incarnation of the sequence it was reserved
//     from ([sequence.Block.Gen]); a store's Create gives each sequence a new
//     one, which Alter, SetVal and Rename keep. A refill that brings a block
//     of another incarnation than the values cached drops those.
//   - A handle that holds values and got no block from the store for
//     Options.Revalidate (default [DefaultRevalidate], 2s) reads the
//     sequence's incarnation once, in the background: [sequence.Validator]'s
//     Gen (one consistent read of one attribute or column), or Describe if
//     the store has only that. If the sequence is gone (renamed away, or
//     dropped) or is another incarnation, the cached values are dropped
//     (counted as wasted, [Stats].Revalidations, and logged at INFO), and
//     the next Next reserves from the new sequence or fails with the store's
//     42P01.
//
// So from Options.Revalidate plus one store read after the change on, Next
// never returns a value of the old sequence. The cost is at most one read
// per sequence per interval per process, and none for a sequence whose
// refills come more often than that (a reservation tells the incarnation
// too) or that has nothing cached; Next stays one atomic add, with no clock
// read. The default, 2s, keeps the window in which two processes could hand
// out the same value of a recreated sequence shorter than a deployment
// notices, while a process with a hundred quiet sequences adds 50 reads a
// second at most — a small fraction of what DynamoDB or a SQL database
// serves, and nothing for busy sequences. A check the store does not answer
// (unreachable, timed out) leaves the values cached, as the cache keeps
// serving while refills fail ([Stats].CheckErrors): the bound holds while
// the store answers. A negative Options.Revalidate turns the checks off; a
// store with neither Gen nor Describe is never checked, and one whose blocks
// carry no incarnation (Gen 0) is checked for existence only. A sequence's
// cache policy ([sequence.Policy].Revalidate) sets its own interval, where
// the checks are on; a shorter one is in force once the background loop
// wakes after the policy arrived (at most Options.Revalidate later).
//
// # Metrics
//
// The cache reports to Options.MeterProvider through the OpenTelemetry
// metric API. The default is the global provider, otel.GetMeterProvider(),
// which forwards to the SDK a program installs with otel.SetMeterProvider,
// before or after New. The instrumentation scope is
// github.com/seqshim/seqshim/seqcache, and every instrument has the
// attribute seqshim.sequence, the sequence's canonical name:
//
//	instrument               kind                  unit     what
//	seqshim.values.served    counter, observable   {value}  values handed out by Next
//	seqshim.values.reserved  counter, observable   {value}  values in the blocks received from the store
//	seqshim.values.wasted    counter               {value}  reserved values given up unused: dropped by Invalidate, Change or revalidation, or not handed back by Close
//	seqshim.values.released  counter               {value}  unused values handed back to the store, by Close and Change
//	seqshim.values.recovered counter               {value}  values in blocks whose answer was lost, adopted on proof (see Recovery of lost answers); in reserved too
//	seqshim.cache.remaining  gauge, observable     {value}  values cached now: the active block's rest and the standby blocks
//	seqshim.cache.runway     gauge, observable     s        remaining / the consumption rate over Options.Window; absent while that rate is 0
//	seqshim.refill.duration  histogram             s        each store call of a refill; with error.type if it failed
//	seqshim.wait.duration    histogram             s        each Next that waited for a block; with error.type if it got no value
//	seqshim.store.errors     counter               {error}  failed store calls of refills, by error.type (a lost answer recovered too)
//	seqshim.block.size       histogram             {value}  values in each block received from the store
//
// error.type is timeout, canceled, misconfigured ([sequence.ErrMisconfigured]),
// not_found, limit, conflict, the store's own code when its error has one
// (an ErrorCode method, as DynamoDB's errors have: ThrottlingException; a
// SQLState method: a SQLSTATE), throttled ([sequence.ErrThrottled] without
// such a code: a busy SQLite file), network, or _OTHER; a wait's is unavailable
// when Options.MaxWait passed ([ErrUnavailable]) and closed after Close.
//
// The hot path records nothing: Next inside a block stays one atomic add,
// with no allocation. Values served and reserved and the values cached are
// the counters the cache keeps anyway; a callback reads them when the
// provider collects, under each sequence's lock, so that one collection is
// consistent: reserved − served = remaining + wasted + released (but for
// the values a Change or Close is handing back at that moment). The
// histograms and the other counters are recorded on slow paths (a store
// call, a wait, values dropped or handed back), never while the cache holds
// a lock; a store call's records and log line come just after the callers
// waiting for its block are woken (Close waits for them). The observable
// instruments report while the Cache is open; wasted and released keep
// what Close counted. [Stats] has the same counters.
//
// examples/prometheus in the repository exports the instruments with the
// Prometheus exporter.
//
// # Logs
//
// Options.Logger (default: slog.Default() as it is at each message) gets one
// line per change of a sequence's state, never one per retry or per caller;
// each names the sequence (seqshim.sequence) and the store (seqshim.store,
// Options.StoreName):
//
//   - WARN "seqshim: refill failed": a store call failed after the last
//     block arrived (attributes error, and retrying: whether the cache
//     retries by itself). A definitive answer of the store — the sequence
//     does not exist, or reached its limit — is not a failure: Next returns
//     it, as PostgreSQL would.
//   - ERROR "seqshim: cache ran out, a caller got no value": the first Next
//     since then that waited for a block and got none (error, which wraps
//     [ErrUnavailable] or the caller's context error and the store's last
//     error; waited).
//   - INFO "seqshim: refills recovered": a block arrived after either
//     (after: how long since the trouble began; store_errors and
//     unserved_calls: how many store calls failed and how many callers got
//     no value meanwhile).
//
// # Guarantees
//
//   - A value is handed out at most once, by any Cache of any process sharing
//     the store: blocks come only from store responses, or from a store's
//     proof that a reservation whose answer was lost was this cache's.
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
//     run out, as with PostgreSQL's CACHE — but DROP, DROP and CREATE, and
//     RENAME, which take effect within Options.Revalidate (see
//     Revalidation).
//   - Two Caches with the same MeterProvider and the same sequence names
//     report the same series; give each its own provider. (The driver keeps
//     one Cache per store.) Values lost by a process that died are not
//     counted as wasted anywhere: only this process's losses are known.
package seqcache
