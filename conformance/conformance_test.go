package conformance_test

import (
	"context"
	"crypto/rand"
	"database/sql"
	"encoding/hex"
	"flag"
	"fmt"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	_ "github.com/jackc/pgx/v5/stdlib" // driver "pgx": the native target

	"github.com/seqshim/seqshim/conformance"
	_ "github.com/seqshim/seqshim/driver" // driver "seqshim"
	"github.com/seqshim/seqshim/internal/engine"
	"github.com/seqshim/seqshim/internal/storeurl"
	"github.com/seqshim/seqshim/internal/testkit/pgconnfront"
	"github.com/seqshim/seqshim/internal/testkit/testenv"
	"github.com/seqshim/seqshim/rewrite"
)

var update = flag.Bool("update", false, "rewrite the scenarios' expectations with PostgreSQL's transcripts")

const scenarioDir = "testdata/scenarios"

// passed and failed count target × scenario subtests for the summary line.
var passed, failed atomic.Int64

// TestMain prints the summary line after the tests. go test shows a passing
// package's output only with -v, so the line is also appended to
// $SEQSHIM_TEST_TMP/summary.txt, which scripts/test prints at the end.
func TestMain(m *testing.M) {
	// dynalite accepts any credentials; the SDK's default chain needs some.
	if os.Getenv(testenv.EnvDynamoDB) != "" && os.Getenv("AWS_ACCESS_KEY_ID") == "" {
		os.Setenv("AWS_ACCESS_KEY_ID", "seqshim")
		os.Setenv("AWS_SECRET_ACCESS_KEY", "seqshim")
		os.Setenv("AWS_EC2_METADATA_DISABLED", "true")
	}
	// The emulator accepts any key; without one cosmosstore.Open looks for
	// an Azure identity. Set for the process, so for its children too.
	testenv.CosmosKeyEnv()
	code := m.Run()
	if p, f := passed.Load(), failed.Load(); p+f > 0 {
		line := fmt.Sprintf("conformance: %d passed, %d failed", p, f)
		fmt.Println(line)
		if dir := os.Getenv("SEQSHIM_TEST_TMP"); dir != "" {
			if fh, err := os.OpenFile(filepath.Join(dir, "summary.txt"), os.O_APPEND|os.O_CREATE|os.O_WRONLY, 0o644); err == nil {
				fmt.Fprintln(fh, line)
				fh.Close()
			}
		}
	}
	os.Exit(code)
}

// target is a database/sql target a scenario runs on. dsn gets the URL of
// the scenario's fresh database and returns the driver name and DSN to open.
type target struct {
	name string
	dsn  func(t *testing.T, env *suiteEnv, dbURL, unique string) (driverName, dsn string)
}

// suiteEnv is what every subtest shares: the server, the DynamoDB table
// and the Cosmos DB container.
type suiteEnv struct {
	pgURL     string
	admin     *sql.DB
	dynamo    testenv.DynamoTable     // the run's table; Endpoint "" when dynalite is unavailable
	dynamoErr error                   // creating the table failed: the dynamodb target fails, the others run
	cosmos    testenv.CosmosContainer // the run's container; Endpoint "" when the emulator is unavailable
	cosmosErr error                   // creating the container failed: the cosmos target fails, the others run
}

var targets = []target{
	{"memory", func(t *testing.T, _ *suiteEnv, dbURL, unique string) (string, string) {
		return "seqshim", withStore(t, dbURL, "memory:"+unique)
	}},
	{"sqlite", func(t *testing.T, _ *suiteEnv, dbURL, _ string) (string, string) {
		return "seqshim", withStore(t, dbURL, "sqlite:"+filepath.Join(t.TempDir(), "seq.db"))
	}},
	{"postgres", func(t *testing.T, _ *suiteEnv, dbURL, _ string) (string, string) {
		// sqlstore in the scenario's own database, beside its tables.
		return "seqshim", withStore(t, dbURL, dbURL)
	}},
	{"shadow", func(t *testing.T, _ *suiteEnv, dbURL, unique string) (string, string) {
		// Shadow mode: the database's own sequences answer every statement,
		// sent unchanged; seqshim only draws as many values from the store
		// beside it. The transcript must be native's, step for step.
		return "seqshim", withParams(t, withStore(t, dbURL, "memory:"+unique), "seqshim.mode=shadow")
	}},
	{"dynamodb", func(t *testing.T, env *suiteEnv, dbURL, unique string) (string, string) {
		if env.dynamo.Endpoint == "" {
			testenv.DynamoDB(t) // skips, or fails when required
		}
		if env.dynamoErr != nil {
			t.Fatal(env.dynamoErr)
		}
		return "seqshim", withStore(t, dbURL, env.dynamo.URL(unique+"/"))
	}},
	{"cosmos", func(t *testing.T, env *suiteEnv, dbURL, unique string) (string, string) {
		return "seqshim", withStore(t, dbURL, env.cosmosURL(t, unique+"/"))
	}},
}

