package conformance_test

import (
	"context"
	"database/sql"
	"fmt"
	"net/url"
	"path/filepath"
	"testing"
	"time"

	"github.com/seqshim/seqshim/conformance"
	"github.com/seqshim/seqshim/internal/testkit/testenv"
)

const multiDBDir = "testdata/multidb"

// storeTargets are the seqshim targets of TestMultiDB. Each gives the store
// of one scenario run, which every database of the run shares.
var storeTargets = []struct {
	name  string
	store func(t *testing.T, env *suiteEnv) string
}{
	{"memory", func(*testing.T, *suiteEnv) string { return "memory:multi_" + randHex(6) }},
	{"sqlite", func(t *testing.T, _ *suiteEnv) string {
		return "sqlite:" + filepath.Join(t.TempDir(), "seq.db")
	}},
	{"postgres", func(t *testing.T, env *suiteEnv) string {
		// sqlstore in a database of its own: the scenario's databases are
		// dropped and created again, the store must outlive them.
		dbURL, _ := freshDB(t, env)
		return dbURL
	}},
	{"dynamodb", func(t *testing.T, env *suiteEnv) string {
		if env.dynamo.Endpoint == "" {
			testenv.DynamoDB(t) // skips, or fails when required
		}
		if env.dynamoErr != nil {
			t.Fatal(env.dynamoErr)
		}
		return env.dynamo.URL("multi_" + randHex(6) + "/")
	}},
	{"cosmos", func(t *testing.T, env *suiteEnv) string { return env.cosmosURL(t, "multi_"+randHex(6)+"/") }},
}

// TestMultiDB runs the scenarios of testdata/multidb, whose steps name
// several databases (db=), natively, each name a fresh database, and
// through seqshim with each store, each name a fresh database and all of
// them sharing one store. They must give PostgreSQL's transcripts except
// for id columns (ids=, seen=), whose values must be unique across the
// databases, and differs steps, which have a seqshim expectation of their
// own (see the package documentation).
func TestMultiDB(t *testing.T) {
	scenarios, err := conformance.LoadDir(multiDBDir)
	if err != nil {
		t.Fatal(err)
	}
	env := newSuiteEnv(t)
	for _, sc := range scenarios {
		t.Run(sc.Name, func(t *testing.T) {
			t.Parallel()
			native, ok := runNativeMulti(t, env, sc)
			if !ok {
				return
			}
			for _, tg := range storeTargets {
				t.Run(tg.name, func(t *testing.T) {
					defer count(t)
					store := tg.store(t, env)
					got := runMulti(t, env, "seqshim", withPatience(url.Values{"seqshim.store": {store}}).Encode(), sc)
					if o := conformance.Compare(sc, native, got); !o.OK() {
						t.Errorf("%s differs from PostgreSQL:\n%s", tg.name, conformance.Diff(sc, tg.name, o))
					}
				})
				t.Run("pgx-"+tg.name, func(t *testing.T) {
					defer count(t)
					store := tg.store(t, env)
					dbs := &databases{t: t, env: env, params: withPatience(url.Values{"seqshim.store": {store}}).Encode(), urls: map[string]string{}, names: map[string]string{}}
					got := runPgx(t, &pgxTarget{url: dbs.url, recreate: dbs.Recreate}, sc)
					if o := conformance.Compare(sc, native, got); !o.OK() {
						t.Errorf("the pgx front end (%s) differs from PostgreSQL:\n%s", tg.name, conformance.Diff(sc, "pgx-"+tg.name, o))
					}
				})
			}
		})
	}
}

// runNativeMulti is runNative for a multi-database scenario.
func runNativeMulti(t *testing.T, env *suiteEnv, sc *conformance.Scenario) (conformance.Transcript, bool) {
	tr := runMulti(t, env, "pgx", "", sc)
	ok := t.Run("native", func(t *testing.T) {
		defer count(t)
		for i := range sc.Steps {
			if err := conformance.CheckIDs(&sc.Steps[i], tr[i]); err != nil {
				t.Errorf("%s:%d: %v", sc.Path, sc.Steps[i].Line, err)
			}
		}
		checkNative(t, sc, tr)
	})
	return tr, ok
}

// runMulti runs sc with driverName on fresh databases, one per db= name,
// whose DSNs get params.
func runMulti(t *testing.T, env *suiteEnv, driverName, params string, sc *conformance.Scenario) conformance.Transcript {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 120*time.Second)
	defer cancel()
	dbs := &databases{t: t, env: env, driverName: driverName, params: params, urls: map[string]string{}, names: map[string]string{}}
	tr, err := conformance.RunDatabases(ctx, dbs, sc)
	if err != nil {
		t.Fatal(err)
	}
	return tr
}

// databases is the conformance.Databases of one run: a fresh database on
// the test server per name, created at its first Open and dropped when the
// test ends.
type databases struct {
	t          *testing.T
	env        *suiteEnv
	driverName string
	params     string            // DSN parameters of every handle (the seqshim store)
	urls       map[string]string // name → the database's URL
	names      map[string]string // name → the database's name on the server
}

func (d *databases) Open(name, params string) (*sql.DB, error) {
	u, err := d.url(name, params)
	if err != nil {
		return nil, err
	}
	return sql.Open(d.driverName, u)
}

// url is the URL of database name, created at its first use, with the
// run's parameters and params.
func (d *databases) url(name, params string) (string, error) {
	u, ok := d.urls[name]
	if !ok {
		var err error
		if u, d.names[name], err = createDB(d.t, d.env); err != nil {
			return "", fmt.Errorf("create database %s: %w", name, err)
		}
		d.urls[name] = u
	}
	for _, p := range []string{d.params, params} {
		if p == "" {
			continue
		}
		var err error
		if u, err = addParams(u, p); err != nil {
			return "", err
		}
	}
	return u, nil
}

// Recreate drops the database and creates it again under the same name:
// a new database (another OID) to PostgreSQL and to seqshim.
func (d *databases) Recreate(ctx context.Context, name string) error {
	server, ok := d.names[name]
	if !ok {
		return fmt.Errorf("database %s was never opened", name)
	}
	if _, err := d.env.admin.ExecContext(ctx, "DROP DATABASE "+server+" WITH (FORCE)"); err != nil {
		return err
	}
	_, err := d.env.admin.ExecContext(ctx, "CREATE DATABASE "+server+" STRATEGY FILE_COPY")
	return err
}
