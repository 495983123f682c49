package conformance_test

import (
	"context"
	"net/http/httptest"
	"path/filepath"
	"strings"
	"testing"

	"github.com/seqshim/seqshim/dynamostore"
	"github.com/seqshim/seqshim/internal/testkit/testenv"
	"github.com/seqshim/seqshim/memstore"
	"github.com/seqshim/seqshim/seqd"
	_ "github.com/seqshim/seqshim/seqdstore" // seqd+http:// store URLs
	"github.com/seqshim/seqshim/sequence"
	"github.com/seqshim/seqshim/sqlstore"
)

// The sequence service as one more store: the driver's store URL is a
// seqd+http:// URL of a server started for the scenario, in front of each
// store, with the server's cache on (its production configuration).

// serveSeqd starts a server on st for the test and returns its store URL.
func serveSeqd(t *testing.T, st sequence.Store) string {
	t.Helper()
	srv, err := seqd.New(seqd.Config{Store: st, Open: true})
	if err != nil {
		t.Fatal(err)
	}
	hs := httptest.NewServer(srv.Handler())
	t.Cleanup(func() {
		hs.Close()
		_ = srv.Close()
	})
	return "seqd+http://" + strings.TrimPrefix(hs.URL, "http://")
}

func openSQLStore(t *testing.T, rawurl string) sequence.Store {
	t.Helper()
	st, err := sqlstore.Open(context.Background(), rawurl)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { st.Close() })
	return st
}

// seqdStores are the stores a server is put in front of, by target name.
var seqdStores = []struct {
	name  string
	store func(t *testing.T, env *suiteEnv, dbURL, unique string) sequence.Store
}{
	{"seqd-memory", func(*testing.T, *suiteEnv, string, string) sequence.Store { return memstore.New() }},
	{"seqd-sqlite", func(t *testing.T, _ *suiteEnv, _, _ string) sequence.Store {
		return openSQLStore(t, "sqlite:"+filepath.Join(t.TempDir(), "seq.db"))
	}},
	{"seqd-postgres", func(t *testing.T, _ *suiteEnv, dbURL, _ string) sequence.Store { return openSQLStore(t, dbURL) }},
	{"seqd-dynamodb", func(t *testing.T, env *suiteEnv, _, unique string) sequence.Store {
		if env.dynamo.Endpoint == "" {
			testenv.DynamoDB(t) // skips, or fails when required
		}
		if env.dynamoErr != nil {
			t.Fatal(env.dynamoErr)
		}
		return env.dynamo.Store(func(o *dynamostore.Options) { o.Prefix = unique + "/" })
	}},
}

func init() {
	for _, s := range seqdStores {
		targets = append(targets, target{s.name, func(t *testing.T, env *suiteEnv, dbURL, unique string) (string, string) {
			return "seqshim", withStore(t, dbURL, serveSeqd(t, s.store(t, env, dbURL, unique)))
		}})
	}
}
