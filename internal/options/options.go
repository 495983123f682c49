package options

import (
	"fmt"
	"log/slog"
	"math"
	"os"
	"reflect"
	"strconv"
	"strings"
	"time"

	"go.opentelemetry.io/otel/metric"

	"github.com/seqshim/seqshim/internal/engine"
	"github.com/seqshim/seqshim/internal/storeurl"
	"github.com/seqshim/seqshim/rewrite"
	"github.com/seqshim/seqshim/seqcache"
	"github.com/seqshim/seqshim/sequence"
)

// DDLMode says where sequence DDL (CREATE, ALTER, DROP SEQUENCE) goes.
type DDLMode string

const (
	// DDLStore applies sequence DDL to the store only (the default): the
	// database never sees the sequence, the store is the one source of values.
	DDLStore DDLMode = "store"
	// DDLBoth applies sequence DDL to the store, then sends the statement to
	// the database too, for tools that expect the sequence in the catalog.
	// Values still come from the store only: the database's sequence (and a
	// column DEFAULT nextval(…) using it) counts separately. The two steps
	// are not atomic.
	DDLBoth DDLMode = "both"
)

// Dialects understood by [Options.Dialect].
const (
	DialectPostgres = "postgres" // $N parameters, PostgreSQL lexing, *pgconn.PgError errors
	DialectMySQL    = "mysql"    // ? parameters, MySQL lexing
	DialectSQLite   = "sqlite"   // ? parameters, SQLite lexing
)

// Options configure a front end: the database/sql driver's Connector
// (driver.Options) or the pgx-native front end (pgxseq.Options). The zero
// value plus a store is a working configuration: pgx as the inner driver,
// the PostgreSQL dialect, DDL to the store only, and the cache's own
// defaults.
//
// Every field also has a connection-string parameter (seqshim.NAME) and an
// environment variable (SEQSHIM_NAME), listed by [Parameters]. Explicit
// configuration wins: a connection-string parameter, or a field set in Go,
// is never overridden by the environment; a SEQSHIM_* variable only fills
// an option left unset (zero), as pgconn.ParseConfig treats its PG*
// defaults.
type Options struct {
	// Store is the store values come from, used as is: the driver neither
	// opens nor closes it. StoreURL, if also set, takes precedence; with
	// Store set, SEQSHIM_STORE is ignored.
	Store sequence.Store
	// StoreURL is the store to open, one of memory:, sqlite:PATH,
	// postgres://…, dynamodb://TABLE?region=R&endpoint=URL&prefix=P,
	// seqd://HOST:PORT, seqd+http://HOST:PORT,
	// cosmos://HOST/DATABASE/CONTAINER?prefix=P,
	// cosmos+http://HOST:PORT/DATABASE/CONTAINER. Every
	// front end of the process with the same URL shares one store and one
	// cache. The databases sharing a store share its counters (one id
	// space); [DatabasePlaceholder] in the URL gives each database a store
	// of its own instead.
	StoreURL string

	// Driver is the registered name of the inner database/sql driver, used by
	// the database/sql driver's sql.Open (not by its NewConnector, which is
	// given the inner connector, nor by the pgx-native front end). Default
	// "pgx".
	Driver string
	// Dialect is the SQL dialect: DialectPostgres (default, or when Driver
	// names pgx or postgres), DialectMySQL or DialectSQLite (default when
	// Driver names mysql or sqlite).
	Dialect string
	// DDL is where sequence DDL goes; default DDLStore.
	DDL DDLMode
	// PlanCache is the number of distinct SQL texts whose plans are kept
	// (0: the planner's default).
	PlanCache int

	// Cache tuning, passed to the seqcache.Cache around the store (0: the
	// cache's default). A cache is shared per store, so the first front end
	// of a store in the process to connect sets these.
	Buffer        time.Duration // refill when fewer than rate × Buffer values are cached
	MinThreshold  int64         // floor of that refill threshold
	MinBlock      int64         // smallest block asked of the store
	MaxBlock      int64         // largest block asked of the store
	MaxWait       time.Duration // how long nextval waits for a refill before failing
	RefillTimeout time.Duration // timeout of one background store call
	// Revalidate bounds how long values of a sequence that another process
	// dropped, dropped and created again, or renamed are still served (one
	// background read per sequence and interval, for sequences not
	// reserved from meanwhile); negative: never checked. Default 2s.
	Revalidate time.Duration
	// Recovery is "on" (the default, also for "") or "off": whether a
	// reservation whose answer was lost (a timeout, a reset) is read back by
	// the token written with it and its block adopted on proof, with a store
	// that can (dynamodb://, postgres://, sqlite:). See seqcache.Options.NoRecovery.
	Recovery string

	// Operations, passed to the cache like the tuning above (Go only: no
	// DSN parameter). MeterProvider receives the cache's metrics (nil: the
	// global provider, otel.GetMeterProvider()); Logger its logs (nil:
	// slog.Default()). See Metrics, logs and statistics in package
	// driver's documentation.
	MeterProvider metric.MeterProvider
	Logger        *slog.Logger

	// Mode is ModeServe (the default: seqshim answers sequence calls) or
	// ModeShadow (the database answers; see [Mode]).
	Mode Mode
	// Warm names sequences (as SQL names them: orders_seq, app.invoice_no)
	// whose first block is reserved when the front end opens its first
	// connection; an unreachable store or a missing sequence fails that
	// connection, naming the store and the sequence (see Start-up in package
	// driver's documentation).
	Warm []string
}

