package sqlstore_test

import (
	"path/filepath"
	"testing"

	"github.com/seqshim/seqshim/sequence"
)

// TestMigrateOwnedBy opens a store on a table made before the owned_by
// column: the column is added, the rows kept, and OWNED BY stored.
func TestMigrateOwnedBy(t *testing.T) {
	url := "sqlite:" + filepath.Join(t.TempDir(), "seq.db")
	st := openT(t, url)
	ctx := t.Context()
	for _, q := range []string{
		`CREATE TABLE seqshim_sequences (
	name TEXT NOT NULL PRIMARY KEY, seq_type TEXT NOT NULL, increment_by BIGINT NOT NULL,
	min_value BIGINT NOT NULL, max_value BIGINT NOT NULL, start_value BIGINT NOT NULL,
	cache_size BIGINT NOT NULL, is_cycle BIGINT NOT NULL, last_value BIGINT NOT NULL,
	is_called BIGINT NOT NULL, version BIGINT NOT NULL, reservations BIGINT NOT NULL,
	values_reserved BIGINT NOT NULL, last_reserved BIGINT NOT NULL)`,
		`INSERT INTO seqshim_sequences VALUES ('public.old', 'bigint', 1, 1, 9223372036854775807, 1, 1, 0, 5, 1, 1, 0, 0, 0)`,
	} {
		if _, err := st.DB().ExecContext(ctx, q); err != nil {
			t.Fatal(err)
		}
	}
	if st.Table() != "seqshim_sequences" {
		t.Fatalf("default table is %q: the test creates the wrong one", st.Table())
	}
	info, err := st.Describe(ctx, "public.old")
	if err != nil {
		t.Fatalf("Describe of a row made before owned_by: %v", err)
	}
	if info.Position.Last != 5 || info.Spec.OwnedBy != "" {
		t.Errorf("old row: %+v", info)
	}
	spec, pos, _ := sequence.Clauses{OwnedBy: new(string)}.Create()
	spec.OwnedBy = "db/1/2/3"
	if err := st.Create(ctx, "public.new", spec, pos); err != nil {
		t.Fatal(err)
	}
	if info, err := st.Describe(ctx, "public.new"); err != nil || info.Spec.OwnedBy != "db/1/2/3" {
		t.Errorf("Describe(public.new) = %+v, %v; want OwnedBy kept", info.Spec, err)
	}
}