// cosmosURL is the store URL of the run's Cosmos DB container with prefix;
// without the emulator the test skips (or fails when required).
func (env *suiteEnv) cosmosURL(t *testing.T, prefix string) string {
	t.Helper()
	if env.cosmos.Endpoint == "" {
		testenv.Cosmos(t) // skips, or fails when required
	}
	if env.cosmosErr != nil {
		t.Fatal(env.cosmosErr)
	}
	return env.cosmos.URL(prefix)
}

// withParams adds the parameters of a URL query to a postgres:// URL.
func withParams(t *testing.T, dbURL, params string) string {
	out, err := addParams(dbURL, params)
	if err != nil {
		t.Fatal(err)
	}
	return out
}

// addParams is withParams returning its error.
func addParams(dbURL, params string) (string, error) {
	u, err := url.Parse(dbURL)
	if err != nil {
		return "", err
	}
	add, err := url.ParseQuery(params)
	if err != nil {
		return "", err
	}
	q := u.Query()
	for k, vs := range add {
		for _, v := range vs {
			q.Add(k, v)
		}
	}
	// pgx reads a + in a URL as a +: spaces as %20.
	u.RawQuery = strings.ReplaceAll(q.Encode(), "+", "%20")
	return u.String(), nil
}

// patience are the DSN parameters of every seqshim handle of the suite: a
// store call slower than the defaults allow (a loaded machine) is waited
// for, not abandoned. An abandoned reservation the store applied anyway is
// a gap, correct but not PostgreSQL's exact value.
var patience = url.Values{"seqshim.max_wait": {"1m"}, "seqshim.refill_timeout": {"30s"}}

// withPatience adds the suite's patience to DSN parameters q.
func withPatience(q url.Values) url.Values {
	for k, v := range patience {
		q[k] = v
	}
	return q
}

// withStore adds seqshim.store, and the suite's patience, to a
// postgres:// URL.
func withStore(t *testing.T, dbURL, store string) string {
	u, err := url.Parse(dbURL)
	if err != nil {
		t.Fatal(err)
	}
	q := withPatience(u.Query())
	q.Set("seqshim.store", store)
	u.RawQuery = q.Encode()
	return u.String()
}

// newSuiteEnv connects to the test server (or skips) and creates the
// test's DynamoDB table when there is a dynalite, and its Cosmos DB
// container when there is an emulator.
func newSuiteEnv(t *testing.T) *suiteEnv {
	env := &suiteEnv{pgURL: testenv.PG(t)}
	var err error
	env.admin, err = sql.Open("pgx", env.pgURL)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { env.admin.Close() })
	if os.Getenv(testenv.EnvDynamoDB) != "" {
		env.dynamo, env.dynamoErr = testenv.CreateDynamoTable(t)
	}
	if os.Getenv(testenv.EnvCosmos) != "" {
		env.cosmos, env.cosmosErr = testenv.CreateCosmosContainer(t)
	}
	return env
}

func TestConformance(t *testing.T) {
	scenarios, err := conformance.LoadDir(scenarioDir)
	if err != nil {
		t.Fatal(err)
	}
	env := newSuiteEnv(t)

	for _, sc := range scenarios {
		t.Run(sc.Name, func(t *testing.T) {
			t.Parallel()
			native, ok := runNative(t, env, sc)
			if !ok {
				// The scenario's expectations are not PostgreSQL's: fix
				// them before comparing seqshim with anything.
				return
			}
			for _, tg := range targets {
				t.Run(tg.name, func(t *testing.T) {
					defer count(t)
					db, unique := freshDB(t, env)
					name, dsn := tg.dsn(t, env, db, unique)
					got := run(t, name, dsn, sc)
					o := conformance.Compare(sc, native, got)
					if tg.name == "shadow" {
						// The database answers: every step must be
						// PostgreSQL's, per-row steps included.
						o = conformance.CompareExact(sc, native, got)
					}
					if !o.OK() {
						t.Errorf("%s differs from PostgreSQL:\n%s", tg.name, conformance.Diff(sc, tg.name, o))
					}
					if i := o.RejectedAt; i >= 0 {
						first, _, _ := strings.Cut(got[i], "\n")
						t.Logf("%s:%d: per-row step answered %q; later steps not compared", sc.Path, sc.Steps[i].Line, first)
					}
				})
			}
			for _, tg := range targets {
				if tg.name == "shadow" || strings.HasPrefix(tg.name, "seqd-") {
					continue // a mode, or a store behind the service: the driver's targets cover them
				}
				t.Run("pgx-"+tg.name, func(t *testing.T) {
					defer count(t)
					db, unique := freshDB(t, env)
					_, dsn := tg.dsn(t, env, db, unique)
					p := &pgxTarget{url: func(name, params string) (string, error) {
						if name != conformance.DefaultDB {
							return "", fmt.Errorf("db=%s: one database here", name)
						}
						return addParams(dsn, params)
					}}
					got := runPgx(t, p, sc)
					if o := conformance.Compare(sc, native, got); !o.OK() {
						t.Errorf("the pgx front end (%s) differs from PostgreSQL:\n%s", tg.name, conformance.Diff(sc, "pgx-"+tg.name, o))
					}
				})
			}
			if conformance.RunConns(sc) {
				t.Run("pgconn", func(t *testing.T) {
					defer count(t)
					got := runFrontEnd(t, env, sc)
					if o := conformance.Compare(sc, native, got); !o.OK() {
						t.Errorf("the pgconn front end differs from PostgreSQL:\n%s", conformance.Diff(sc, "pgconn", o))
					}
				})
			}
		})
	}
}

