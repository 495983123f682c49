// Command seqctl is the operator's tool for seqshim counters: it creates,
// inspects and steers the sequences kept in a store, moves live PostgreSQL
// sequences into a store without collisions, and watches burn rates.
//
// Usage:
//
//	seqctl [--store URL] [-o table|json] [--timeout D] COMMAND [flags] [args]
//
// The store is given by --store or the environment variable SEQSHIM_STORE,
// one of memory:, sqlite:PATH, postgres://…,
// dynamodb://TABLE?region=R&endpoint=URL&prefix=P, seqd://HOST:PORT,
// seqd+http://HOST:PORT, cosmos://HOST/DATABASE/CONTAINER?prefix=P,
// cosmos+http://HOST:PORT/DATABASE/CONTAINER (memory: is one process
// only). --timeout bounds a command (each refresh of watch); by default it
// waits as long as the store does. Run "seqctl --help" for the commands and
// exit codes, and "seqctl COMMAND --help" for each command's flags.
//
// A counter can be the default of table columns (serial, GENERATED ... AS
// IDENTITY, DEFAULT nextval): the store keeps them with it, and seqctl
// shows them (show, list, -o json), sets them (create and alter --default
// TABLE.COLUMN[:default|always|by-default]; alter --no-default TABLE.COLUMN
// and --no-defaults), and import records them from the database's catalog.
//
// A counter can have a daily limit (create and alter --daily-limit N, alter
// --no-daily-limit): the store hands out at most N of its values per UTC
// day, over every process; show, list and -o json print it with the day's
// count, and next exits 5 when it is reached.
//
// A counter can have a cache policy (create and alter --buffer D,
// --min-block N, --max-block N, --revalidate D; 0 resets one to each
// process's default): every process serving the counter applies it from its
// next reservation, without a restart; show, list and -o json
// (cache_policy) print it.
//
// Databases sharing a store share its counters (one store prefix is one id
// space): each counter records the databases that declared it, its members,
// each with its own OWNED BY and column defaults. show, list and -o json
// print them ("every database" for a counter without members); --check-db
// postgres://… (one per cluster) marks those whose database is gone. members
// prune detaches those (a counter whose members are all gone only with
// --drop-last), members detach NAME DB one database on request, and drop of
// a shared counter names the databases it is dropped for:
//
//	seqctl list --check-db postgres://ops@pg-a/postgres
//	seqctl members prune --check-db postgres://ops@pg-a/postgres --dry-run
//	seqctl members detach orders_seq 7301234567890123456/16390/shop_old
//
// check, for cron jobs, Kubernetes probes and alerting, measures each
// counter's burn per day, runway to its limit and time since its last
// reservation, and exits 6 when --min-runway, --max-burn-per-day or --stale
// does not hold:
//
//	seqctl check --min-runway 90d --stale 1h
//
// A typical migration of a live PostgreSQL database:
//
//	seqctl init
//	seqctl import --from postgres://... --dry-run   # check the plan
//	seqctl import --from postgres://...
//	seqctl fence  --from postgres://...
//	# switch services to the seqshim driver (seqshim.mode=shadow first, to
//	# measure the store under real load while the database still answers),
//	# then:
//	seqctl watch
//	seqctl verify --from postgres://...             # exit 0: nothing stepped into the store's range
//
// And the way back, the same steps in reverse:
//
//	seqctl export --from postgres://... --dry-run   # check the plan
//	seqctl export --from postgres://...             # native sequences past the store's
//	                                                # high-water mark, the store fenced
//	# switch services back to pgx, then:
//	seqctl verify --from postgres://...
//
// export moves each native sequence past the store's reserved position (values
// in every process's cache included) plus --margin, gives the database back
// the column defaults the store recorded, and lowers the store counter's
// MAXVALUE just below the native range, so a process not switched back fails
// with 2200H instead of colliding. A counter other databases share is not
// fenced: export reserves a block of it (--range) for this database's native
// sequence and records it with the database's membership. verify reports,
// for every column the store serves or served, the largest id and the
// store's position, and exits 7 when a row's id lies beyond what the store
// reserved (a writer that bypassed seqshim) or a native sequence can hand
// out values inside the store's range.
package main
