package main

import (
	"bytes"
	"context"
	"regexp"
	"strconv"
	"strings"
	"testing"
)

// The run's scrape lists every seqshim instrument, the outage shows in the
// store errors (with the store's error code), in a wait that got no value
// and in the logs, and the served count is the number of orders inserted.
func TestPrometheus(t *testing.T) {
	var out bytes.Buffer
	if err := run(context.Background(), &out, "127.0.0.1:0", false); err != nil {
		t.Fatalf("%v\n%s", err, out.String())
	}
	s := out.String()
	for _, name := range []string{
		"seqshim_values_served_total", "seqshim_values_reserved_total", "seqshim_values_wasted_total",
		"seqshim_values_released_total", "seqshim_cache_remaining", "seqshim_cache_runway_seconds",
		"seqshim_refill_duration_seconds", "seqshim_wait_duration_seconds", "seqshim_store_errors_total",
		"seqshim_block_size",
	} {
		if !regexp.MustCompile(`(?m)^# TYPE ` + name + ` `).MatchString(s) {
			t.Errorf("the scrape lists no %s", name)
		}
	}
	for _, want := range []string{
		`seqshim_store_errors_total{error_type="ServiceUnavailable"`,
		`seqshim_wait_duration_seconds_count{error_type="unavailable"`,
		`level=WARN msg="seqshim: refill failed" seqshim.sequence=orders_seq`,
		`level=ERROR msg="seqshim: cache ran out, a caller got no value" seqshim.sequence=orders_seq`,
		`level=INFO msg="seqshim: refills recovered" seqshim.sequence=orders_seq`,
	} {
		if !strings.Contains(s, want) {
			t.Errorf("output lacks %s", want)
		}
	}
	inserted := regexp.MustCompile(`inserted (\d+) orders in all`).FindStringSubmatch(s)
	served := regexp.MustCompile(`(?m)^seqshim_values_served_total\{[^}]*\} (\d+)$`).FindStringSubmatch(s)
	if inserted == nil || served == nil {
		t.Fatalf("no count of orders inserted or values served in:\n%s", s)
	}
	if n, _ := strconv.Atoi(served[1]); strconv.Itoa(n) != inserted[1] {
		t.Errorf("served %s, inserted %s", served[1], inserted[1])
	}
	if t.Failed() {
		t.Logf("output:\n%s", s)
	}
}
