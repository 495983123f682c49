// Package storeurl opens the seqshim store a URL names, so the driver and
// seqctl accept the same store URLs, and holds the one description of them:
// [Forms] lists memory:, sqlite:PATH, postgres://…, dynamodb://TABLE?region=R&endpoint=URL&prefix=P,
// seqd://HOST:PORT, seqd+http://HOST:PORT, cosmos://HOST/DATABASE/CONTAINER?prefix=P,
// cosmos+http://HOST:PORT/DATABASE/CONTAINER (see [Form] for what each opens: memstore,
// sqlstore/sqlite, sqlstore, dynamostore, seqdstore, cosmosstore). seqctl's help and the driver's parameter table are made from
// it; the docs that cannot be (Go doc comments, README.md) are kept in step
// by a test.
//
// Stores register themselves by scheme ([Register]), as database/sql drivers
// do: this package imports none of them, so a program links the stores it
// imports and no other. The driver imports memstore, sqlstore and
// dynamostore; the SQLite store, the sequence service's client and the
// Cosmos DB store are linked only by a program that imports their package
// (the [Form]'s Import), and [Open] of their URLs without it names that
// import.
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
	"sync"

	"github.com/seqshim/seqshim/sequence"
)

// Form is one store URL form [Open] accepts.
type Form struct {
	Syntax string // e.g. "sqlite:PATH"
	Doc    string // the store it opens, one line
	// Import is the package a program imports to link the store, for a store
	// the driver does not link; empty for the others.
	Import string
}

// SQLiteImport is the package that links the SQLite store.
const SQLiteImport = "github.com/seqshim/seqshim/sqlstore/sqlite"

// SeqdImport is the package that links the sequence service's client store.
const SeqdImport = "github.com/seqshim/seqshim/seqdstore"

// CosmosImport is the package that links the Cosmos DB store.
const CosmosImport = "github.com/seqshim/seqshim/cosmosstore"

// forms is the one list of store URL forms; everything that describes store
// URLs says what it says.
var forms = []Form{
	{Syntax: "memory:", Doc: "this process only (tests and demos); memory:NAME is another one"},
	{Syntax: "sqlite:PATH", Doc: "a SQLite file (created if missing; its directory must exist)", Import: SQLiteImport},
	{Syntax: "postgres://…", Doc: "a table in a PostgreSQL database (table=NAME to choose it)"},
	{Syntax: "dynamodb://TABLE?region=R&endpoint=URL&prefix=P", Doc: "a DynamoDB table; what the URL omits comes from the AWS SDK's default chain"},
	{Syntax: "seqd://HOST:PORT", Doc: "the sequence service (TLS; HOST:PORT,HOST:PORT… for several servers; token from $SEQD_TOKEN)", Import: SeqdImport},
	{Syntax: "seqd+http://HOST:PORT", Doc: "the sequence service over plain HTTP (loopback, or a network that encrypts itself)", Import: SeqdImport},
	{Syntax: "cosmos://HOST/DATABASE/CONTAINER?prefix=P", Doc: "a Cosmos DB container (NoSQL API; the key from $AZURE_COSMOS_KEY, else azidentity's default chain)", Import: CosmosImport},
	{Syntax: "cosmos+http://HOST:PORT/DATABASE/CONTAINER", Doc: "a Cosmos DB emulator over plain HTTP", Import: CosmosImport},
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

// ErrNotLinked is wrapped by the error for a URL of a known form whose store
// the program does not link (a sqlite: URL without the SQLite store's
// import). The error is also a configuration error
// ([sequence.ErrMisconfigured]); its message names the import to add.
var ErrNotLinked = errors.New("store not linked into this program")

// OpenFunc opens the store of a URL of the scheme it was registered for. It
// does not contact the store.
type OpenFunc func(ctx context.Context, rawurl string) (sequence.Store, error)

var registry struct {
	mu   sync.RWMutex
	open map[string]OpenFunc // by lower-case scheme; written by Register, in init functions
}

// Register makes a store's URLs of scheme (without the colon, any case)
// available to [Open]. Store packages call it in their init function. It
// panics if open is nil or the scheme is registered already.
func Register(scheme string, open OpenFunc) {
	scheme = strings.ToLower(scheme)
	registry.mu.Lock()
	defer registry.mu.Unlock()
	if open == nil {
		panic("storeurl: Register of a nil OpenFunc for scheme " + scheme)
	}
	if _, dup := registry.open[scheme]; dup {
		panic("storeurl: Register called twice for scheme " + scheme)
	}
	if registry.open == nil {
		registry.open = make(map[string]OpenFunc)
	}
	registry.open[scheme] = open
}

// Schemes returns the registered schemes, sorted.
func Schemes() []string {
	registry.mu.RLock()
	defer registry.mu.RUnlock()
	s := make([]string, 0, len(registry.open))
	for k := range registry.open {
		s = append(s, k)
	}
	slices.Sort(s)
	return s
}

// Open opens the store of rawurl with the store registered for its scheme
// (any case). It does not contact the store: the first operation does, or a
// [sequence.Check].
func Open(ctx context.Context, rawurl string) (sequence.Store, error) {
	if strings.TrimSpace(rawurl) == "" {
		return nil, fmt.Errorf("%w: empty; want one of %s", ErrURL, Summary())
	}
	scheme, _, ok := strings.Cut(rawurl, ":")
	if !ok {
		return nil, fmt.Errorf("%w: %q has no scheme; want one of %s", ErrURL, Redact(rawurl), Summary())
	}
	registry.mu.RLock()
	open := registry.open[strings.ToLower(scheme)]
	registry.mu.RUnlock()
	if open != nil {
		return open(ctx, rawurl)
	}
	if imp := importFor(scheme); imp != "" {
		return nil, sequence.Misconfigured(fmt.Errorf("%w: %s: add import _ %q to the program", ErrNotLinked, Redact(rawurl), imp))
	}
	return nil, fmt.Errorf("%w: unknown scheme %q in %q; want one of %s", ErrURL, scheme, Redact(rawurl), Summary())
}

// importFor returns the import that links the store of scheme, if one of the
// forms with an Import has that scheme.
func importFor(scheme string) string {
	for _, f := range forms {
		if s, _, _ := strings.Cut(f.Syntax, ":"); f.Import != "" && strings.EqualFold(s, scheme) {
			return f.Import
		}
	}
	return ""
}
