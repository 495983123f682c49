package main

import (
	"strings"
	"testing"
	"time"
)

// TestCheck runs check against each threshold, on counters whose burn the
// test controls: while check samples, busy burns 10 values a second (30
// over the 3s sample) and ring, a CYCLE counter, as much; idle was reserved
// once, never never. Each case gives the exit code and what the output
// contains.
func TestCheck(t *testing.T) {
	forEachStore(t, func(t *testing.T, ts *tester) {
		ts.ok("create", "busy", "--maxvalue", "100000")
		ts.ok("next", "busy", "-n", "40")
		ts.ok("create", "idle")
		ts.ok("next", "idle")
		ts.ok("create", "never")
		ts.ok("create", "capped", "--maxvalue", "5")
		ts.ok("next", "capped", "-n", "5")
		ts.ok("create", "ring", "--maxvalue", "100", "--cycle")
		st := ts.open()
		// The clock starts at the real time (the stores stamp reservations
		// with it) and moves only when check sleeps.
		clock := &fakeClock{t: time.Now()}
		clock.hook = func() {
			reserve(t, st, "busy", 30)
			reserve(t, st, "ring", 30)
		}
		ts.now, ts.sleep = clock.now, clock.sleep

		type checkCase struct {
			name   string
			args   []string
			code   int
			rows   map[string][]string // per counter: each contained in its row (or, for JSON, "" : in stdout)
			stderr string              // contained in stderr
		}
		tests := []checkCase{
			{"no thresholds", []string{"check", "--sample", "3s"}, exitOK, map[string][]string{
				"NAME": {"BURN/DAY  RUNWAY", "LAST RESERVATION  STATUS"}, "busy": {"864k", "  2.8h  ", "ok"},
				"capped": {"MAXVALUE reached", "ok"}, "never": {"never at this rate", "  never  ", "ok"}}, ""},
			{"runway holds", []string{"check", "busy", "--sample", "3s", "--min-runway", "1h"}, exitOK,
				map[string][]string{"busy": {"864k", "2.8h", "ok"}}, ""},
			{"runway too short", []string{"check", "busy", "--sample", "3s", "--min-runway", "3h"}, exitCheck,
				map[string][]string{"busy": {"FAIL: runway 2.8h < 3.0h"}}, "1 of 1 counters fail their thresholds: busy (runway 2.8h < 3.0h)"},
			{"runway in days", []string{"check", "busy", "idle", "--sample", "3s", "--min-runway", "1d"}, exitCheck,
				map[string][]string{"busy": {"FAIL: runway 2.8h < 24.0h"}, "idle": {"never at this rate", "ok"}}, "1 of 2 counters"},
			{"a counter at its limit fails the runway, burn or not", []string{"check", "capped", "--sample", "3s", "--min-runway", "1s"}, exitCheck,
				map[string][]string{"capped": {"FAIL: MAXVALUE reached"}}, ""},
			{"CYCLE counters wrap and are not checked", []string{"check", "ring", "--sample", "3s", "--min-runway", "1h"}, exitOK,
				map[string][]string{"ring": {"wraps around (CYCLE) in ", "ok"}}, ""},
			{"burn holds", []string{"check", "busy", "--sample", "3s", "--max-burn-per-day", "1000000"}, exitOK,
				map[string][]string{"busy": {"ok"}}, ""},
			{"burn too high", []string{"check", "--sample", "3s", "--max-burn-per-day", "800000"}, exitCheck,
				map[string][]string{"busy": {"FAIL: burn 864k/day > 800k/day"}, "ring": {"FAIL: burn 864k/day"}, "idle": {"ok"}}, "2 of 5 counters"},
			{"JSON", []string{"check", "busy", "--sample", "3s", "--max-burn-per-day", "800000", "-o", "json"}, exitCheck,
				map[string][]string{"": {`"ok": false`, `"burn_per_day": 864000`, `"max_burn_per_day": 800000`,
					`"failures": [` + "\n" + `        "burn 864k/day \u003e 800k/day"`}}, ""},
			{"a missing counter", []string{"check", "nope", "--sample", "0"}, exitNotFound, nil, `relation "nope" does not exist`},
			{"runway needs a sample", []string{"check", "--sample", "0", "--min-runway", "1d"}, exitUsage, nil, "--sample must be above 0"},
			{"a bad duration", []string{"check", "--min-runway", "30x"}, exitUsage, nil, "want a duration such as"},
			{"a negative burn", []string{"check", "--max-burn-per-day", "-1"}, exitUsage, nil, "--max-burn-per-day -1"},
		}
		run := func(tt checkCase) {
			t.Helper()
			r := ts.run(tt.args...)
			ok := r.code == tt.code && strings.Contains(r.stderr, tt.stderr)
			for name, wants := range tt.rows {
				row := r.stdout
				if name != "" {
					row = ""
					for _, l := range lines(r.stdout) {
						if strings.HasPrefix(l, name+" ") {
							row = l
						}
					}
				}
				for _, want := range wants {
					ok = ok && strings.Contains(row, want)
				}
			}
			if !ok {
				t.Errorf("%s: seqctl %s: exit %d, want %d\nstdout (want %q):\n%s\nstderr (want %q):\n%s",
					tt.name, strings.Join(tt.args, " "), r.code, tt.code, tt.rows, r.stdout, tt.stderr, r.stderr)
			}
		}
		for _, tt := range tests {
			run(tt)
		}

		// Staleness: two hours later by the clock, without traffic.
		clock.hook = nil
		clock.t = clock.t.Add(2 * time.Hour)
		for _, tt := range []checkCase{
			{"stale", []string{"check", "idle", "--sample", "0", "--stale", "1h"}, exitCheck,
				map[string][]string{"idle": {"2.0h ago", "FAIL: last reservation 2.0h ago > 1.0h"}}, ""},
			{"fresh enough", []string{"check", "idle", "--sample", "0", "--stale", "3h"}, exitOK, map[string][]string{"idle": {"ok"}}, ""},
			{"never reserved is stale", []string{"check", "never", "--sample", "0", "--stale", "1w"}, exitCheck,
				map[string][]string{"never": {"FAIL: never reserved"}}, ""},
			{"every threshold at once", []string{"check", "--sample", "1s", "--stale", "1h", "--min-runway", "1s", "--max-burn-per-day", "1"}, exitCheck,
				map[string][]string{"capped": {"FAIL: MAXVALUE reached, last reservation 2.0h ago > 1.0h"}}, "5 of 5 counters"},
		} {
			run(tt)
		}
	})
}

func TestParseSpan(t *testing.T) {
	tests := []struct {
		in   string
		want time.Duration
		ok   bool
	}{
		{"90s", 90 * time.Second, true},
		{"36h", 36 * time.Hour, true},
		{"30d", 30 * 24 * time.Hour, true},
		{"1.5d", 36 * time.Hour, true},
		{"2w", 14 * 24 * time.Hour, true},
		{"0", 0, true},
		{"-1d", 0, false},
		{"-5s", 0, false},
		{"d", 0, false},
		{"3x", 0, false},
		{"1e300d", 0, false},
	}
	for _, tt := range tests {
		got, err := parseSpan(tt.in)
		if (err == nil) != tt.ok || got != tt.want {
			t.Errorf("parseSpan(%q) = %v, %v; want %v, ok %v", tt.in, got, err, tt.want, tt.ok)
		}
	}
}
