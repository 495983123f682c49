package driver

import (
	// The stores the driver links, registering their store URL schemes.
	// The SQLite store is not among them: a program links it by importing
	// github.com/seqshim/seqshim/sqlstore/sqlite, so that importing the
	// driver registers no database/sql driver name but "seqshim" (the
	// SQLite engine registers "sqlite").
	_ "github.com/seqshim/seqshim/dynamostore" // dynamodb://
	_ "github.com/seqshim/seqshim/memstore"    // memory:
	_ "github.com/seqshim/seqshim/sqlstore"    // postgres://, postgresql://
)
