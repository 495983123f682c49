package main

import (
	"context"
	"reflect"
	"strings"
	"testing"

	"github.com/seqshim/seqshim/sequence"
)

const testCluster = "7301234567890123456"

// testDB is the identity of a database of testCluster.
func testDB(oid, name string) string { return sequence.DatabaseID(testCluster, oid, name) }

// attach makes m a member of counter name in st, as the driver does when
// m.DB runs CREATE SEQUENCE name.
func attach(t *testing.T, st sequence.Store, name string, m sequence.Member) {
	t.Helper()
	ctx := context.Background()
	info, err := st.Describe(ctx, name)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := st.Attach(ctx, name, m, info.Spec); err != nil {
		t.Fatalf("Attach(%s, %s): %v", name, m.DB, err)
	}
}

func mustColumn(t *testing.T, s string) sequence.ColumnDefault {
	t.Helper()
	c, err := sequence.ParseColumnDefault(s)
	if err != nil {
		t.Fatal(err)
	}
	return c
}

// membersBlock is show's lines from "members:" to the end of the counter.
func membersBlock(t *testing.T, out string) string {
	t.Helper()
	i := strings.Index(out, "members:")
	if i < 0 {
		t.Fatalf("show prints no members:\n%s", out)
	}
	block, _, _ := strings.Cut(out[i:], "burn rate:")
	return block
}

// TestShowMembers checks how show and list print members, in the table and
// as JSON, on a memory: store, without --check-db (nothing stale).
func TestShowMembers(t *testing.T) {
	ts := &tester{t: t, store: "memory:" + uniqueName(t, "", 60)}
	ts.ok("create", "s", "--default", "legacy.id")
	ts.ok("create", "plain", "--default", "orders.id")
	if got := membersBlock(t, ts.ok("show", "plain", "--sample", "0")); got != "members:           every database (no members recorded)\n" {
		t.Errorf("show of a counter without members: %q", got)
	}

	st := ts.open()
	a, b := testDB("16384", "shop_a"), testDB("16390", "shop_b")
	attach(t, st, "s", sequence.Member{DB: b})
	attach(t, st, "s", sequence.Member{DB: a, OwnedBy: "pg:" + a + "/16384/16401/1",
		Defaults: []sequence.ColumnDefault{mustColumn(t, "archive.id:always"), mustColumn(t, "orders.id")}})
	attach(t, st, "s", sequence.Member{DB: "mysql-orders"}) // not a PostgreSQL identity: printed as it is

	out := ts.ok("show", "s", "--sample", "0")
	if !strings.Contains(out, "column defaults:   each member's, below\n") || strings.Contains(out, "legacy.id") {
		t.Errorf("show of a counter with members prints the spec's own column defaults, which no database sees:\n%s", out)
	}
	want := "members:           3 databases share this counter\n" +
		"member:            shop_a (OID 16384, cluster 7301234567890123456)\n" +
		"  owned by:        pg:7301234567890123456/16384/shop_a/16384/16401/1\n" +
		"  defaults:        archive.id (always)\n" +
		"                   orders.id (default)\n" +
		"member:            shop_b (OID 16390, cluster 7301234567890123456)\n" +
		"  owned by:        none\n" +
		"  defaults:        none\n" +
		"member:            mysql-orders\n" +
		"  owned by:        none\n" +
		"  defaults:        none\n"
	if got := membersBlock(t, out); got != want {
		t.Errorf("show members:\n%s\nwant\n%s", got, want)
	}

	var j showJSON
	decode(t, ts.ok("show", "s", "--sample", "0", "-o", "json"), &j)
	owned := "pg:" + a + "/16384/16401/1"
	oidA, oidB := uint32(16384), uint32(16390)
	wantJSON := []memberJSON{
		{dbJSON: dbJSON{DB: a, Database: "shop_a", OID: &oidA, SystemIdentifier: testCluster}, OwnedBy: &owned,
			ColumnDefaults: []columnDefaultJSON{
				{Column: "archive.id", TableSchema: "public", TableName: "archive", ColumnName: "id", Kind: "always"},
				{Column: "orders.id", TableSchema: "public", TableName: "orders", ColumnName: "id", Kind: "default"},
			}},
		{dbJSON: dbJSON{DB: b, Database: "shop_b", OID: &oidB, SystemIdentifier: testCluster}, ColumnDefaults: []columnDefaultJSON{}},
		{dbJSON: dbJSON{DB: "mysql-orders"}, ColumnDefaults: []columnDefaultJSON{}},
	}
	if !reflect.DeepEqual(j.Members, wantJSON) {
		t.Errorf("show -o json members:\n%+v\nwant\n%+v", j.Members, wantJSON)
	}
	if len(j.ColumnDefaults) != 0 {
		t.Errorf("show -o json of a counter with members: column_defaults %+v, want [] (each member has its own)", j.ColumnDefaults)
	}
	raw := ts.ok("show", "s", "--sample", "0", "-o", "json")
	for _, field := range []string{`"stale": null`, `"owned_by": null`, `"system_identifier": "7301234567890123456"`, `"oid": 16384`} {
		if !strings.Contains(raw, field) {
			t.Errorf("show -o json has no %s:\n%s", field, raw)
		}
	}
	if c := ts.describe("plain"); c.Members == nil || len(c.Members) != 0 || len(c.ColumnDefaults) != 1 {
		t.Errorf("show -o json of a counter without members: members %v, column defaults %v", c.Members, c.ColumnDefaults)
	}

	var list []counterJSON
	decode(t, ts.ok("list", "-o", "json"), &list)
	if len(list) != 2 || !reflect.DeepEqual(list[1].Members, wantJSON) || len(list[0].Members) != 0 {
		t.Errorf("list -o json: %+v", list)
	}
	rows := lines(ts.ok("list"))
	for i, want := range []string{
		"  every database                orders.id (default)",
		"  shop_a, shop_b, mysql-orders  shop_a: archive.id (always) +1 more",
	} {
		if !strings.HasSuffix(rows[i+1], want) {
			t.Errorf("list row %d: %q, want it to end with %q", i, rows[i+1], want)
		}
	}
}

