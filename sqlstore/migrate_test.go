package sqlstore_test

import (
	"context"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/seqshim/seqshim/internal/testkit/testenv"
	"github.com/seqshim/seqshim/sequence"
	"github.com/seqshim/seqshim/sqlstore"
)

// oldTables are the table's earlier versions, each with one row as that
// version wrote it ($T stands for the table's name).
var oldTables = []struct {
	name    string
	create  string
	row     string
	ownedBy string // the row's owned_by, if that version has it
}{
	{
		name: "before owned_by",
		create: `CREATE TABLE $T (
	name TEXT NOT NULL PRIMARY KEY, seq_type TEXT NOT NULL, increment_by BIGINT NOT NULL,
	min_value BIGINT NOT NULL, max_value BIGINT NOT NULL, start_value BIGINT NOT NULL,
	cache_size BIGINT NOT NULL, is_cycle BIGINT NOT NULL, last_value BIGINT NOT NULL,
	is_called BIGINT NOT NULL, version BIGINT NOT NULL, reservations BIGINT NOT NULL,
	values_reserved BIGINT NOT NULL, last_reserved BIGINT NOT NULL)`,
		row: `INSERT INTO $T VALUES ('old', 'bigint', 1, 1, 9223372036854775807, 1, 1, 0, 5, 1, 1, 0, 0, 0)`,
	},
	{
		name: "before defaults",
		create: `CREATE TABLE $T (
	name TEXT NOT NULL PRIMARY KEY, seq_type TEXT NOT NULL, increment_by BIGINT NOT NULL,
	min_value BIGINT NOT NULL, max_value BIGINT NOT NULL, start_value BIGINT NOT NULL,
	cache_size BIGINT NOT NULL, is_cycle BIGINT NOT NULL, last_value BIGINT NOT NULL,
	is_called BIGINT NOT NULL, version BIGINT NOT NULL, reservations BIGINT NOT NULL,
	values_reserved BIGINT NOT NULL, last_reserved BIGINT NOT NULL,
	owned_by TEXT NOT NULL DEFAULT '')`,
		row:     `INSERT INTO $T VALUES ('old', 'bigint', 1, 1, 9223372036854775807, 1, 1, 0, 5, 1, 1, 0, 0, 0, 'db/1/2/3')`,
		ownedBy: "db/1/2/3",
	},
	{
		name: "before daily limits",
		create: `CREATE TABLE $T (
	name TEXT NOT NULL PRIMARY KEY, seq_type TEXT NOT NULL, increment_by BIGINT NOT NULL,
	min_value BIGINT NOT NULL, max_value BIGINT NOT NULL, start_value BIGINT NOT NULL,
	cache_size BIGINT NOT NULL, is_cycle BIGINT NOT NULL, last_value BIGINT NOT NULL,
	is_called BIGINT NOT NULL, version BIGINT NOT NULL, reservations BIGINT NOT NULL,
	values_reserved BIGINT NOT NULL, last_reserved BIGINT NOT NULL,
	owned_by TEXT NOT NULL DEFAULT '', defaults TEXT NOT NULL DEFAULT '')`,
		row:     `INSERT INTO $T VALUES ('old', 'bigint', 1, 1, 9223372036854775807, 1, 1, 0, 5, 1, 1, 0, 0, 0, 'db/1/2/3', '')`,
		ownedBy: "db/1/2/3",
	},
	{
		name: "before cache policies, incarnations and reservation tokens",
		create: `CREATE TABLE $T (
	name TEXT NOT NULL PRIMARY KEY, seq_type TEXT NOT NULL, increment_by BIGINT NOT NULL,
	min_value BIGINT NOT NULL, max_value BIGINT NOT NULL, start_value BIGINT NOT NULL,
	cache_size BIGINT NOT NULL, is_cycle BIGINT NOT NULL, last_value BIGINT NOT NULL,
	is_called BIGINT NOT NULL, version BIGINT NOT NULL, reservations BIGINT NOT NULL,
	values_reserved BIGINT NOT NULL, last_reserved BIGINT NOT NULL,
	owned_by TEXT NOT NULL DEFAULT '', defaults TEXT NOT NULL DEFAULT '',
	daily_limit BIGINT NOT NULL DEFAULT 0, usage_day BIGINT NOT NULL DEFAULT 0, day_used BIGINT NOT NULL DEFAULT 0)`,
		row:     `INSERT INTO $T VALUES ('old', 'bigint', 1, 1, 9223372036854775807, 1, 1, 0, 5, 1, 1, 0, 0, 0, 'db/1/2/3', '', 0, 0, 0)`,
		ownedBy: "db/1/2/3",
	},
	{
		name: "before members",
		create: `CREATE TABLE $T (
	name TEXT NOT NULL PRIMARY KEY, seq_type TEXT NOT NULL, increment_by BIGINT NOT NULL,
	min_value BIGINT NOT NULL, max_value BIGINT NOT NULL, start_value BIGINT NOT NULL,
	cache_size BIGINT NOT NULL, is_cycle BIGINT NOT NULL, last_value BIGINT NOT NULL,
	is_called BIGINT NOT NULL, version BIGINT NOT NULL, reservations BIGINT NOT NULL,
	values_reserved BIGINT NOT NULL, last_reserved BIGINT NOT NULL,
	owned_by TEXT NOT NULL DEFAULT '', defaults TEXT NOT NULL DEFAULT '',
	daily_limit BIGINT NOT NULL DEFAULT 0, usage_day BIGINT NOT NULL DEFAULT 0, day_used BIGINT NOT NULL DEFAULT 0,
	policy_buffer_ms BIGINT NOT NULL DEFAULT 0, policy_min_block BIGINT NOT NULL DEFAULT 0,
	policy_max_block BIGINT NOT NULL DEFAULT 0, policy_revalidate_ms BIGINT NOT NULL DEFAULT 0,
	renamed_from TEXT NOT NULL DEFAULT '', gen BIGINT NOT NULL DEFAULT 0,
	res_token TEXT NOT NULL DEFAULT '', res_first BIGINT NOT NULL DEFAULT 0,
	res_step BIGINT NOT NULL DEFAULT 0, res_count BIGINT NOT NULL DEFAULT 0)`,
		row: `INSERT INTO $T VALUES ('old', 'bigint', 1, 1, 9223372036854775807, 1, 1, 0, 5, 1, 1, 0, 0, 0, 'db/1/2/3', '', 0, 0, 0,
	0, 0, 0, 0, '', 0, '', 0, 0, 0)`,
		ownedBy: "db/1/2/3",
	},
}

