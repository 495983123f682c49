package pgxseq

import (
	"context"
	"errors"
	"fmt"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/seqshim/seqshim/internal/engine"
	"github.com/seqshim/seqshim/internal/options"

	// The stores the front end links, registering their store URL
	// schemes, as package driver does: the SQLite store is linked by
	// importing github.com/seqshim/seqshim/sqlstore/sqlite.
	_ "github.com/seqshim/seqshim/dynamostore" // dynamodb://
	_ "github.com/seqshim/seqshim/memstore"    // memory:
	_ "github.com/seqshim/seqshim/sqlstore"    // postgres://, postgresql://
)

// Options configure seqshim for a [Pool] or a [Conn]: the store, the
// cache's tuning, the DDL and shadow modes, warm-up. They are the options
// of the database/sql driver (driver.Options, the same type, with the same
// seqshim.* connection-string parameters and SEQSHIM_* environment
// variables), but Driver, which names a database/sql driver, and Dialect,
// which must be postgres here.
type Options = options.Options

// ErrNoStore is the error of a pool or connection without a store:
// neither seqshim.store in the connection string, nor SEQSHIM_STORE, nor
// Options.Store or Options.StoreURL.
var ErrNoStore = engine.ErrNoStore

// ParseConfig parses connString as pgxpool.ParseConfig does, after taking
// out its seqshim.* parameters (a URL's query parameters, or keyword=value
// pairs), which set the returned options; SEQSHIM_* environment variables
// fill the options the string leaves unset.
func ParseConfig(connString string) (*pgxpool.Config, Options, error) {
	inner, o, err := splitOptions(connString)
	if err != nil {
		return nil, o, err
	}
	cfg, err := pgxpool.ParseConfig(inner)
	return cfg, o, err
}

// ParseConnConfig is [ParseConfig] for a single connection
// (pgx.ParseConfig).
func ParseConnConfig(connString string) (*pgx.ConnConfig, Options, error) {
	inner, o, err := splitOptions(connString)
	if err != nil {
		return nil, o, err
	}
	cfg, err := pgx.ParseConfig(inner)
	return cfg, o, err
}

// splitOptions takes the seqshim.* parameters out of connString.
func splitOptions(connString string) (string, Options, error) {
	var o Options
	inner, kv, err := options.SplitDSN(connString)
	if err != nil {
		return "", o, err
	}
	if err := options.ApplyDSN(&o, kv); err != nil {
		return "", o, err
	}
	return inner, o, nil
}

// resolve completes o for the pgx front end: the environment, defaults,
// the checks.
func resolve(o Options, optFns []func(*Options)) (Options, error) {
	for _, fn := range optFns {
		fn(&o)
	}
	if err := options.ApplyEnv(&o); err != nil {
		return o, err
	}
	if o.Dialect != "" && o.Dialect != options.DialectPostgres {
		return o, fmt.Errorf("seqshim: Options.Dialect: the pgx front end speaks PostgreSQL only, not %q", o.Dialect)
	}
	o.Dialect, o.Driver = options.DialectPostgres, "pgx"
	return o, options.Resolve(&o)
}

// New creates a pool as pgxpool.New does, whose statements get their
// sequences from the store connString's seqshim.* parameters (or
// SEQSHIM_STORE, or optFns) name. It is the one change a program makes:
//
//	pool, err := pgxpool.New(ctx, dsn) // before
//	pool, err := pgxseq.New(ctx, dsn)  // after
func New(ctx context.Context, connString string, optFns ...func(*Options)) (*Pool, error) {
	cfg, o, err := ParseConfig(connString)
	if err != nil {
		return nil, err
	}
	return newPool(ctx, cfg, o, optFns)
}

// NewWithConfig is [New] with a pool configuration (pgxpool.ParseConfig's,
// or [ParseConfig]'s), which it copies: its AfterConnect and BeforeClose
// hooks still run, with seqshim's around them. The options are those
// optFns set, the environment filling the rest.
func NewWithConfig(ctx context.Context, config *pgxpool.Config, optFns ...func(*Options)) (*Pool, error) {
	return newPool(ctx, config, Options{}, optFns)
}

// Connect opens one connection as pgx.Connect does, with seqshim's
// sequences: see [New].
func Connect(ctx context.Context, connString string, optFns ...func(*Options)) (*Conn, error) {
	cfg, o, err := ParseConnConfig(connString)
	if err != nil {
		return nil, err
	}
	return connect(ctx, cfg, o, optFns)
}

// ConnectConfig is [Connect] with a connection configuration, which it
// copies.
func ConnectConfig(ctx context.Context, config *pgx.ConnConfig, optFns ...func(*Options)) (*Conn, error) {
	return connect(ctx, config, Options{}, optFns)
}

var errNilConfig = errors.New("pgxseq: nil config")
