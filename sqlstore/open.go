package sqlstore

import (
	"context"
	"database/sql"
	"fmt"
	"net/url"
	"strings"

	_ "github.com/jackc/pgx/v5/stdlib" // driver "pgx"

	"github.com/seqshim/seqshim/internal/storeurl"
	"github.com/seqshim/seqshim/sequence"
	"github.com/seqshim/seqshim/sqlstore/internal/sqlitehook"
)

// init makes postgres:// and postgresql:// URLs open with Open. sqlite: URLs
// are registered by package sqlstore/sqlite, which links the SQLite engine.
func init() {
	for _, scheme := range []string{"postgres", "postgresql"} {
		storeurl.Register(scheme, func(ctx context.Context, rawurl string) (sequence.Store, error) {
			st, err := Open(ctx, rawurl)
			if err != nil {
				return nil, err // not a nil *Store in a non-nil sequence.Store
			}
			return st, nil
		})
	}
}

// Open opens the store of a URL:
//
//   - postgres://… or postgresql://… — a table in that PostgreSQL database; the
//     URL is handed to pgx, so all of pgx's connection parameters apply.
//   - sqlite:PATH — a SQLite file, created if missing (its directory must
//     exist). sqlite://PATH is the same, so sqlite:///var/lib/x.db is the
//     absolute path /var/lib/x.db and sqlite://x.db is x.db relative to the
//     working directory. The SQLite engine is linked only by a program that
//     imports package github.com/seqshim/seqshim/sqlstore/sqlite (whose Open
//     is this one for sqlite: URLs); without it a sqlite: URL is an error
//     that names that import.
//
// Both accept the query parameter table=NAME (see [Options.Table]), taken out
// before the rest reaches the database driver; a SQLite URL accepts no other
// parameter. optFns apply after the URL's parameters. Open does not connect:
// the first operation does, or [Store.Check], and creates the table if it
// does not exist. Close the Store when done.
func Open(ctx context.Context, rawurl string, optFns ...func(*Options)) (*Store, error) {
	_ = ctx // Open does no I/O; the parameter keeps the signature of the other stores.
	scheme, rest, ok := strings.Cut(rawurl, ":")
	if !ok {
		return nil, fmt.Errorf("sqlstore: %q is not a store URL (want sqlite:PATH or postgres://...)", storeurl.Redact(rawurl))
	}
	var (
		dialect    Dialect
		db         *sql.DB
		table      string
		where, fix string
		explain    func(error) (string, bool)
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
		eng := sqlitehook.Get()
		if eng == nil {
			return nil, sequence.Misconfigured(fmt.Errorf("sqlstore: %s: %w: add import _ %q to the program",
				rawurl, storeurl.ErrNotLinked, storeurl.SQLiteImport))
		}
		if db, err = eng.OpenDB(path); err != nil {
			return nil, fmt.Errorf("sqlstore: SQLite file %s: %w", path, err)
		}
		dialect, where, fix = SQLite, "SQLite file "+path, rawurl
		explain = func(err error) (string, bool) { return eng.Explain(path, err) }
	case "postgres", "postgresql":
		u, err := url.Parse(rawurl)
		if err != nil {
			return nil, fmt.Errorf("sqlstore: %s: %w", storeurl.Redact(rawurl), err)
		}
		params := u.Query()
		table = params.Get("table")
		if params.Has("table") {
			params.Del("table")
			u.RawQuery = params.Encode()
		}
		if db, err = sql.Open("pgx", u.String()); err != nil {
			return nil, fmt.Errorf("sqlstore: %s: %w", storeurl.Redact(rawurl), err)
		}
		dialect, where = Postgres, "PostgreSQL database "+storeurl.Redact(u.String())
	default:
		return nil, fmt.Errorf("sqlstore: unsupported URL scheme %q in %q (want sqlite:PATH or postgres://...)", scheme, storeurl.Redact(rawurl))
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
	s.where, s.fixURL = where, fix
	if explain != nil {
		s.explain = explain
	}
	return s, nil
}