// TestMigrate opens a store on a table made by an earlier version: the
// missing columns are added, the rows kept, and OWNED BY and column defaults
// stored from then on, and so are cache policies and rename records; a
// second store on the migrated table opens as is.
func TestMigrate(t *testing.T) {
	dialects := []struct {
		name string
		url  func(tb testing.TB) string // a database for one test
	}{
		{"sqlite", func(tb testing.TB) string { return "sqlite:" + filepath.Join(tb.TempDir(), "seq.db") }},
		{"postgres", testenv.PG},
	}
	open := func(t *testing.T, url, table string) *sqlstore.Store {
		st := openT(t, url, func(o *sqlstore.Options) { o.Table = table })
		t.Cleanup(func() {
			if _, err := st.DB().ExecContext(context.Background(), "DROP TABLE IF EXISTS "+table); err != nil {
				t.Error(err)
			}
		})
		return st
	}
	defaults := []sequence.ColumnDefault{{Table: "orders", Column: "id", Kind: sequence.IdentityByDefault}}
	for _, d := range dialects {
		for _, old := range oldTables {
			t.Run(d.name+"/"+old.name, func(t *testing.T) {
				ctx := t.Context()
				url, table := d.url(t), "seqshim_migrate_"+randomSuffix(t)
				st := open(t, url, table)
				for _, q := range []string{old.create, old.row} {
					if _, err := st.DB().ExecContext(ctx, strings.ReplaceAll(q, "$T", table)); err != nil {
						t.Fatal(err)
					}
				}
				info, err := st.Describe(ctx, "old")
				if err != nil {
					t.Fatalf("Describe of a row made %s: %v", old.name, err)
				}
				if info.Position.Last != 5 || info.Spec.OwnedBy != old.ownedBy || info.Spec.Defaults != nil || info.Spec.DailyLimit != 0 ||
					!info.Spec.Policy.IsZero() || info.Spec.Members != nil {
					t.Errorf("old row: %+v", info)
				}
				oldGen := info.Gen
				if oldGen == 0 {
					t.Errorf("old row: Gen 0 after migration, want an incarnation")
				}
				spec, pos, _ := sequence.Clauses{Defaults: &defaults}.Create()
				spec.OwnedBy = "db/1/2/4"
				spec.DailyLimit = 42
				spec.Policy = sequence.Policy{Buffer: 30 * time.Second, MinBlock: 10, MaxBlock: 20, Revalidate: 5 * time.Second}
				spec.Members = []sequence.Member{{DB: "sys/16384/app", OwnedBy: "db/1/2/4", Defaults: defaults}}
				if err := st.Create(ctx, "new", spec, pos); err != nil {
					t.Fatal(err)
				}
				if info, err := st.Describe(ctx, "new"); err != nil || !info.Spec.Equal(spec) {
					t.Errorf("Describe(new) = %+v, %v; want OwnedBy, Defaults, DailyLimit, Policy and Members kept", info.Spec, err)
				}
				if b, err := st.Reserve(ctx, "old", 100); err != nil || b.First != 6 || b.Gen != oldGen {
					t.Errorf("Reserve(old) = %+v, %v", b, err)
				}
				tok := sequence.NewToken()
				if b, err := st.ReserveToken(ctx, "old", 10, tok); err != nil || b.First != 106 {
					t.Errorf("ReserveToken(old) = %+v, %v", b, err)
				} else if got, ok, err := st.Recover(ctx, "old", tok); err != nil || !ok || got != b {
					t.Errorf("Recover(old) = %+v, %v, %v; want %+v, true", got, ok, err, b)
				}
				if info, err := st.Alter(ctx, "old", sequence.Clauses{DailyLimit: sequence.Int64(7)}); err != nil || info.Spec.DailyLimit != 7 {
					t.Errorf("Alter(old, daily limit) = %+v, %v", info.Spec, err)
				}
				if info, err := st.Alter(ctx, "old", sequence.Clauses{Defaults: &defaults}); err != nil ||
					!slices.Equal(info.Spec.Defaults, defaults) || info.Spec.OwnedBy != old.ownedBy {
					t.Errorf("Alter(old, defaults) = %+v, %v", info.Spec, err)
				}

				if info, err := st.Alter(ctx, "old", sequence.Clauses{Policy: &sequence.PolicyClauses{MaxBlock: sequence.Int64(9)}}); err != nil ||
					info.Spec.Policy != (sequence.Policy{MaxBlock: 9}) {
					t.Errorf("Alter(old, policy) = %+v, %v", info.Spec, err)
				}
				if b, err := st.Reserve(ctx, "old", 1); err != nil || b.Policy != (sequence.Policy{MaxBlock: 9}) {
					t.Errorf("Reserve(old) after the policy = %+v, %v", b, err)
				}
				for i := range 2 { // the second is a repeat of a completed rename
					if err := st.Rename(ctx, "new", "renamed"); err != nil {
						t.Errorf("Rename #%d on a migrated table: %v", i+1, err)
					}
				}

				// A row made before members gets its first.
				member := sequence.Member{DB: "sys/16385/other", Defaults: defaults}
				if info, err := st.Attach(ctx, "old", member, sequence.DefaultSpec()); err != nil ||
					len(info.Spec.Members) != 1 || info.Spec.Members[0].DB != member.DB || info.Spec.OwnedBy != old.ownedBy {
					t.Errorf("Attach(old) = %+v, %v", info.Spec, err)
				}

				// The table is up to date now: another store uses it as is.
				again := open(t, url, table)
				if info, err := again.Describe(ctx, "old"); err != nil || !slices.Equal(info.Spec.Defaults, defaults) || info.Gen != oldGen ||
					len(info.Spec.Members) != 1 || !slices.Equal(info.Spec.Members[0].Defaults, defaults) {
					t.Errorf("second store: Describe(old) = %+v, %v", info.Spec, err)
				}
			})
		}
	}
}
