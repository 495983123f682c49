// Package dynamostore is a [sequence.Store] on Amazon DynamoDB: one item per
// sequence, blocks of values reserved with conditional single-item writes.
//
// # Usage
//
// Create the table once (seqctl init does this), then open stores on it:
//
//	cfg, _ := config.LoadDefaultConfig(ctx)
//	client := dynamodb.NewFromConfig(cfg)
//	err := dynamostore.CreateTable(ctx, client, "seqshim") // on-demand, waits until ACTIVE
//	st := dynamostore.New(client, "seqshim", func(o *dynamostore.Options) { o.Prefix = "billing/" })
//	cache := seqcache.New(st)
//
// or from a store URL, on top of the SDK's default configuration chain
// (credentials, AWS_REGION, AWS_ENDPOINT_URL_DYNAMODB, shared config files):
//
//	st, err := dynamostore.Open(ctx, "dynamodb://seqshim?region=eu-west-1&prefix=billing/")
//
// [Policy] prints the least-privilege IAM policy for a table and prefix: a
// service needs only GetItem and UpdateItem on its own keys.
//
// # Item schema
//
// The table has a single string partition key, name. Each sequence is one
// item:
//
//	name     S     Options.Prefix + canonical sequence name (see sequence.ParseName)
//	type     S     smallint, integer or bigint
//	inc      N     INCREMENT BY (negative: descending)
//	min, max N     MINVALUE, MAXVALUE
//	start    N     START WITH
//	cache    N     CACHE (kept as a hint)
//	cycle    BOOL  CYCLE
//	last     N     position: the last value handed out, or the next one if not called
//	called   BOOL  position: whether last was handed out (false after create,
//	               setval(s, v, false), ALTER ... RESTART, or a release)
//	gen      S     incarnation: random, set by Create, so that a sequence dropped
//	               and created again is never mistaken for the old one; its
//	               FNV-64a hash is sequence.Info.Gen and sequence.Block.Gen, and
//	               Store.Gen reads it with a consistent GetItem projected on gen
//	ver      N     version: 1 at create, bumped by Alter, SetVal and Rename
//	resv     N     reservations: blocks handed out
//	nres     N     values in those blocks
//	lastres  N     Unix milliseconds of the last reservation (absent if none)
//	owner    S     OWNED BY (sequence.Spec.OwnedBy; absent if none)
//	defaults S     the table columns whose default draws from the sequence
//	               (sequence.Spec.Defaults as sequence.EncodeDefaults writes
//	               them; absent if none)
//	dlimit   N     daily limit (sequence.Spec.DailyLimit; absent if none)
//	uday     N     the UTC day (sequence.Day) uused counts; absent until a
//	               reservation under a daily limit
//	uused    N     values reserved on uday under the daily limit
//	pbuf     N     cache policy: buffer in milliseconds (sequence.Policy.Buffer;
//	               absent for the process default)
//	pminb    N     cache policy: min block (absent for the process default)
//	pmaxb    N     cache policy: max block (absent for the process default)
//	preval   N     cache policy: revalidate interval in milliseconds (absent for
//	               the process default)
//	members  M     the databases that declared the sequence
//	               (sequence.Spec.Members): each key a database
//	               (sequence.Member.DB), its value a string, the JSON
//	               {"owned_by": ..., "defaults": [...], "native": {"first":
//	               ..., "last": ...}} of its view, defaults as
//	               sequence.EncodeDefaults writes them, native the range
//	               reserved for the database's native sequence
//	               (sequence.Member.Native); absent (or empty) for none
//	tok      S     the token of the latest reservation made with one
//	               (sequence.Recoverer; removed by a reservation without a
//	               token and by a release), with its block:
//	tokfirst N     the block's first value
//	tokstep  N     the block's step
//	tokcount N     the block's count
//	tokver   N     ver when the block was reserved
//	moved    S     only while a Rename is in progress: the new name (fenced)
//	from     S     on an item made by a Rename: the old key, until the item's
//	               next rename (a repeated rename finds it and succeeds)
//
// Every write names the attributes through #placeholders (several are
// DynamoDB reserved words) and is conditional; none needs transactions.
//
// # Memberships
//
// [Store.Attach] is one UpdateItem that sets one key of the members map
// (SET #members.#db = :view, the database as an expression attribute name),
// conditioned on the item existing, not being renamed, and having the
// counter's type, inc, min, max and cycle: a concurrent ALTER of the counter
// makes it fail (sequence.CounterError after a read), and two databases
// attaching at once never overwrite each other. An item without the map
// (made before members were kept) gets an empty one first. [Store.Detach]
// is one UpdateItem removing the key (REMOVE #members.#db, ALL_NEW); if no
// member is left, a DeleteItem conditioned on the same incarnation (gen)
// still having none drops the item, so an Attach that came first keeps it
// and a sequence dropped and created again meanwhile is never deleted by
// mistake. Neither moves the position, the version or the incarnation.
//
// # Reservations
//
// [Store.Reserve] remembers, per sequence, the spec and version of the last
// response. In the common case it is a single UpdateItem with ReturnValues
// UPDATED_NEW that adds the block to last (and bumps the counters),
// conditioned on attribute_exists(name), on gen and ver being the remembered
// incarnation and version, and on last lying where the whole block fits below MAXVALUE (above
// MINVALUE); the block is derived from the new last in the response. The
// distance and the bounds come from [sequence.Spec.Reserve], which alone does
// sequence arithmetic. When the condition fails (first use, a spec changed by
// another process, a sequence about to reach its bound or wrap with CYCLE,
// a setval or release) or no remembered state applies, it reads the item
// consistently and either takes the fast path with fresh state or, near a
// bound, computes the block with sequence.Spec.Reserve and writes the new
// position with a compare-and-set on the exact state read (incarnation,
// version, position and reservation count). Lost races retry with bounded, jittered
// exponential backoff ([Options.MaxAttempts]) and then fail with
// sequence.ErrConflict.
//
// Under a daily limit the same single UpdateItem also counts the block in
// uused, conditioned so the day's count never passes the limit: on the fast
// path, uday must be today (by [Options.Now]) with uused leaving room for
// the whole block (ADD), or an earlier day (SET: the count restarts at the
// block); the slow path writes the count [sequence.Spec.ReserveAt] computed
// with the compare-and-set. The block that reaches the limit is truncated
// to what is left; a reservation with nothing left is sequence.ErrDailyLimit
// (54000) and writes nothing.
//
// # Recovering lost answers
//
// A reservation whose answer is lost (a timeout, a reset, a response
// dropped after DynamoDB applied the update) is a gap of a whole block
// unless its caller can prove it was its own. [Store.ReserveToken] is
// Reserve that writes the caller's token (tok) and the block (tokfirst,
// tokstep, tokcount) in the same UpdateItem, on every path: on the fast
// path tokfirst is computed by the update from last as it was before it
// (DynamoDB evaluates every operand of an update expression against the
// item before the update; dynalite too, which the tests check), on the
// compare-and-set path it is the block computed from the state read.
// [Store.Recover] is one consistent GetItem: the block if tok is the
// caller's token, else false. Only the latest reservation's token is kept:
// after another reservation (with a token or without) or a release, the
// proof is gone and the block stays a gap. So the SDK does not send again a
// reservation with a token that failed without an answer (it retries
// throttling only): the error comes back at once and the caller reads back
// within milliseconds, not after the SDK's backoff, while other processes
// reserve. A token is applied once (the fast path's condition includes
// tok <> token): a request sent twice by some other layer is one block. A
// request still in flight that applies after the read-back is a gap, never
// a duplicate. A read-back costs one strongly consistent read unit, and
// only after a failed reservation.
//
// # Guarantees
//
//   - No value is handed out twice, across any number of processes sharing
//     the table: every block comes from the response to a conditional write
//     that succeeded. A request whose response is lost (timeout, reset,
//     cancellation) may have been applied: its block is a gap, never guessed.
//     The SDK's own retries are therefore safe: a retried addition reserves a
//     new block, a retried compare-and-set fails its condition.
//   - A dropped sequence stays dropped: every write requires the item to
//     exist, so a process that had it cached gets sequence.ErrNotFound
//     ("relation ... does not exist"), never a restart from zero.
//   - Spec changes ([Store.Alter], [Store.SetVal]) bump the version, so they
//     take effect at the next reservation of every process; so does a cache
//     policy (sequence.Spec.Policy), which every block returned carries.
//   - [Store.Release] hands an unused tail back only if nobody reserved after
//     it: the item must be exactly as this Store's last reservation left it
//     (incarnation, version, reservation count) and sequence.Spec.Release
//     must accept the position; a compare-and-set enforces both.
//   - Errors: *sequence.Error (with PostgreSQL's SQLSTATE and message) for
//     definitive answers. Every other error names the operation, the table,
//     its region and endpoint, and wraps the SDK's error with %w. A
//     configuration error — the table does not exist, no credentials were
//     found or AWS refused them, a permission is missing, the table has
//     another key, no region — wraps sequence.ErrMisconfigured and says what
//     to do (seqctl init, which variables to set, seqctl policy);
//     [Store.Check] finds it with one read, and sequence.IsTransient reports
//     it as not transient, so a cache fails at once. Throttling, timeouts
//     and an unreachable endpoint are transient.
//
// # Caveats
//
//   - [Store.Rename] takes three single-item writes (DynamoDB Local and
//     dynalite lack transactions): fence the old item, create the new one,
//     delete the old. Between them neither name serves values; if it is
//     interrupted, repeating the same rename completes it, and repeating it
//     after it completed succeeds (the new item records its old key).
//   - [Store.List] scans the whole table (filtering on the prefix), page by
//     page (following LastEvaluatedKey past DynamoDB's 1 MB per response); it
//     is meant for administration, and its IAM permission cannot be confined
//     to a prefix.
//   - One item takes every reservation of its sequence; DynamoDB limits the
//     write rate of one item (about 1,000 writes per second). A seqcache.Cache
//     sizes blocks from the observed rate so each process writes about once a
//     second per sequence.
//   - Positions are stored as decimal numbers, so a hand-edited item can hold
//     anything: an item that does not decode is an error, not a guess.
//   - [Store.Detach] of the last member is two writes: a Detach interrupted
//     between them (or whose DeleteItem meets a Rename's fence) leaves the
//     item with an empty members map, which reads as a sequence without
//     members: every database sees it, and the next Detach, from any,
//     drops it.
package dynamostore