// Mode says who answers sequence calls: seqshim (ModeServe) or the database
// (ModeShadow).
type Mode string

const (
	// ModeServe is the default: sequence calls are answered from the store
	// through the cache, everything else goes to the database.
	ModeServe Mode = "serve"
	// ModeShadow sends every statement to the database unchanged, so the
	// database's own sequences answer, exactly as with plain pgx; seqshim
	// only counts the nextval calls of each statement that succeeded and
	// draws as many values from the store in the background, from sequences
	// named shadow_NAME (engine.ShadowName), recording the latency, blocks and errors
	// (its Stats method). It lets a service measure a store under its real
	// load before switching to ModeServe.
	ModeShadow Mode = "shadow"
)

func setMode(p *Mode, v string) error {
	switch Mode(v) {
	case ModeServe, ModeShadow:
		*p = Mode(v)
		return nil
	}
	return fmt.Errorf("want serve or shadow, got %q", v)
}

// Parameter describes one configuration option: its DSN parameter, its
// environment variable and what it sets. [Parameters] lists them all.
type Parameter struct {
	DSN     string // DSN parameter, e.g. "seqshim.store"
	Env     string // environment variable, e.g. "SEQSHIM_STORE"
	Default string // default value, as documentation
	Doc     string // one-line description
}

// param is a Parameter plus how it sets Options.
type param struct {
	Parameter
	set func(o *Options, v string) error
}

// paramPrefix starts every seqshim DSN parameter; such parameters are removed
// before the DSN reaches the inner driver.
const paramPrefix = "seqshim."

// params is the one table of configuration options: DSN parsing, the
// environment fallback, [Parameters] and the README all come from it.
var params = []param{
	{Parameter{"seqshim.store", "SEQSHIM_STORE", "(none: an error at first use)",
		"store URL: " + storeurl.Summary()},
		func(o *Options, v string) error { o.StoreURL = v; return nil }},
	{Parameter{"seqshim.driver", "SEQSHIM_DRIVER", "pgx",
		"registered name of the inner database/sql driver"},
		func(o *Options, v string) error { o.Driver = v; return nil }},
	{Parameter{"seqshim.dialect", "SEQSHIM_DIALECT", "from the driver name, else postgres",
		"SQL dialect: postgres, mysql or sqlite"},
		func(o *Options, v string) error {
			switch v {
			case DialectPostgres, DialectMySQL, DialectSQLite:
				o.Dialect = v
				return nil
			}
			return fmt.Errorf("want postgres, mysql or sqlite, got %q", v)
		}},
	{Parameter{"seqshim.ddl", "SEQSHIM_DDL", "store",
		"where sequence DDL goes: store, or both (store, then database)"},
		func(o *Options, v string) error {
			switch DDLMode(v) {
			case DDLStore, DDLBoth:
				o.DDL = DDLMode(v)
				return nil
			}
			return fmt.Errorf("want store or both, got %q", v)
		}},
	{Parameter{"seqshim.plan_cache", "SEQSHIM_PLAN_CACHE", "4096",
		"number of distinct SQL texts whose plans are cached"},
		func(o *Options, v string) error { return setInt(&o.PlanCache, v) }},
	{Parameter{"seqshim.buffer", "SEQSHIM_BUFFER", "10s",
		"refill when fewer than rate × buffer values are cached (seconds or a Go duration)"},
		func(o *Options, v string) error { return setDuration(&o.Buffer, v) }},
	{Parameter{"seqshim.min_threshold", "SEQSHIM_MIN_THRESHOLD", "50",
		"floor of the refill threshold, in values"},
		func(o *Options, v string) error { return setInt64(&o.MinThreshold, v) }},
	{Parameter{"seqshim.min_block", "SEQSHIM_MIN_BLOCK", "50",
		"smallest block of values asked of the store"},
		func(o *Options, v string) error { return setInt64(&o.MinBlock, v) }},
	{Parameter{"seqshim.max_block", "SEQSHIM_MAX_BLOCK", "1000000",
		"largest block of values asked of the store"},
		func(o *Options, v string) error { return setInt64(&o.MaxBlock, v) }},
	{Parameter{"seqshim.max_wait", "SEQSHIM_MAX_WAIT", "5s",
		"how long nextval waits for a refill before failing (seconds or a Go duration)"},
		func(o *Options, v string) error { return setDuration(&o.MaxWait, v) }},
	{Parameter{"seqshim.refill_timeout", "SEQSHIM_REFILL_TIMEOUT", "3s",
		"timeout of one background store call (seconds or a Go duration)"},
		func(o *Options, v string) error { return setDuration(&o.RefillTimeout, v) }},
	{Parameter{"seqshim.revalidate", "SEQSHIM_REVALIDATE", "2s",
		"bound on how long values of a sequence dropped, recreated or renamed by another process are still served: one background read per quiet sequence and interval (seconds or a Go duration; off: never checked)"},
		func(o *Options, v string) error { return setRevalidate(&o.Revalidate, v) }},
	{Parameter{"seqshim.recovery", "SEQSHIM_RECOVERY", "on",
		"on: a reservation whose answer was lost is read back by its token and its block adopted on proof, not wasted; off: it is a gap"},
		func(o *Options, v string) error { return setRecovery(&o.Recovery, v) }},
	{Parameter{"seqshim.mode", "SEQSHIM_MODE", "serve",
		"serve: seqshim answers sequence calls; shadow: the database answers them, and seqshim draws as many values from the store in the background, as shadow_NAME"},
		func(o *Options, v string) error { return setMode(&o.Mode, v) }},
	{Parameter{"seqshim.warm", "SEQSHIM_WARM", "(none)",
		"sequences, comma-separated, whose first block is reserved at the first connection: a missing one or an unreachable store fails it"},
		func(o *Options, v string) error { return setWarm(&o.Warm, v) }},
}

