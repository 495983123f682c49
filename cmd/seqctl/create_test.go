package main

import (
	"math"
	"reflect"
	"strings"
	"testing"
)

func TestCreate(t *testing.T) {
	forEachStore(t, func(t *testing.T, ts *tester) {
		tests := []struct {
			args []string
			want counterJSON
		}{
			{[]string{"plain"}, counterJSON{Name: "plain", DataType: "bigint", StartValue: 1, MinValue: 1,
				MaxValue: math.MaxInt64, IncrementBy: 1, CacheSize: 1, LastValue: 1}},
			{[]string{"App.Invoice_No", "--start", "1000", "--increment", "10", "--cache", "20"},
				counterJSON{Name: "app.invoice_no", DataType: "bigint", StartValue: 1000, MinValue: 1,
					MaxValue: math.MaxInt64, IncrementBy: 10, CacheSize: 20, LastValue: 1000}},
			{[]string{`"Ticket"`, "--as", "integer", "--cycle", "--maxvalue", "9999"},
				counterJSON{Name: `"Ticket"`, DataType: "integer", StartValue: 1, MinValue: 1,
					MaxValue: 9999, IncrementBy: 1, CacheSize: 1, Cycle: true, LastValue: 1}},
			{[]string{"down", "--as", "smallint", "--increment", "-2", "--minvalue", "-100"},
				counterJSON{Name: "down", DataType: "smallint", StartValue: -1, MinValue: -100,
					MaxValue: -1, IncrementBy: -2, CacheSize: 1, LastValue: -1}},
			{[]string{"orders_id_seq", "--default", "Orders.ID", "--default", `shop."Items"."No":always`,
				"--default", "shop.items.x : by-default"},
				counterJSON{Name: "orders_id_seq", DataType: "bigint", StartValue: 1, MinValue: 1,
					MaxValue: math.MaxInt64, IncrementBy: 1, CacheSize: 1, LastValue: 1,
					ColumnDefaults: []columnDefaultJSON{
						{Column: "orders.id", TableSchema: "public", TableName: "orders", ColumnName: "id", Kind: "default"},
						{Column: `shop."Items"."No"`, TableSchema: "shop", TableName: "Items", ColumnName: "No", Kind: "always"},
						{Column: "shop.items.x", TableSchema: "shop", TableName: "items", ColumnName: "x", Kind: "by-default"},
					}}},
		}
		for _, tt := range tests {
			var got counterJSON
			decode(t, ts.ok(append([]string{"create", "-o", "json"}, tt.args...)...), &got)
			tt.want.Version = got.Version
			tt.want.Remaining = got.Remaining
			tt.want.NextValue = got.NextValue
			if tt.want.ColumnDefaults == nil {
				tt.want.ColumnDefaults = []columnDefaultJSON{} // never null
			}
			tt.want.Members = []memberJSON{} // never null
			if got.NextValue == nil || *got.NextValue != tt.want.StartValue {
				t.Errorf("create %v: next value %v, want the start value", tt.args, got.NextValue)
			}
			if !reflect.DeepEqual(got, tt.want) {
				t.Errorf("create %v:\ngot  %+v\nwant %+v", tt.args, got, tt.want)
			}
			if d := ts.describe(tt.want.Name); d.MaxValue != tt.want.MaxValue || d.IncrementBy != tt.want.IncrementBy ||
				!reflect.DeepEqual(d.ColumnDefaults, tt.want.ColumnDefaults) {
				t.Errorf("show %s after create: %+v", tt.want.Name, d)
			}
		}

		out := ts.ok("create", "tabled")
		if !strings.HasPrefix(out, "created tabled: AS bigint INCREMENT BY 1") || !strings.Contains(out, "next value 1") {
			t.Errorf("create printed %q", out)
		}
		r := ts.fails(exitExists, "create", "PLAIN")
		if !strings.Contains(r.stderr, `relation "plain" already exists`) {
			t.Errorf("create of an existing counter: %q", r.stderr)
		}
		if out := ts.ok("create", "plain", "--if-not-exists", "--start", "5"); !strings.Contains(out, "exists already") {
			t.Errorf("create --if-not-exists printed %q", out)
		}
		if d := ts.describe("plain"); d.StartValue != 1 {
			t.Errorf("create --if-not-exists changed the counter: %+v", d)
		}
		r = ts.fails(exitUsage, "create", "bad", "--minvalue", "10", "--maxvalue", "5")
		if !strings.Contains(r.stderr, "MINVALUE (10) must be less than MAXVALUE (5)") {
			t.Errorf("invalid create: %q", r.stderr)
		}
		ts.fails(exitUsage, "create", "bad", "--as", "numeric")

		// Column defaults: printed when there are some; bad ones refused
		// before anything is created; a column has one default only.
		if out := ts.ok("create", "with_default", "--default", "t.c:always"); !strings.HasSuffix(out, "next value 1; column defaults: t.c (always)\n") {
			t.Errorf("create --default printed %q", out)
		}
		for _, tc := range []struct{ arg, want string }{
			{"orders", `invalid value "orders" for flag -default: column "orders": want table.column or schema.table.column`},
			{"a.b.c.d", "want table.column or schema.table.column"},
			{"orders.id:sometimes", `unknown column default kind "sometimes"`},
			{`orders."id`, "want table.column"},
		} {
			r := ts.fails(exitUsage, "create", "bad", "--default", tc.arg)
			if !strings.Contains(r.stderr, tc.want) {
				t.Errorf("create --default %s: %q, want it to contain %q", tc.arg, r.stderr, tc.want)
			}
		}
		r = ts.fails(exitUsage, "create", "bad", "--default", "t.id", "--default", "T.ID:always")
		if !strings.Contains(r.stderr, "column t.id given twice") {
			t.Errorf("create with a column twice: %q", r.stderr)
		}
		r = ts.fails(exitFailed, "create", "bad", "--default", "free.col", "--default", "t.c")
		if !strings.Contains(r.stderr, "column t.c draws its default from counter with_default already (seqctl alter with_default --no-default t.c first)") {
			t.Errorf("create with a column another counter has: %q", r.stderr)
		}
		ts.fails(exitUsage, "create", "bad", "--no-default", "t.c")
		ts.fails(exitNotFound, "show", "bad", "--sample", "0")
	})
}
