package main

import (
	"reflect"
	"strings"
	"testing"

	"github.com/seqshim/seqshim/sequence"
)

// TestPlanPrune checks what prune decides for each member, from what the
// clusters said, with and without --drop-last.
func TestPlanPrune(t *testing.T) {
	a, b, c := testDB("1", "a"), testDB("2", "b"), testDB("3", "c")
	far := sequence.DatabaseID("42", "1", "far")
	cl := clusters{testCluster: {"1": "a", "4": "d2"}}
	d := testDB("4", "d") // renamed to d2: left alone
	info := func(name string, dbs ...string) sequence.Info {
		i := sequence.Info{Name: name, Spec: sequence.DefaultSpec()}
		for _, db := range dbs {
			i.Spec.Members = append(i.Spec.Members, sequence.Member{DB: db})
		}
		return i
	}
	infos := []sequence.Info{
		info("none"),             // every database's: never touched
		info("live", a),          // nothing stale
		info("some", a, b, c),    // b and c gone, a lives
		info("all", b, c),        // every member gone
		info("unknown", b, far),  // far not checked: b is not the last
		info("gone_far", far, c), // idem
		info("renamed", d, b),    // d renamed: b is not the last
	}
	type row struct{ name, db, action string }
	rows := func(plan []pruneItem) []row {
		var out []row
		for _, it := range plan {
			out = append(out, row{it.Name, it.DB, it.Action})
		}
		return out
	}
	common := []row{{"some", b, "detach"}, {"some", c, "detach"}}
	tail := []row{{"unknown", b, "detach"}, {"gone_far", c, "detach"}, {"renamed", b, "detach"}}
	tests := []struct {
		dropLast bool
		want     []row
	}{
		{false, append(append(common[:2:2], row{"all", b, "skip"}, row{"all", c, "skip"}), tail...)},
		{true, append(append(common[:2:2], row{"all", b, "detach"}, row{"all", c, "drop"}), tail...)},
	}
	for _, tt := range tests {
		plan, left := planPrune(infos, cl, tt.dropLast)
		if got := rows(plan); !reflect.DeepEqual(got, tt.want) {
			t.Errorf("drop-last %t: plan\n%v\nwant\n%v", tt.dropLast, got, tt.want)
		}
		if left != (pruneCounts{unchecked: 2, renamed: 1}) {
			t.Errorf("drop-last %t: left %+v, want 2 unchecked, 1 renamed", tt.dropLast, left)
		}
	}
}

