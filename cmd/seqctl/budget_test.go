package main

import (
	"strings"
	"testing"
	"time"

	"github.com/seqshim/seqshim/sequence"
)

// TestDailyLimit sets, shows, enforces, changes and removes a daily limit,
// step by step; each step gives the exit code and what its output contains.
func TestDailyLimit(t *testing.T) {
	// seqctl opens the store by URL, with the real clock: a run across
	// midnight UTC would see the count restart.
	if day := sequence.DayOf(time.Now()); time.Until((day + 1).Start()) < time.Minute {
		t.Skip("within a minute of midnight UTC, when the daily count restarts")
	}
	forEachStore(t, func(t *testing.T, ts *tester) {
		today := sequence.DayOf(time.Now()).String()
		steps := []struct {
			args   []string
			code   int
			stdout string // contained in stdout ("" for anything)
			stderr string // contained in stderr
		}{
			{[]string{"create", "s", "--daily-limit", "100"}, 0, "; daily limit 100\n", ""},
			{[]string{"show", "s", "--sample", "0"}, 0, "daily limit:       100 values per UTC day; 0 used on " + today + ", resets at ", ""},
			{[]string{"next", "s", "-n", "60"}, 0, "60\n", ""},
			// The block that crosses the limit is cut short; then refused.
			{[]string{"next", "s", "-n", "60"}, exitLimit, "61\n", `sequence "s" reached its daily limit of 100 values; the limit resets at `},
			{[]string{"next", "s"}, exitLimit, "", "reached its daily limit of 100 values"},
			{[]string{"show", "s", "--sample", "0"}, 0, "100 values per UTC day; 100 used on " + today + ", reached; new values at ", ""},
			{[]string{"list"}, 0, "100 (100 today)", ""},
			{[]string{"alter", "s", "--daily-limit", "150"}, 0, "; daily limit 150\n", ""},
			{[]string{"next", "s", "-n", "50"}, 0, "150\n", ""},
			{[]string{"next", "s"}, exitLimit, "", "daily limit of 150 values"},
			{[]string{"alter", "s", "--no-daily-limit"}, 0, "; no daily limit\n", ""},
			{[]string{"next", "s", "-n", "1000"}, 0, "1150\n", ""},
			{[]string{"show", "s", "--sample", "0"}, 0, "daily limit:       none\n", ""},
			{[]string{"alter", "s", "--daily-limit", "-1"}, exitUsage, "", "--daily-limit -1"},
			{[]string{"alter", "s", "--daily-limit", "5", "--no-daily-limit"}, exitUsage, "", "conflicting options"},
			{[]string{"create", "t", "--daily-limit", "x"}, exitUsage, "", "invalid value"},
		}
		for _, st := range steps {
			r := ts.run(st.args...)
			if r.code != st.code || !strings.Contains(r.stdout, st.stdout) || !strings.Contains(r.stderr, st.stderr) {
				t.Fatalf("seqctl %s: exit %d, want %d\nstdout (want %q):\n%s\nstderr (want %q):\n%s",
					strings.Join(st.args, " "), r.code, st.code, st.stdout, r.stdout, st.stderr, r.stderr)
			}
		}
		// As JSON: the limit (null: none) and the day's count.
		c := ts.describe("s")
		if c.DailyLimit != nil || c.DailyUsage == nil || c.DailyUsage.Day != today || c.DailyUsage.Used != 150 {
			t.Errorf("show -o json after --no-daily-limit: limit %v usage %+v", c.DailyLimit, c.DailyUsage)
		}
		ts.ok("alter", "s", "--daily-limit", "200")
		if c := ts.describe("s"); c.DailyLimit == nil || *c.DailyLimit != 200 {
			t.Errorf("show -o json: daily_limit %v, want 200", c.DailyLimit)
		}
		var list []counterJSON
		decode(t, ts.ok("list", "-o", "json"), &list)
		if len(list) != 1 || list[0].DailyLimit == nil || *list[0].DailyLimit != 200 || list[0].DailyUsage.Used != 150 {
			t.Errorf("list -o json: %+v", list)
		}
	})
}
