// Command bench runs seqshim's benchmark set in one go and writes
// BENCHMARKS.md: a table of ratios measured in the same run, the machine, and
// the command.
//
// It needs the PostgreSQL that scripts/testenv.sh starts (SEQSHIM_TEST_PG),
// and uses dynalite (SEQSHIM_TEST_DYNAMODB) for the store-write figure when
// it is there. From the repository root:
//
//	bash -c '. scripts/testenv.sh; go run ./bench'
//
// Flags: -o FILE (default BENCHMARKS.md), -rounds N (rounds of each cache
// hot-path comparison, default 5), -pg-time D (time spent on each PostgreSQL
// comparison, in blocks of 1,000 interleaved pairs, default 30s), -store-time
// D (length of the steady-rate run for store writes, default 15s), -rate N
// (values per second of that run, default 10,000).
package main

import (
	"context"
	"fmt"
	"os"
	"os/signal"
	"syscall"
)

// command is how BENCHMARKS.md says it was produced.
const command = "bash -c '. scripts/testenv.sh; go run ./bench'"

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	err := run(ctx, os.Args[1:], os.Stdout, os.Stderr)
	stop()
	if err != nil {
		fmt.Fprintln(os.Stderr, "bench:", err)
		os.Exit(1)
	}
}
