package main

import (
	"context"
	"fmt"
	"io"
	"os"
	"strings"
)

// A counter's life, in a memory: store (one process only).
func Example() {
	ctx := context.Background()
	store := []string{"--store", "memory:example"}
	seqctl := func(args ...string) { _ = run(ctx, append(store, args...), os.Stdout, os.Stdout) }

	seqctl("create", "orders_seq", "--start", "1000")
	seqctl("next", "orders_seq", "-n", "3")
	seqctl("setval", "orders_seq", "2000")
	seqctl("create", "ORDERS_SEQ")
	seqctl("next", "nope")
	// Output:
	// created orders_seq: AS bigint INCREMENT BY 1 MINVALUE 1 MAXVALUE 9223372036854775807 START WITH 1000 CACHE 1 NO CYCLE; next value 1000
	// 1000
	// 1001
	// 1002
	// orders_seq: next value 2001
	// seqctl create: relation "orders_seq" already exists ('seqctl show orders_seq' shows it)
	// seqctl next: relation "nope" does not exist ('seqctl list' shows the counters of memory:example)
}

// The exit code tells scripts what happened.
func Example_exitCodes() {
	ctx := context.Background()
	for _, args := range [][]string{
		{"create", "s", "--maxvalue", "2"},
		{"next", "s", "-n", "2"},
		{"next", "s"},
		{"create", "s"},
		{"show", "t"},
		{"show"},
	} {
		err := run(ctx, append([]string{"--store", "memory:codes"}, args...), io.Discard, io.Discard)
		fmt.Printf("seqctl %s: exit %d\n", strings.Join(args, " "), code(err))
	}
	// Output:
	// seqctl create s --maxvalue 2: exit 0
	// seqctl next s -n 2: exit 0
	// seqctl next s: exit 5
	// seqctl create s: exit 4
	// seqctl show t: exit 3
	// seqctl show: exit 2
}