// runFrontEnd runs sc through a second front end of the core, over bare
// pgconn connections (internal/testkit/pgconnfront), on a memory store:
// the same lifecycle as the driver's, without database/sql. Its target
// runs the scenarios conformance.RunConns accepts.
func runFrontEnd(t *testing.T, env *suiteEnv, sc *conformance.Scenario) conformance.Transcript {
	t.Helper()
	db, unique := freshDB(t, env)
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	st, err := storeurl.Open(ctx, "memory:"+unique)
	if err != nil {
		t.Fatal(err)
	}
	tgt := pgconnfront.Target(db, engine.Config{Store: st, Dialect: rewrite.Postgres})
	tr, err := conformance.RunConnTarget(ctx, tgt, sc)
	if err != nil {
		t.Fatal(err)
	}
	return tr
}

// runNative runs sc on PostgreSQL through pgx: its transcript is the oracle
// every target is compared with. The subtest "native" checks it against the
// file's expectations (or rewrites them with -update); the transcript is
// taken outside it, so that -run selecting only seqshim targets still has it.
func runNative(t *testing.T, env *suiteEnv, sc *conformance.Scenario) (conformance.Transcript, bool) {
	db, _ := freshDB(t, env)
	tr := run(t, "pgx", db, sc)
	ok := t.Run("native", func(t *testing.T) {
		defer count(t)
		for i := range sc.Steps {
			if err := conformance.CheckPerRow(&sc.Steps[i], tr[i]); err != nil {
				t.Errorf("%s:%d: %v", sc.Path, sc.Steps[i].Line, err)
			}
		}
		checkNative(t, sc, tr)
	})
	return tr, ok
}

// checkNative compares PostgreSQL's transcript with the scenario's
// expectations, or with -update rewrites them.
func checkNative(t *testing.T, sc *conformance.Scenario, tr conformance.Transcript) {
	t.Helper()
	if *update {
		if err := os.WriteFile(sc.Path, sc.Rewrite(tr), 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	if o := conformance.CompareExact(sc, sc.Expected(), tr); !o.OK() {
		t.Errorf("PostgreSQL differs from the scenario's expectations (go test -update rewrites them):\n%s",
			conformance.Diff(sc, "native", o))
	}
}

func count(t *testing.T) {
	switch {
	case t.Skipped():
	case t.Failed():
		failed.Add(1)
	default:
		passed.Add(1)
	}
}

func run(t *testing.T, driverName, dsn string, sc *conformance.Scenario) conformance.Transcript {
	t.Helper()
	db, err := sql.Open(driverName, dsn)
	if err != nil {
		t.Fatal(err)
	}
	defer func() {
		if err := db.Close(); err != nil {
			t.Errorf("close: %v", err)
		}
	}()
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	open := func(params string) (*sql.DB, error) {
		return sql.Open(driverName, withParams(t, dsn, params))
	}
	tr, err := conformance.RunOpen(ctx, db, open, sc)
	if err != nil {
		t.Fatal(err)
	}
	return tr
}

// freshDB creates an empty database for one scenario on one target, dropped
// at the end of the test, and returns its URL and a name unique to it.
func freshDB(t *testing.T, env *suiteEnv) (dbURL, unique string) {
	t.Helper()
	dbURL, unique, err := createDB(t, env)
	if err != nil {
		t.Fatalf("create database: %v", err)
	}
	return dbURL, unique
}

// createDB is freshDB returning its error.
func createDB(t *testing.T, env *suiteEnv) (dbURL, unique string, err error) {
	unique = "conf_" + randHex(6)
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	if _, err := env.admin.ExecContext(ctx, "CREATE DATABASE "+unique+" STRATEGY FILE_COPY"); err != nil {
		return "", "", err
	}
	t.Cleanup(func() {
		ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
		defer cancel()
		if _, err := env.admin.ExecContext(ctx, "DROP DATABASE IF EXISTS "+unique+" WITH (FORCE)"); err != nil {
			t.Errorf("drop database: %v", err)
		}
	})
	u, err := url.Parse(env.pgURL)
	if err != nil {
		return "", "", err
	}
	u.Path = "/" + unique
	return u.String(), unique, nil
}

func randHex(n int) string {
	b := make([]byte, n)
	_, _ = rand.Read(b)
	return hex.EncodeToString(b)
}
