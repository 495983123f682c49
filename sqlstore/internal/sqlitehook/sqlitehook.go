// Package sqlitehook is how package sqlstore/sqlite plugs the SQLite engine
// into sqlstore, which does not import it: sqlstore/sqlite registers an
// [Engine] in its init function, and sqlstore opens sqlite: URLs with it.
package sqlitehook

import (
	"database/sql"
	"sync/atomic"
)

// Engine opens SQLite files and explains their errors.
type Engine struct {
	// OpenDB opens the SQLite file at path with the settings a store needs
	// (BEGIN IMMEDIATE transactions, a busy timeout, WAL, synchronous=FULL).
	// It does not open the file: the first use of the handle does.
	OpenDB func(path string) (*sql.DB, error)
	// Explain tells whether err, returned by the database of the file at
	// path, means that the file cannot be used as configured (it cannot be
	// opened or created, it is read-only, it is not a database) and, if so,
	// what is wrong and what to do, as one phrase for a message ("cannot
	// be opened: directory /x does not exist (create it ...)"). A busy or
	// locked database is not a configuration error.
	Explain func(path string, err error) (problem string, misconfigured bool)
}

var engine atomic.Pointer[Engine]

// Register makes e the SQLite engine; the last registration wins.
func Register(e Engine) { engine.Store(&e) }

// Get returns the registered engine, nil if none is.
func Get() *Engine { return engine.Load() }
