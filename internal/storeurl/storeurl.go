// Package storeurl opens the seqshim store a URL names, so the driver and
// seqctl accept the same store URLs:
//
//   - memory: or memory:NAME — [memstore], one process only (tests, demos)
//   - sqlite:PATH — [sqlstore] on a SQLite file
//   - postgres://… or postgresql://… — [sqlstore] on a table in that database
//   - dynamodb://TABLE?region=R&endpoint=URL&prefix=P — [dynamostore]
//
// Stores that hold resources (database handles) implement io.Closer; close
// them when done. memory: stores are process-wide and need no closing.
package storeurl

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"github.com/seqshim/seqshim/dynamostore"
	"github.com/seqshim/seqshim/memstore"
	"github.com/seqshim/seqshim/sequence"
	"github.com/seqshim/seqshim/sqlstore"
)

// Forms lists the accepted store URL forms, for messages.
const Forms = "memory:, sqlite:PATH, postgres://..., or dynamodb://TABLE?region=R"

// ErrURL is wrapped by the error for an empty URL or an unknown scheme.
var ErrURL = errors.New("invalid store URL")

// Open opens the store of rawurl, dispatching on its scheme (any case). It
// does not contact the store: the first operation does.
func Open(ctx context.Context, rawurl string) (sequence.Store, error) {
	if strings.TrimSpace(rawurl) == "" {
		return nil, fmt.Errorf("%w: empty; want %s", ErrURL, Forms)
	}
	scheme, rest, ok := strings.Cut(rawurl, ":")
	if !ok {
		return nil, fmt.Errorf("%w: %q has no scheme; want %s", ErrURL, Redact(rawurl), Forms)
	}
	switch strings.ToLower(scheme) {
	case memstore.Scheme:
		return memstore.Open(memstore.Scheme + ":" + rest)
	case "sqlite", "postgres", "postgresql":
		return sqlstore.Open(ctx, rawurl)
	case "dynamodb":
		return dynamostore.Open(ctx, rawurl)
	}
	return nil, fmt.Errorf("%w: unknown scheme %q in %q; want %s", ErrURL, scheme, Redact(rawurl), Forms)
}