// TestMembersStale runs the story of issue 25 on a real cluster: two
// databases declare counters, one is dropped; show and list mark its
// memberships stale when given the cluster, and prune detaches them (and
// not the live database's, nor those of a cluster not checked).
func TestMembersStale(t *testing.T) {
	conn, pgURL := pgConn(t)
	forEachStore(t, func(t *testing.T, ts *tester) {
		liveName, live := pgDatabase(t, conn)
		goneName, gone := pgDatabase(t, conn)
		oldName, moved := pgDatabase(t, conn)                 // renamed below: not stale, left alone
		far := sequence.DatabaseID("1", "16384", "elsewhere") // a cluster never checked
		st := ts.open()
		for _, c := range []struct {
			name string
			dbs  []string
		}{
			{"shared", []string{live, gone}},
			{"orphan", []string{gone}},       // every database gone: pruned only with --drop-last
			{"faraway", []string{gone, far}}, // far is unknown: gone is not its last
			{"moved", []string{gone, moved}}, // moved is renamed: gone is not its last
		} {
			ts.ok("create", c.name)
			for _, db := range c.dbs {
				attach(t, st, c.name, sequence.Member{DB: db,
					Defaults: []sequence.ColumnDefault{mustColumn(t, "orders.id")}})
			}
		}
		ts.ok("create", "everyones") // no members

		stateOf := func(c counterJSON) map[string]string {
			m := map[string]string{}
			for _, mem := range c.Members {
				switch {
				case mem.Stale == nil:
					m[mem.Database] = "unknown"
				case *mem.Stale:
					m[mem.Database] = "stale"
				default:
					m[mem.Database] = "live"
				}
			}
			return m
		}
		var c counterJSON
		decode(t, ts.ok("show", "shared", "--sample", "0", "-o", "json", "--check-db", pgURL), &c)
		if got := stateOf(c); !reflect.DeepEqual(got, map[string]string{liveName: "live", goneName: "live"}) {
			t.Errorf("before the drop: %v", got)
		}

		pgExec(t, conn, "DROP DATABASE "+goneName, "ALTER DATABASE "+oldName+" RENAME TO "+oldName+"_new")
		t.Cleanup(func() { pgExec(t, conn, "DROP DATABASE IF EXISTS "+oldName+"_new") })

		// Without --check-db nothing is known; with it, the dropped
		// database is stale, the live one live, the far one unknown.
		decode(t, ts.ok("show", "shared", "--sample", "0", "-o", "json"), &c)
		if got := stateOf(c); !reflect.DeepEqual(got, map[string]string{liveName: "unknown", goneName: "unknown"}) {
			t.Errorf("show -o json without --check-db: %v", got)
		}
		out := ts.ok("show", "shared", "--sample", "0", "--check-db", pgURL)
		if !strings.Contains(out, goneName+" (OID ") || !strings.Contains(out, ") (stale: database gone)\n") ||
			strings.Count(out, "(stale: database gone)") != 1 || strings.Contains(out, "not checked") {
			t.Errorf("show --check-db:\n%s", out)
		}
		var list []counterJSON
		decode(t, ts.ok("list", "-o", "json", "--check-db", pgURL), &list)
		want := map[string]map[string]string{
			"everyones": {},
			"faraway":   {goneName: "stale", "elsewhere": "unknown"},
			"moved":     {goneName: "stale", oldName: "live"}, // renamed: not stale (renamed_to says)
			"orphan":    {goneName: "stale"},
			"shared":    {liveName: "live", goneName: "stale"},
		}
		got := map[string]map[string]string{}
		for _, c := range list {
			got[c.Name] = stateOf(c)
		}
		if !reflect.DeepEqual(got, want) {
			t.Errorf("list -o json --check-db: %v\nwant %v", got, want)
		}
		if m := list[2].Members; list[2].Name != "moved" || m[1].RenamedTo == nil || *m[1].RenamedTo != oldName+"_new" {
			t.Errorf("list -o json --check-db: a renamed database's member %+v", list[2])
		}
		rows := lines(ts.ok("list", "--check-db", pgURL))
		if len(rows) != 6 || !strings.Contains(rows[5], goneName+" (stale)") || strings.Contains(rows[5], liveName+" (stale)") ||
			!strings.Contains(rows[3], oldName+" (renamed)") {
			t.Errorf("list --check-db:\n%s", strings.Join(rows, "\n"))
		}

		// A dry run changes nothing.
		before := ts.ok("list", "-o", "json")
		r := ts.fails(exitFailed, "members", "prune", "--check-db", pgURL, "--dry-run")
		for _, w := range []string{"faraway  " + goneName, "detach\n", "orphan   " + goneName, "skip: every database of the counter is gone",
			"dry run: would detach 3 stale members, drop 0 counters; 1 skipped; 1 member of clusters not checked left as it is; " +
				"1 member of databases renamed since left as it is"} {
			if !strings.Contains(r.stdout, w) {
				t.Errorf("prune --dry-run does not say %q:\n%s", w, r.stdout)
			}
		}
		if !strings.Contains(r.stderr, "not pruned: orphan, whose databases are all gone; pass --drop-last") {
			t.Errorf("prune --dry-run: stderr %q", r.stderr)
		}
		if after := ts.ok("list", "-o", "json"); after != before {
			t.Errorf("prune --dry-run changed the store:\n%s\nthen\n%s", before, after)
		}

		// Without --drop-last: the others are pruned, orphan is kept, exit 1.
		r = ts.fails(exitFailed, "members", "prune", "--check-db", pgURL)
		if !strings.Contains(r.stdout, "detached 3 stale members, dropped 0 counters; 1 skipped") {
			t.Errorf("prune:\n%s", r.stdout)
		}
		for name, want := range map[string][]string{"shared": {live}, "faraway": {far}, "orphan": {gone}, "moved": {moved}} {
			if got := sequence.MemberDBs(mustDescribe(t, st, name).Spec.Members); !reflect.DeepEqual(got, want) {
				t.Errorf("after prune, %s has members %v, want %v", name, got, want)
			}
		}
		if len(mustDescribe(t, st, "everyones").Spec.Members) != 0 {
			t.Error("prune gave a counter without members some")
		}

		// One counter by name, with --drop-last.
		var items []pruneItem
		decode(t, ts.ok("members", "prune", "--check-db", pgURL, "orphan", "--drop-last", "-o", "json"), &items)
		if len(items) != 1 || items[0].Name != "orphan" || items[0].DB != gone || items[0].Action != "dropped" || items[0].Database != goneName {
			t.Errorf("prune orphan --drop-last -o json: %+v", items)
		}
		ts.fails(exitNotFound, "show", "orphan", "--sample", "0")
		if out := ts.ok("members", "prune", "--check-db", pgURL); !strings.HasPrefix(out, "no stale members in 4 counters (clusters checked: ") ||
			!strings.HasSuffix(out, "; 1 member of clusters not checked left as it is; 1 member of databases renamed since left as it is ('seqctl show --check-db' names them)\n") {
			t.Errorf("prune with nothing stale printed %q", out)
		}
		ts.fails(exitNotFound, "members", "prune", "--check-db", pgURL, "nope")
	})
}

func mustDescribe(t *testing.T, st sequence.Store, name string) sequence.Info {
	t.Helper()
	info, err := st.Describe(t.Context(), name)
	if err != nil {
		t.Fatal(err)
	}
	return info
}
