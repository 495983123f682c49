package main

// seqctl serves every store: it links each one, registering its store URL
// scheme with internal/storeurl.
import (
	_ "github.com/seqshim/seqshim/cosmosstore"     // cosmos://, cosmos+http://
	_ "github.com/seqshim/seqshim/dynamostore"     // dynamodb://
	_ "github.com/seqshim/seqshim/memstore"        // memory:
	_ "github.com/seqshim/seqshim/seqdstore"       // seqd://, seqd+http://
	_ "github.com/seqshim/seqshim/sqlstore"        // postgres://, postgresql://
	_ "github.com/seqshim/seqshim/sqlstore/sqlite" // sqlite:
)