// Parameters returns every configuration option with its DSN parameter and
// environment variable.
func Parameters() []Parameter {
	out := make([]Parameter, len(params))
	for i, p := range params {
		out[i] = p.Parameter
	}
	return out
}

func lookupParam(dsnName string) *param {
	for i := range params {
		if params[i].DSN == dsnName {
			return &params[i]
		}
	}
	return nil
}

// ApplyEnv fills the options of o left unset with SEQSHIM_* environment
// variables: explicit configuration (a DSN parameter, a field set in Go)
// always wins over the environment. A malformed variable is an error even
// when explicit configuration makes it unused: it is a mistake worth seeing.
func ApplyEnv(o *Options) error {
	var env Options
	for _, p := range params {
		if v := os.Getenv(p.Env); v != "" {
			if err := p.set(&env, v); err != nil {
				return fmt.Errorf("seqshim: %s: %w", p.Env, err)
			}
		}
	}
	if o.Store != nil {
		env.StoreURL = "" // a store given in Go is explicit too
	}
	dst, src := reflect.ValueOf(o).Elem(), reflect.ValueOf(env)
	for i := range dst.NumField() {
		if f := dst.Field(i); f.IsZero() {
			f.Set(src.Field(i))
		}
	}
	return nil
}

// ApplyDSN sets the options of o given as seqshim.* DSN parameters.
func ApplyDSN(o *Options, kv []Param) error {
	for _, p := range kv {
		def := lookupParam(p.Key)
		if def == nil {
			return fmt.Errorf("seqshim: unknown DSN parameter %q", p.Key)
		}
		if err := def.set(o, p.Value); err != nil {
			return fmt.Errorf("seqshim: %s: %w", p.Key, err)
		}
	}
	return nil
}

// Resolve fills in defaults that depend on other fields and checks values
// set in Go.
func Resolve(o *Options) error {
	if o.Driver == "" {
		o.Driver = "pgx"
	}
	if o.Dialect == "" {
		o.Dialect = DialectOf(o.Driver)
	}
	if o.DDL == "" {
		o.DDL = DDLStore
	}
	switch o.Dialect {
	case DialectPostgres, DialectMySQL, DialectSQLite:
	default:
		return fmt.Errorf("seqshim: Options.Dialect: want postgres, mysql or sqlite, got %q", o.Dialect)
	}
	if o.DDL != DDLStore && o.DDL != DDLBoth {
		return fmt.Errorf("seqshim: Options.DDL: want store or both, got %q", o.DDL)
	}
	if o.Mode == "" {
		o.Mode = ModeServe
	}
	if o.Recovery != "" {
		if err := setRecovery(&o.Recovery, o.Recovery); err != nil {
			return fmt.Errorf("seqshim: Options.Recovery: %w", err)
		}
	}
	if err := setMode(&o.Mode, string(o.Mode)); err != nil {
		return fmt.Errorf("seqshim: Options.Mode: %w", err)
	}
	if _, err := warmNames(o.Warm); err != nil {
		return fmt.Errorf("seqshim: Options.Warm: %w", err)
	}
	return nil
}

