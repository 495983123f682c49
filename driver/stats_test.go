package driver_test

import (
	"context"
	"database/sql"
	"testing"

	"github.com/seqshim/seqshim/driver"
	"github.com/seqshim/seqshim/driver/internal/fakedriver"
)

func TestStats(t *testing.T) {
	c, err := driver.NewConnector(&fakedriver.Connector{}, func(o *driver.Options) { o.StoreURL = "memory:" + t.Name() })
	if err != nil {
		t.Fatal(err)
	}
	db := sql.OpenDB(c)
	defer db.Close()
	ctx := context.Background()
	if _, err := db.ExecContext(ctx, "CREATE SEQUENCE s"); err != nil {
		t.Fatal(err)
	}
	for range 5 {
		var v int64
		if err := db.QueryRowContext(ctx, "SELECT nextval('s')").Scan(&v); err != nil {
			t.Fatal(err)
		}
	}
	stats, err := driver.Stats(ctx, db)
	if err != nil {
		t.Fatal(err)
	}
	if len(stats) != 1 || stats[0].Name != "s" || stats[0].Served != 5 || stats[0].Reservations < 1 {
		t.Fatalf("Stats = %+v", stats)
	}

	other, err := sql.Open("pgx", "postgres://127.0.0.1:1/x")
	if err != nil {
		t.Fatal(err)
	}
	defer other.Close()
	if _, err := driver.Stats(ctx, other); err == nil {
		t.Fatal("Stats of a non-seqshim db: no error")
	}
}
