package main

import (
	"reflect"
	"strings"
	"testing"
	"time"
)

func TestShow(t *testing.T) {
	forEachStore(t, func(t *testing.T, ts *tester) {
		ts.ok("create", "s", "--maxvalue", "100000")
		ts.ok("next", "s", "-n", "40")
		// During the 3s sample, 30 values are reserved from outside: 10/s.
		st := ts.open()
		clock := newFakeClock()
		clock.hook = func() { reserve(t, st, "s", 30) }
		ts.now, ts.sleep = clock.now, clock.sleep

		out := ts.ok("show", "s")
		for _, want := range []string{
			"name:              s\n",
			"maxvalue:          100000\n",
			"last value:        70 (called)\n",
			"next value:        71\n",
			"remaining:         99930 values before MAXVALUE\n",
			"values reserved:   70\n",
			"burn rate:         10/s over 3s (864k per day)\n",
			"until MAXVALUE:    2.8h\n", // 99930 values / 10/s = 9993s
		} {
			if !strings.Contains(out, want) {
				t.Errorf("show does not contain %q:\n%s", want, out)
			}
		}

		var j showJSON
		decode(t, ts.ok("show", "s", "--sample", "5s", "-o", "json"), &j)
		if j.Burn == nil || j.Burn.PerSecond != 6 || j.Burn.PerDay != 6*86400 || j.Burn.Over != 5 ||
			j.Burn.SecondsToLimit == nil || *j.Burn.SecondsToLimit != float64(99900)/6 {
			t.Errorf("show -o json burn: %+v", j.Burn)
		}
		if j.Name != "s" || j.ValuesReserved != 100 || j.LastReserved == nil || time.Since(*j.LastReserved) > time.Hour {
			t.Errorf("show -o json: %+v", j.counterJSON)
		}

		// No traffic: no time to the limit; no sampling: not measured.
		clock.hook = nil
		if out := ts.ok("show", "s"); !strings.Contains(out, "until MAXVALUE:    never at this rate") {
			t.Errorf("show of an idle counter:\n%s", out)
		}
		if out := ts.ok("show", "s", "--sample", "0"); !strings.Contains(out, "burn rate:         not measured") {
			t.Errorf("show --sample 0:\n%s", out)
		}
		decode(t, ts.ok("show", "s", "--sample", "0", "-o", "json"), &j)
		if j.Burn != nil {
			t.Errorf("show --sample 0 -o json measured a burn: %+v", j.Burn)
		}

		ts.ok("create", "ring", "--cycle", "--increment", "-1")
		clock.hook = func() { reserve(t, st, "ring", 3) }
		if out := ts.ok("show", "ring"); !strings.Contains(out, "until MINVALUE:    wraps around (CYCLE) in ") {
			t.Errorf("show of a descending CYCLE counter:\n%s", out)
		}
		ts.fails(exitNotFound, "show", "nope")
		ts.fails(exitUsage, "show", "s", "--sample", "-1s")
	})
}

// TestShowDefaults checks that show lists every column default, one a line,
// and none as such, in the table and as JSON.
func TestShowDefaults(t *testing.T) {
	forEachStore(t, func(t *testing.T, ts *tester) {
		ts.ok("create", "s", "--default", `shop."Orders".id:always`, "--default", "orders.id", "--default", `orders."Weird col":by-default`)
		ts.ok("create", "plain")
		tests := []struct {
			name string
			want string // the lines between cycle: and last value:
		}{
			{"s", "column defaults:   orders.\"Weird col\" (by-default)\n" +
				"                   orders.id (default)\n" +
				"                   shop.\"Orders\".id (always)\n"},
			{"plain", "column defaults:   none\n"},
		}
		for _, tt := range tests {
			out := ts.ok("show", tt.name, "--sample", "0")
			_, after, _ := strings.Cut(out, "cycle:             false\n")
			got, _, _ := strings.Cut(after, "last value:")
			if got != tt.want {
				t.Errorf("show %s: column defaults\n%s\nwant\n%s\nin\n%s", tt.name, got, tt.want, out)
			}
		}
		var j showJSON
		decode(t, ts.ok("show", "s", "--sample", "0", "-o", "json"), &j)
		want := []columnDefaultJSON{
			{Column: `orders."Weird col"`, TableSchema: "public", TableName: "orders", ColumnName: "Weird col", Kind: "by-default"},
			{Column: "orders.id", TableSchema: "public", TableName: "orders", ColumnName: "id", Kind: "default"},
			{Column: `shop."Orders".id`, TableSchema: "shop", TableName: "Orders", ColumnName: "id", Kind: "always"},
		}
		if !reflect.DeepEqual(j.ColumnDefaults, want) {
			t.Errorf("show -o json column defaults:\n%+v\nwant\n%+v", j.ColumnDefaults, want)
		}
		// The JSON form names each column as --no-default takes it.
		for _, d := range want {
			ts.ok("alter", "s", "--no-default", d.Column)
		}
		if out := ts.ok("show", "plain", "--sample", "0", "-o", "json"); !strings.Contains(out, `"column_defaults": []`) {
			t.Errorf("show -o json of a counter without column defaults:\n%s", out)
		}
		if c := ts.describe("s"); len(c.ColumnDefaults) != 0 {
			t.Errorf("after --no-default of every column: %+v", c.ColumnDefaults)
		}
	})
}

func TestFmtQty(t *testing.T) {
	for v, want := range map[float64]string{0: "0", 12.5: "12.5", 9999: "9999", 864000: "864k",
		43193578: "43.2M", 1e9: "1G", 9.2e18: "9.2E"} {
		if got := fmtQty(v); got != want {
			t.Errorf("fmtQty(%v) = %q, want %q", v, got, want)
		}
	}
}

func TestFmtSpan(t *testing.T) {
	tests := []struct {
		sec  float64
		want string
	}{
		{0, "0s"},
		{59, "59s"},
		{90, "1.5m"},
		{9993, "2.8h"},
		{3 * 86400, "3.0d"},
		{3 * 365 * 86400, "3.0 years"},
		{2.5e9 * 365 * 86400, "2.5e+09 years"},
	}
	for _, tt := range tests {
		if got := fmtSpan(tt.sec); got != tt.want {
			t.Errorf("fmtSpan(%v) = %q, want %q", tt.sec, got, tt.want)
		}
	}
}
