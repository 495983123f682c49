package sqlstore

import (
	"context"
	"database/sql"
	"fmt"
	"net/url"
	"strings"

	_ "github.com/jackc/pgx/v5/stdlib" // driver "pgx"
	_ "modernc.org/sqlite"             // driver "sqlite", no cgo
)

// sqlitePragmas make one SQLite file safe to share between processes:
// BEGIN IMMEDIATE takes the write lock before the read of a reservation, the
// busy timeout makes other writers wait for it instead of failing, WAL lets
// readers run beside the writer, and synchronous FULL makes every committed
// reservation survive a power loss (a lost commit could hand a value out
// twice).
const sqlitePragmas = "_txlock=immediate&_pragma=busy_timeout(30000)&_pragma=journal_mode(WAL)&_pragma=synchronous(FULL)"

// Open opens the store of a URL:
//
//   - sqlite:PATH — a SQLite file, created if missing (its directory must
//     exist). sqlite://PATH is the same, so sqlite:///var/lib/x.db is the
//     absolute path /var/lib/x.db and sqlite://x.db is x.db relative to the
//     working directory.
//   - postgres://… or postgresql://… — a table in that PostgreSQL database; the
//     URL is handed to pgx, so all of pgx's connection parameters apply.
//
// Both accept the query parameter table=NAME (see [Options.Table]), taken out
// before the rest reaches the database driver; a SQLite URL accepts no other
// parameter. optFns apply after the URL's parameters. Open does not connect:
// the first operation does, and creates the table if it does not exist. Close
// the Store when done.
func Open(ctx context.Context, rawurl string, optFns ...func(*Options)) (*Store, error) {
	_ = ctx // Open does no I/O; the parameter keeps the signature of the other stores.
	scheme, rest, ok := strings.Cut(rawurl, ":")
	if !ok {
		return nil, fmt.Errorf("sqlstore: %q is not a store URL (want sqlite:PATH or postgres://...)", rawurl)
	}
	var (
		dialect    Dialect
		driverName string
		dsn, table string
	)
	switch strings.ToLower(scheme) {
	case "sqlite":
		path, query, _ := strings.Cut(strings.TrimPrefix(rest, "//"), "?")
		params, err := url.ParseQuery(query)
		if err != nil {
			return nil, fmt.Errorf("sqlstore: %q: %w", rawurl, err)
		}
		table = params.Get("table")
		delete(params, "table")
		for k := range params {
			return nil, fmt.Errorf("sqlstore: %q: unknown parameter %q (a sqlite URL accepts only table)", rawurl, k)
		}
		if path == "" || path == ":memory:" || strings.HasPrefix(path, "file:") {
			return nil, fmt.Errorf("sqlstore: %q: want sqlite:PATH with the path of a file (for an in-process store use memory:)", rawurl)
		}
		dialect, driverName, dsn = SQLite, "sqlite", path+"?"+sqlitePragmas
	case "postgres", "postgresql":
		u, err := url.Parse(rawurl)
		if err != nil {
			return nil, fmt.Errorf("sqlstore: %w", err)
		}
		params := u.Query()
		table = params.Get("table")
		if params.Has("table") {
			params.Del("table")
			u.RawQuery = params.Encode()
		}
		dialect, driverName, dsn = Postgres, "pgx", u.String()
	default:
		return nil, fmt.Errorf("sqlstore: unsupported URL scheme %q in %q (want sqlite:PATH or postgres://...)", scheme, rawurl)
	}
	db, err := sql.Open(driverName, dsn)
	if err != nil {
		return nil, fmt.Errorf("sqlstore: %w", err)
	}
	fns := optFns
	if table != "" {
		fns = append([]func(*Options){func(o *Options) { o.Table = table }}, optFns...)
	}
	s, err := New(db, dialect, fns...)
	if err != nil {
		db.Close()
		return nil, err
	}
	s.ownDB = true
	return s, nil
}
