// Package cosmosstore is a [sequence.Store] on Azure Cosmos DB for NoSQL:
// one document per sequence, each its own logical partition, blocks of
// values reserved with ETag-conditioned replaces (optimistic concurrency).
//
// # Usage
//
// Importing the package registers the store URL schemes cosmos:// (HTTPS)
// and cosmos+http:// (an emulator on plain HTTP) with the driver, the pgx
// front end and seqctl. The driver does not import it, so a program that
// does not use Cosmos DB does not link the Azure SDK:
//
//	import (
//		_ "github.com/seqshim/seqshim/cosmosstore" // cosmos:// store URLs
//		_ "github.com/seqshim/seqshim/driver"
//	)
//
//	db, err := sql.Open("seqshim", "postgres://app@db/app?seqshim.store=cosmos%3A%2F%2Facct.documents.azure.com%2Fseqshim%2Fsequences")
//
// The URL is cosmos://ACCOUNT_HOST/DATABASE/CONTAINER?prefix=P. The
// credentials never go in it: the account key comes from $AZURE_COSMOS_KEY
// ([EnvKey]); without it, [Open] signs in with azidentity's default chain
// (environment variables, workload identity, managed identity, the Azure
// CLI). Create the database and the container once (seqctl init, which is
// [Store.Init]), then open stores on them:
//
//	st, err := cosmosstore.Open(ctx, "cosmos://acct.documents.azure.com/seqshim/sequences?prefix=billing/")
//	err = st.Init(ctx) // creates the database and the container if missing
//	cache := seqcache.New(st)
//
// # Permissions
//
// With an account key, everything works, seqctl init included. With an
// Entra identity, the data plane needs a Cosmos DB SQL role assigned on the
// account, the database or the container: the built-in "Cosmos DB Built-in
// Data Contributor", or the custom role [RoleDefinition] prints (seqctl
// policy): a service needs readMetadata and items/read and items/replace;
// seqctl and sequence DDL also items/create, items/delete and
// executeQuery (List). A role cannot be confined to a key prefix, only to
// the container. Data-plane
// roles cannot create databases or containers: create them with the Azure
// CLI, Bicep or Terraform (partition key /id; see [ContainerProperties])
// and run seqctl check.
//
// # Document schema
//
// The container is partitioned on /id. Each sequence is one document, so
// each is a logical partition of its own. Every integer is kept as a
// decimal string: Cosmos DB keeps a JSON number as a double, exact only up
// to 2^53, and a bigint sequence runs to 2^63-1.
//
//	id       the key (Options.Prefix + canonical sequence name) with / \ ? # % ~
//	         written as ~ and two hex digits (Cosmos DB refuses the first four
//	         in ids); also the partition key
//	name     the key itself (List's query filters on it)
//	type     smallint, integer or bigint
//	inc      INCREMENT BY (negative: descending)
//	min, max MINVALUE, MAXVALUE
//	start    START WITH
//	cache    CACHE (kept as a hint)
//	cycle    CYCLE (a JSON boolean)
//	last     position: the last value handed out, or the next one if not called
//	called   position: whether last was handed out (a JSON boolean)
//	gen      incarnation: random, set by Create (sequence.Info.Gen)
//	ver      version: 1 at create, bumped by Alter and SetVal
//	resv     reservations: blocks handed out
//	nres     values in those blocks
//	lastres  Unix milliseconds of the last reservation (absent if none)
//	owner    OWNED BY (absent if none)
//	defaults the table columns whose default draws from the sequence, as
//	         sequence.EncodeDefaults writes them (absent if none)
//	members  the databases that declared the sequence, as
//	         sequence.EncodeMembers writes them (absent if none)
//	dlimit   daily limit (absent if none)
//	uday     the UTC day uused counts (absent until a reservation under a
//	         daily limit)
//	uused    values reserved on uday
//	pbuf, pminb, pmaxb, preval
//	         cache policy: buffer and revalidate in milliseconds, min and max
//	         block (each absent for the process default)
//	tok      the token of the latest reservation made with one
//	         (sequence.Recoverer; removed by a reservation without one and by
//	         a release), with its block: tokfirst, tokstep, tokcount
//	moved    only while a Rename is in progress: the new key (fenced)
//	from     on a document made by a Rename: the old key
//
// # Reservations
//
// Every write is the same algorithm, the Hi-Lo generator of teams that
// reserve blocks in Cosmos DB: read the document (a point read, 1 RU for a
// document under 1 KB), compute the new one (for a reservation,
// [sequence.Spec.ReserveAt] gives the block, the new position and the
// day's usage), and replace the document with If-Match on the ETag read.
// A 412 Precondition Failed means another process wrote first: read again
// and retry after a jittered backoff ([Options.Backoff], doubling up to
// [Options.MaxBackoff], full jitter). A 429 Too Many Requests waits the
// service's x-ms-retry-after-ms plus up to a quarter more at random. Both
// are bounded by [Options.MaxAttempts]: then the operation fails with
// sequence.ErrConflict (SQLSTATE 40001), or with the 429 marked
// sequence.ErrThrottled, which a seqcache.Cache takes as back-pressure (it
// backs off and asks for larger blocks, as with DynamoDB's throttling).
//
// A Store remembers the document and ETag of its last response per
// sequence, so its common reservation is the replace alone: one request.
// The goroutines of one Store take turns per sequence, so only other
// processes race. [Store.Stats] counts requests, 412s, 429s and the
// request charges.
//
// A conditional patch with incr was considered and not used: incr works on
// JSON numbers, which are doubles, and a block's bounds, CYCLE and the
// daily limit need the stored state anyway.
//
// # Recovering lost answers
//
// [Store.ReserveToken] writes the caller's token, and the block, in the
// same replace. The replace is safe to send twice: a second send of an
// applied replace meets a new ETag and gets 412. The Store then reads the
// document, finds its own token, and returns that block: a lost answer the
// SDK retried costs no values. [Store.Recover] is one point read: the
// block if the document holds the caller's token.
//
// # Guarantees
//
//   - No value is handed out twice, across any number of processes sharing
//     the container: every block comes from a replace conditioned on the
//     exact document it was computed from.
//   - A dropped sequence stays dropped: a replace of a deleted document is
//     404, and the Store answers sequence.ErrNotFound.
//   - Spec changes take effect at the next reservation of every process:
//     they change the ETag, so every other Store's next replace gets 412
//     and reads the new spec.
//   - [Store.Release] hands an unused tail back only if nobody reserved
//     after it ([sequence.Spec.Release] on the document read, and If-Match).
//   - [Store.Detach] of the last member deletes the document with If-Match
//     on the ETag read: an Attach that came first keeps it.
//   - Errors: *sequence.Error for definitive answers; every other error
//     names the operation, the container and the account, and wraps the
//     SDK's. A missing database or container, refused or missing
//     credentials, a missing role, a container partitioned on another path
//     wrap sequence.ErrMisconfigured and say what to do; [Store.Check]
//     finds them with one read.
//
// # Request units
//
// Request units are this store's cost. Per Microsoft's published figures,
// a point read of a document under 1 KB costs 1 RU and a replace about 6 to
// 10 RU (the container [Store.Init] creates indexes /name only, which keeps
// writes at the low end); a 412 is charged too. A reservation is one
// replace when no other process wrote since, plus one read and one more
// replace per lost race. A logical partition, here one sequence, takes at
// most 10,000 RU/s, about 1,000 reservations a second: a seqcache.Cache
// sizes its blocks from the observed rate so each process reserves about
// once a second per sequence (rate × buffer), and 429s make it ask for
// larger blocks. Provision the container's throughput for the reservations
// of all processes together (processes × sequences × about 10 RU per
// second at the cache's pace), or use autoscale or serverless; List is a
// cross-partition query and costs more, for administration only.
//
// # Caveats
//
//   - [Store.Rename] takes three writes (a document's id and partition key
//     cannot change, and a transaction cannot span two logical
//     partitions): fence the old document, create the new one, delete the
//     old. Between them neither name serves values; repeating an
//     interrupted rename completes it.
//   - Reads use the account's consistency. A stale read (under session or
//     eventual consistency, from another region) costs a 412 and a retry,
//     never a duplicate, as every write is conditioned on the ETag; but
//     Describe and Recover may then answer from the past (Recover says
//     false: a gap). Use strong or bounded-staleness consistency, or a
//     single write region, for exact Describe.
//   - The emulator the tests use (@vercel/cosmosdb-server) answers 500 to
//     a point read of a missing document; scripts/cosmosdb-server.js fixes
//     that one answer. It charges 1 RU for everything and never throttles:
//     429 is tested by injecting it between the SDK and the emulator.
package cosmosstore
