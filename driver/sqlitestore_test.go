package driver_test

// The tests that keep sequences in a SQLite file (seqshim.store=sqlite:…,
// sqlstore.Open of a sqlite: URL) need the SQLite store, which the driver
// does not link.
import _ "github.com/seqshim/seqshim/sqlstore/sqlite"
