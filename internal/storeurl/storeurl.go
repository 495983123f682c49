// Package storeurl opens the seqshim store a URL names, so the driver and
// seqctl accept the same store URLs, and holds the one description of them:
// [Forms] lists memory:, sqlite:PATH, postgres://…, dynamodb://TABLE?region=R&endpoint=URL&prefix=P
// (see [Form] for what each opens: [memstore], [sqlstore], [dynamostore]).
// seqctl's help and the driver's parameter table are made from it; the docs
// that cannot be (Go doc comments, README.md) are kept in step by a test.
//
// Stores that hold resources (database handles) implement io.Closer; close
// them when done. memory: stores are process-wide and need no closing.
package storeurl

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"

	"github.com/seqshim/seqshim/dynamostore"
	"github.com/seqshim/seqshim/memstore"
	"github.com/seqshim/seqshim/sequence"
	"github.com/seqshim/seqshim/sqlstore"
)

// Form is one store URL form [Open] accepts.
type Form struct {
	Syntax string // e.g. "sqlite:PATH"
	Doc    string // the store it opens, one line
}

// forms is the one list of store URL forms; everything that describes store
// URLs says what it says.
var forms = []Form{
	{"memory:", "this process only (tests and demos); memory:NAME is another one"},
	{"sqlite:PATH", "a SQLite file (created if missing; its directory must exist)"},
	{"postgres://…", "a table in a PostgreSQL database (table=NAME to choose it)"},
	{"dynamodb://TABLE?region=R&endpoint=URL&prefix=P", "a DynamoDB table; what the URL omits comes from the AWS SDK's default chain"},
}

// Forms returns the store URL forms Open accepts, in the order help texts
// list them.
func Forms() []Form { return slices.Clone(forms) }

// Summary returns the syntaxes of [Forms] on one line, for messages and
// one-line docs: "memory:, sqlite:PATH, postgres://…, dynamodb://TABLE?…".
func Summary() string {
	s := make([]string, len(forms))
	for i, f := range forms {
		s[i] = f.Syntax
	}
	return strings.Join(s, ", ")
}

// ErrURL is wrapped by the error for an empty URL or an unknown scheme.
var ErrURL = errors.New("invalid store URL")

// Open opens the store of rawurl, dispatching on its scheme (any case). It
// does not contact the store: the first operation does.
func Open(ctx context.Context, rawurl string) (sequence.Store, error) {
	if strings.TrimSpace(rawurl) == "" {
		return nil, fmt.Errorf("%w: empty; want one of %s", ErrURL, Summary())
	}
	scheme, rest, ok := strings.Cut(rawurl, ":")
	if !ok {
		return nil, fmt.Errorf("%w: %q has no scheme; want one of %s", ErrURL, Redact(rawurl), Summary())
	}
	switch strings.ToLower(scheme) {
	case memstore.Scheme:
		return memstore.Open(memstore.Scheme + ":" + rest)
	case "sqlite", "postgres", "postgresql":
		return sqlstore.Open(ctx, rawurl)
	case "dynamodb":
		return dynamostore.Open(ctx, rawurl)
	}
	return nil, fmt.Errorf("%w: unknown scheme %q in %q; want one of %s", ErrURL, scheme, Redact(rawurl), Summary())
}