// TestWriteMembersChecked checks the marks of what the clusters said: stale,
// live (no mark) and not checked.
func TestWriteMembersChecked(t *testing.T) {
	gone, alive, other := testDB("16390", "shop_b"), testDB("16384", "shop_a"), sequence.DatabaseID("42", "5", "far")
	old := testDB("16400", "shop_c")
	cl := clusters{testCluster: {"16384": "shop_a", "5": "postgres", "16400": "shop_c2"}}
	info := sequence.Info{Name: "s", Spec: sequence.DefaultSpec()}
	info.Spec.Members = []sequence.Member{{DB: gone}, {DB: alive}, {DB: other}, {DB: old}}
	var out strings.Builder
	tw := newTable(&out)
	writeMembers(tw, info.Spec, cl)
	tw.Flush()
	for _, want := range []string{
		"member:      shop_b (OID 16390, cluster 7301234567890123456) (stale: database gone)\n",
		"member:      shop_a (OID 16384, cluster 7301234567890123456)\n",
		"member:      far (OID 5, cluster 42) (not checked: its cluster is not among --check-db)\n",
		"member:      shop_c (OID 16400, cluster 7301234567890123456) (renamed: the database is shop_c2 now, which does not see this counter; not stale)\n",
	} {
		if !strings.Contains(out.String(), want) {
			t.Errorf("members do not contain %q:\n%s", want, out.String())
		}
	}
	j := membersJSON(info.Spec.Members, cl)
	if j[0].Stale == nil || !*j[0].Stale || j[1].Stale == nil || *j[1].Stale || j[2].Stale != nil || j[3].Stale == nil || *j[3].Stale {
		t.Errorf("membersJSON stale: %v %v %v %v, want true, false, null, false", j[0].Stale, j[1].Stale, j[2].Stale, j[3].Stale)
	}
	if j[3].RenamedTo == nil || *j[3].RenamedTo != "shop_c2" || j[0].RenamedTo != nil || j[1].RenamedTo != nil {
		t.Errorf("membersJSON renamed_to: %v %v %v, want null, null, shop_c2", j[0].RenamedTo, j[1].RenamedTo, j[3].RenamedTo)
	}
}

func TestFmtMembersShort(t *testing.T) {
	cl := clusters{testCluster: {"1": "a", "3": "c", "5": "e", "6": "f2"}}
	members := func(names ...string) []sequence.Member {
		var ms []sequence.Member
		for i, n := range names {
			ms = append(ms, sequence.Member{DB: testDB(string(rune('1'+i)), n)})
		}
		return ms
	}
	tests := []struct {
		members []sequence.Member
		cl      clusters
		want    string
	}{
		{nil, cl, "every database"},
		{members("a"), cl, "a"},
		{members("a", "b"), cl, "a, b (stale)"},
		{members("a", "b"), nil, "a, b"}, // nothing checked
		{members("a", "b", "c", "d", "e", "f"), cl, "a, b (stale), c +3 more (1 stale)"},
		{members("a", "b", "c", "d", "e", "f")[5:], cl, "f (renamed)"},
	}
	for _, tt := range tests {
		if got := fmtMembersShort(tt.members, tt.cl); got != tt.want {
			t.Errorf("fmtMembersShort(%v) = %q, want %q", sequence.MemberDBs(tt.members), got, tt.want)
		}
	}
}
