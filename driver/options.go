package driver

import "github.com/seqshim/seqshim/internal/options"

// Options configure a [Connector]. The zero value plus a store is a working
// configuration: pgx as the inner driver, the PostgreSQL dialect, DDL to the
// store only, and the cache's own defaults. The fields are documented with
// the type; the pgx-native front end (package pgxseq) takes the same
// options.
//
// With sql.Open, every field also has a DSN parameter (seqshim.NAME) and an
// environment variable (SEQSHIM_NAME), listed by [Parameters]. Explicit
// configuration wins: a DSN parameter, or a field set in Go for
// [NewConnector], is never overridden by the environment; a SEQSHIM_*
// variable only fills an option left unset (zero), as pgconn.ParseConfig
// treats its PG* defaults.
type Options = options.Options

// DDLMode says where sequence DDL (CREATE, ALTER, DROP SEQUENCE) goes.
type DDLMode = options.DDLMode

const (
	// DDLStore applies sequence DDL to the store only (the default): the
	// database never sees the sequence, the store is the one source of values.
	DDLStore = options.DDLStore
	// DDLBoth applies sequence DDL to the store, then sends the statement to
	// the database too, for tools that expect the sequence in the catalog.
	// Values still come from the store only: the database's sequence (and a
	// column DEFAULT nextval(…) using it) counts separately. The two steps
	// are not atomic.
	DDLBoth = options.DDLBoth
)

// Dialects understood by Options.Dialect.
const (
	DialectPostgres = options.DialectPostgres // $N parameters, PostgreSQL lexing, *pgconn.PgError errors
	DialectMySQL    = options.DialectMySQL    // ? parameters, MySQL lexing
	DialectSQLite   = options.DialectSQLite   // ? parameters, SQLite lexing
)

// The values of Options.Recovery.
const (
	RecoveryOn  = options.RecoveryOn
	RecoveryOff = options.RecoveryOff
)

// Parameter describes one configuration option: its DSN parameter, its
// environment variable and what it sets. [Parameters] lists them all.
type Parameter = options.Parameter

// Parameters returns every configuration option with its DSN parameter and
// environment variable.
func Parameters() []Parameter { return options.Parameters() }