// DialectOf guesses the dialect from a driver name.
func DialectOf(driverName string) string {
	n := strings.ToLower(driverName)
	switch {
	case strings.Contains(n, "sqlite"):
		return DialectSQLite
	case strings.Contains(n, "mysql"):
		return DialectMySQL
	}
	return DialectPostgres
}

func setInt(p *int, v string) error {
	n, err := strconv.Atoi(v)
	if err != nil || n < 0 {
		return fmt.Errorf("want a non-negative integer, got %q", v)
	}
	*p = n
	return nil
}

func setInt64(p *int64, v string) error {
	n, err := strconv.ParseInt(v, 10, 64)
	if err != nil || n < 0 {
		return fmt.Errorf("want a non-negative integer, got %q", v)
	}
	*p = n
	return nil
}

// setRevalidate is setDuration, plus "off": never (a negative duration).
func setRevalidate(p *time.Duration, v string) error {
	if v == "off" {
		*p = -1
		return nil
	}
	if err := setDuration(p, v); err != nil {
		return fmt.Errorf("want seconds, a duration or off, got %q", v)
	}
	if *p == 0 {
		return fmt.Errorf("want a positive duration or off, got %q", v)
	}
	return nil
}

// setDuration accepts seconds ("10", "0.5") or a Go duration ("250ms"), up
// to time.Duration's largest (about 292 years).
func setDuration(p *time.Duration, v string) error {
	if f, err := strconv.ParseFloat(v, 64); err == nil {
		// A float conversion out of range is not an error in Go: it gives
		// a negative duration (1e300 seconds, Inf).
		if !(f >= 0 && f*float64(time.Second) < math.MaxInt64) {
			return fmt.Errorf("want seconds or a duration, got %q", v)
		}
		*p = time.Duration(f * float64(time.Second))
		return nil
	}
	d, err := time.ParseDuration(v)
	if err != nil || d < 0 {
		return fmt.Errorf("want seconds or a duration, got %q", v)
	}
	*p = d
	return nil
}

// The values of Options.Recovery.
const (
	RecoveryOn  = "on"
	RecoveryOff = "off"
)

func setRecovery(dst *string, v string) error {
	switch v {
	case RecoveryOn, RecoveryOff:
		*dst = v
		return nil
	}
	return fmt.Errorf("want on or off, got %q", v)
}

// setWarm parses seqshim.warm: sequence names separated by commas (a comma
// inside a "quoted name" is part of it).
func setWarm(p *[]string, v string) error {
	var names []string
	start, quoted := 0, false
	for i := 0; i <= len(v); i++ {
		if i < len(v) && v[i] == '"' {
			quoted = !quoted
		}
		if i == len(v) || (v[i] == ',' && !quoted) {
			if n := strings.TrimSpace(v[start:i]); n != "" {
				names = append(names, n)
			}
			start = i + 1
		}
	}
	if _, err := warmNames(names); err != nil {
		return err
	}
	*p = names
	return nil
}

// warmNames returns the canonical names of the sequences to warm.
func warmNames(written []string) ([]string, error) {
	names := make([]string, 0, len(written))
	for _, w := range written {
		n, err := sequence.ParseName(w)
		if err != nil {
			return nil, fmt.Errorf("sequence name %q: %w", w, err)
		}
		names = append(names, n)
	}
	return names, nil
}

// Config is what the options give the core: resolved options (see
// [Resolve]) as the engine takes them, the cache's tuning copied
// into its options.
func Config(o *Options) engine.Config {
	dialect := rewrite.Postgres
	switch o.Dialect {
	case DialectMySQL:
		dialect = rewrite.MySQL
	case DialectSQLite:
		dialect = rewrite.SQLite
	}
	warm, _ := warmNames(o.Warm) // checked by resolve
	return engine.Config{
		StoreURL:      o.StoreURL,
		Store:         o.Store,
		Dialect:       dialect,
		PlanCache:     o.PlanCache,
		DDLToDatabase: o.DDL == DDLBoth,
		Shadow:        o.Mode == ModeShadow,
		Warm:          warm,
		Cache: seqcache.Options{
			Buffer:        o.Buffer,
			MinThreshold:  o.MinThreshold,
			MinBlock:      o.MinBlock,
			MaxBlock:      o.MaxBlock,
			MaxWait:       o.MaxWait,
			RefillTimeout: o.RefillTimeout,
			Revalidate:    o.Revalidate,
			NoRecovery:    o.Recovery == RecoveryOff,
			MeterProvider: o.MeterProvider,
			Logger:        o.Logger,
		},
	}
}
