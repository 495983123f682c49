package main

import (
	"math"
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
		}
		for _, tt := range tests {
			var got counterJSON
			decode(t, ts.ok(append([]string{"create", "-o", "json"}, tt.args...)...), &got)
			tt.want.Version = got.Version
			tt.want.Remaining = got.Remaining
			tt.want.NextValue = got.NextValue
			if got.NextValue == nil || *got.NextValue != tt.want.StartValue {
				t.Errorf("create %v: next value %v, want the start value", tt.args, got.NextValue)
			}
			if got != tt.want {
				t.Errorf("create %v:\ngot  %+v\nwant %+v", tt.args, got, tt.want)
			}
			if d := ts.describe(tt.want.Name); d.MaxValue != tt.want.MaxValue || d.IncrementBy != tt.want.IncrementBy {
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
		ts.fails(exitNotFound, "show", "bad", "--sample", "0")
	})
}
