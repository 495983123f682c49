package main

import (
	"encoding/json"
	"strings"
	"testing"
)

func TestWatch(t *testing.T) {
	forEachStore(t, func(t *testing.T, ts *tester) {
		ts.ok("create", "busy", "--maxvalue", "100000")
		ts.ok("create", "idle")
		st := ts.open()
		clock := newFakeClock()
		// 500 values of busy per 5s interval: 100/s.
		clock.hook = func() { reserve(t, st, "busy", 500) }
		ts.now, ts.sleep = clock.now, clock.sleep

		rows := lines(ts.ok("watch", "--count", "3"))
		if len(rows) != 6 {
			t.Fatalf("watch --count 3 of 2 counters: %d lines, want 6:\n%s", len(rows), strings.Join(rows, "\n"))
		}
		wants := []string{
			"time=2026-01-02T03:04:05Z name=busy next=1 reserved=0 remaining=100000 rate=- per_day=- until_limit=- last_reservation=never",
			"time=2026-01-02T03:04:05Z name=idle next=1 reserved=0 ",
			"time=2026-01-02T03:04:10Z name=busy next=501 reserved=500 remaining=99500 rate=100/s per_day=8640000 until_limit=16.6m ",
			"time=2026-01-02T03:04:10Z name=idle next=1 reserved=0 remaining=9223372036854775807 rate=0/s per_day=0 until_limit=\"never at this rate\" last_reservation=never",
			"time=2026-01-02T03:04:15Z name=busy next=1001 reserved=1000 remaining=99000 rate=100/s ",
		}
		for i, want := range wants {
			if !strings.HasPrefix(rows[i], want) {
				t.Errorf("line %d:\n got %s\nwant %s...", i, rows[i], want)
			}
		}

		// Selected counters, JSON Lines; a window of one interval.
		rows = lines(ts.ok("watch", "busy", "--count", "2", "--interval", "10s", "--window", "10s", "-o", "json"))
		if len(rows) != 2 {
			t.Fatalf("watch -o json --count 2: %d lines:\n%s", len(rows), strings.Join(rows, "\n"))
		}
		var refresh struct {
			Time     string     `json:"time"`
			Counters []watchRow `json:"counters"`
		}
		if err := json.Unmarshal([]byte(rows[1]), &refresh); err != nil {
			t.Fatal(err)
		}
		if len(refresh.Counters) != 1 {
			t.Fatalf("watch busy -o json: %s", rows[1])
		}
		c := refresh.Counters[0]
		if c.Name != "busy" || c.RatePerSecond == nil || *c.RatePerSecond != 50 || *c.BurnPerDay != 50*86400 ||
			c.SecondsToLimit == nil || *c.SecondsToLimit != float64(98500)/50 || c.LastReserved == nil {
			t.Errorf("watch -o json second refresh: %s", rows[1])
		}

		// On a terminal the view is redrawn.
		ts.term = true
		out := ts.ok("watch", "--count", "2")
		if strings.Count(out, "\x1b[H\x1b[2J") != 2 || !strings.Contains(out, "NAME  ") || !strings.Contains(out, "100/s") {
			t.Errorf("watch on a terminal:\n%q", out)
		}
		ts.term = false

		ts.fails(exitNotFound, "watch", "nope", "--count", "1")
		ts.fails(exitUsage, "watch", "--interval", "0s")
	})
}
