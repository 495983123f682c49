package main

import (
	"bytes"
	"regexp"
	"strings"
	"testing"

	"github.com/seqshim/seqshim/internal/testkit/testenv"
)

func TestPgxExample(t *testing.T) {
	dsn := testenv.PG(t)
	var out bytes.Buffer
	if err := run(t.Context(), &out, dsn, 200); err != nil {
		t.Fatalf("%v\n%s", err, out.String())
	}
	got := out.String()
	for _, want := range []string{
		"pgx      CREATE TEMPORARY SEQUENCE orders_seq START 1000\n         -> the database",
		"seqshim  CREATE SEQUENCE orders_seq START 1000\n         -> the store (memory:)",
		"SELECT nextval('orders_seq'), 200 calls each way after 100 to warm up",
		// Both sides count the same way: START 1000, warm-up calls first.
		"  pgx      values 1100 to 1299  per call: p50 ",
		"  seqshim  values 1100 to 1299  per call: p50 ",
		"-> ids 1300, 1301, 1302\n",
		"-> 3 rows, ids 1300 to 1302\n",
		"store: sequence orders_seq, 303 values served in this process, ",
	} {
		if !strings.Contains(got, want) {
			t.Errorf("output lacks %q:\n%s", want, got)
		}
	}
	if !regexp.MustCompile(`seqshim's p50 is [0-9.]+x shorter than pgx's`).MatchString(got) {
		t.Errorf("output lacks the ratio line:\n%s", got)
	}
}

func TestWithStore(t *testing.T) {
	for _, tc := range []struct{ dsn, want string }{
		{"postgres://u@h/db", "postgres://u@h/db?seqshim.store=memory%3A"},
		{"postgres://u@h/db?sslmode=disable", "postgres://u@h/db?seqshim.store=memory%3A&sslmode=disable"},
		{"host=h dbname=db", "host=h dbname=db seqshim.store=memory:"},
	} {
		if got := withStore(tc.dsn, "memory:"); got != tc.want {
			t.Errorf("withStore(%q) = %q, want %q", tc.dsn, got, tc.want)
		}
	}
}
