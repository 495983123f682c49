package fence

import (
	"testing"

	"github.com/seqshim/seqshim/sequence"
)

func TestScan(t *testing.T) {
	n, err := Scan([]string{"S", "integer", "10", "-2", "-1", "-2147483648", "5", "true", "false"})
	if err != nil {
		t.Fatal(err)
	}
	want := sequence.Spec{Type: sequence.Integer, Start: 10, Increment: -2, Max: -1, Min: -2147483648, Cache: 5, Cycle: true}
	if n.Kind != 'S' || n.Fenced || n.Spec.Type != want.Type || n.Spec.Start != want.Start || n.Spec.Increment != want.Increment ||
		n.Spec.Max != want.Max || n.Spec.Min != want.Min || n.Spec.Cache != want.Cache || !n.Spec.Cycle {
		t.Errorf("Scan = %+v, want %+v", n, want)
	}
	if n, err := Scan([]string{"r", "", "0", "0", "0", "0", "0", "false", "false"}); err != nil || n.Kind != 'r' || n.Fenced {
		t.Errorf("a table: %+v, %v", n, err)
	}
	if n, err := Scan(nil); err != nil || n.Kind != 0 {
		t.Errorf("no relation: %+v, %v", n, err)
	}
	for _, bad := range [][]string{{"S"}, {"S", "text", "1", "1", "1", "1", "1", "f", "f"}, {"S", "bigint", "x", "1", "1", "1", "1", "f", "f"}} {
		if _, err := Scan(bad); err == nil {
			t.Errorf("Scan(%q) accepted", bad)
		}
	}
}

func TestStatements(t *testing.T) {
	up := sequence.Spec{Type: sequence.Bigint, Increment: 5, Min: 1, Max: 1000, Start: 1, Cache: 1, Cycle: true}
	down := sequence.Spec{Type: sequence.Smallint, Increment: -1, Min: -50, Max: -1, Start: -1, Cache: 0}
	if End(up) != 1000 || End(down) != -50 {
		t.Errorf("End: %d, %d", End(up), End(down))
	}
	if got, want := Create(`"public"."s"`, up, true), `CREATE UNLOGGED SEQUENCE "public"."s" AS bigint INCREMENT BY 5 MINVALUE 1 MAXVALUE 1000 START WITH 1 CACHE 1 NO CYCLE; SELECT pg_catalog.setval('"public"."s"', 1000, true)`; got != want {
		t.Errorf("Create:\n got %s\nwant %s", got, want)
	}
	if got, want := Alter(`"a"."d"`, down), `ALTER SEQUENCE "a"."d" AS smallint INCREMENT BY -1 MINVALUE -50 MAXVALUE -1 START WITH -1 CACHE 1 NO CYCLE RESTART WITH -50; SELECT pg_catalog.setval('"a"."d"', -50, true)`; got != want {
		t.Errorf("Alter:\n got %s\nwant %s", got, want)
	}
	if q := Quote(sequence.FormatName(`odd"sch`, "x")); q != `"odd""sch"."x"` {
		t.Errorf("Quote = %s", q)
	}
	if q := Quote(sequence.FormatName("public", "s")); q != `"public"."s"` {
		t.Errorf("Quote of a name in public = %s", q)
	}
	// A twin's options: the store's, NO CYCLE, CACHE at least 1.
	twin := up
	twin.Cycle = false
	if !Same(twin, up) || Same(up, up) {
		t.Errorf("Same: a NO CYCLE twin of a CYCLE sequence is the same; a CYCLE one is not")
	}
	d := down
	d.Cache = 1
	if !Same(d, down) {
		t.Errorf("Same: CACHE 0 in the store is CACHE 1 in the database")
	}
}
