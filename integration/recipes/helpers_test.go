package recipes_test

import (
	"context"
	"database/sql"
	"fmt"
	"net/url"
	"os"
	"testing"

	"github.com/seqshim/seqshim/driver"
	"github.com/seqshim/seqshim/internal/testkit/testenv"
)

// TestMain skips every recipe when there is no test PostgreSQL: an Example
// cannot skip itself.
func TestMain(m *testing.M) {
	if os.Getenv(testenv.EnvPG) == "" {
		if testenv.Required() {
			fmt.Fprintf(os.Stderr, "recipes: %s is unset (and %s=1)\n", testenv.EnvPG, testenv.EnvRequire)
			os.Exit(1)
		}
		fmt.Printf("recipes: skipped: %s is unset; run under scripts/testenv.sh\n", testenv.EnvPG)
		os.Exit(0)
	}
	os.Exit(m.Run())
}

// pgDSN is the test PostgreSQL's URL with a seqshim store added — an
// application's DSN after the migration, e.g.
// postgres://app@db/app?seqshim.store=memory:
func pgDSN(store string) string {
	u, err := url.Parse(os.Getenv(testenv.EnvPG))
	if err != nil {
		panic(err)
	}
	q := u.Query()
	q.Set("seqshim.store", store)
	u.RawQuery = q.Encode()
	return u.String()
}

// finish prints where the ids came from: the values of orders_seq the store
// served to this process (driver.Stats), whether the database's
// public.orders_seq is the store sequence's fenced twin (it must be: at its
// end, so that nothing draws from it natively; CREATE SEQUENCE through
// seqshim makes it, for the catalog to read as PostgreSQL's), and the
// default of table.id (none: not serial, not identity). Then it drops
// orders_seq through seqshim — the store's and its twin — so that the next
// recipe, with a memory: store of its own, can create it again.
func finish(ctx context.Context, db *sql.DB, table string) {
	stats, err := driver.Stats(ctx, db)
	if err != nil {
		panic(err)
	}
	for _, st := range stats {
		fmt.Printf("store: %d values of %s served to this process\n", st.Served, st.Name)
	}
	var fenced bool
	if err := db.QueryRowContext(ctx, `SELECT coalesce(bool_and(last_value = max_value), false) FROM pg_sequences
		WHERE schemaname = 'public' AND sequencename = 'orders_seq'`).Scan(&fenced); err != nil {
		panic(err)
	}
	var def sql.NullString
	err = db.QueryRowContext(ctx, `SELECT column_default FROM information_schema.columns
		WHERE table_schema = current_schema() AND table_name = $1 AND column_name = 'id'`, table).Scan(&def)
	if err != nil {
		panic(err)
	}
	fmt.Printf("database: orders_seq is the store's fenced twin: %v; default of %s.id: %q\n", fenced, table, def.String)
	if _, err := db.ExecContext(ctx, "DROP SEQUENCE orders_seq"); err != nil {
		panic(err)
	}
}
