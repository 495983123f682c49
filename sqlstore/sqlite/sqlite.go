// Package sqlite links the SQLite engine (modernc.org/sqlite, no cgo) into
// a program and registers the store URL scheme sqlite: with it, so that
// sqlite:PATH opens a [sqlstore.Store] on a SQLite file — in the driver, in
// seqctl and in [sqlstore.Open]. Import it for its effect:
//
//	import _ "github.com/seqshim/seqshim/sqlstore/sqlite"
//
// or call [Open].
//
// # Caveats
//
// modernc.org/sqlite registers the database/sql driver name "sqlite" when it
// is linked, so a program that imports this package cannot also link another
// driver that registers that name (github.com/glebarez/go-sqlite, say):
// database/sql panics at start-up. The seqshim driver alone registers no such
// name; a program that uses another SQLite driver keeps its sequences in
// another store (dynamodb://, postgres://).
package sqlite

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"

	msqlite "modernc.org/sqlite"

	"github.com/seqshim/seqshim/internal/storeurl"
	"github.com/seqshim/seqshim/sequence"
	"github.com/seqshim/seqshim/sqlstore"
	"github.com/seqshim/seqshim/sqlstore/internal/sqlitehook"
)

// Scheme is the store URL scheme this package registers.
const Scheme = "sqlite"

func init() {
	sqlitehook.Register(sqlitehook.Engine{OpenDB: openDB, Explain: explain})
	storeurl.Register(Scheme, func(ctx context.Context, rawurl string) (sequence.Store, error) {
		st, err := Open(ctx, rawurl)
		if err != nil {
			return nil, err // not a nil *sqlstore.Store in a non-nil sequence.Store
		}
		return st, nil
	})
}

// Open opens the store of a URL sqlite:PATH (see [sqlstore.Open]): a table in
// the SQLite file at PATH, created with the table on first use if missing
// (its directory must exist). Close the Store when done.
func Open(ctx context.Context, rawurl string, optFns ...func(*sqlstore.Options)) (*sqlstore.Store, error) {
	if scheme, _, _ := strings.Cut(rawurl, ":"); !strings.EqualFold(scheme, Scheme) {
		return nil, fmt.Errorf("sqlite: %q is not a sqlite:PATH store URL", storeurl.Redact(rawurl))
	}
	return sqlstore.Open(ctx, rawurl, optFns...)
}

// pragmas make one SQLite file safe to share between processes: BEGIN
// IMMEDIATE takes the write lock before the read of a reservation, the busy
// timeout makes other writers wait for it instead of failing, WAL lets
// readers run beside the writer, and synchronous FULL makes every committed
// reservation survive a power loss (a lost commit could hand a value out
// twice).
const pragmas = "_txlock=immediate&_pragma=busy_timeout(30000)&_pragma=journal_mode(WAL)&_pragma=synchronous(FULL)"

// openDB opens the file with modernc's driver itself, not by the name
// "sqlite", which another SQLite driver may hold in the program.
func openDB(path string) (*sql.DB, error) {
	c, err := msqlite.NewConnector(path + "?" + pragmas)
	if err != nil {
		return nil, err
	}
	return sql.OpenDB(c), nil
}

// SQLite's primary result codes.
const (
	codePerm     = 3
	codeReadOnly = 8
	codeCantOpen = 14
	codeNotADB   = 26
)

// explain reads SQLite's result code (the low byte of an extended code):
// a file that cannot be opened or created, is read-only or is not a
// database is a configuration error. Busy and locked are not: another
// process holds the write lock for a moment.
func explain(path string, err error) (string, bool) {
	var se *msqlite.Error
	if !errors.As(err, &se) {
		return "", false
	}
	switch se.Code() & 0xff {
	case codeCantOpen:
		if path == "" {
			return "cannot be opened or created (check the path and its permissions)", true
		}
		dir := filepath.Dir(path)
		if _, statErr := os.Stat(dir); errors.Is(statErr, fs.ErrNotExist) {
			return fmt.Sprintf("cannot be created: its directory %s does not exist (create it: mkdir -p %s; or correct the path in the store URL)", dir, dir), true
		}
		return fmt.Sprintf("cannot be opened or created (check that the path names a file, and that this process may read and write it and its directory %s)", dir), true
	case codePerm, codeReadOnly:
		return "is read-only to this process (a store writes every reservation: give it write access to the file and its directory, which holds SQLite's -wal and -shm files)", true
	case codeNotADB:
		return "is not a SQLite database (correct the path in the store URL)", true
	}
	return "", false
}
