package conformance_test

// The SQLite store (seqshim.store=sqlite:…), which the driver does not link.
import _ "github.com/seqshim/seqshim/sqlstore/sqlite"
