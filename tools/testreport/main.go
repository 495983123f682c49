// Command testreport turns `go test -json` into the progress a person
// watching scripts/test wants: a line for each package as it finishes (with
// the output of anything that failed), a line every -every saying what is
// still running, and one closing summary line (after the suites' own
// summary lines, read from -extra). It exits 1 when a test or package
// failed.
//
//	go test -json ./... | go run ./tools/testreport -label tests
package main

import (
	"bufio"
	"flag"
	"fmt"
	"os"
	"time"
)

func main() {
	every := flag.Duration("every", 15*time.Second, "how often to say what is still running")
	label := flag.String("label", "tests", "word before the summary line")
	extra := flag.String("extra", "", "a file of suite summary lines to print before the closing line, if it exists")
	flag.Parse()

	lines := make(chan string)
	go func() {
		sc := bufio.NewScanner(os.Stdin)
		sc.Buffer(make([]byte, 1<<20), 64<<20)
		for sc.Scan() {
			lines <- sc.Text()
		}
		if err := sc.Err(); err != nil {
			fmt.Fprintln(os.Stderr, "testreport:", err)
		}
		close(lines)
	}()

	r := newReport(os.Stdout, time.Now())
	tick := time.NewTicker(*every)
	defer tick.Stop()
	for {
		select {
		case line, ok := <-lines:
			if !ok {
				if b, err := os.ReadFile(*extra); err == nil && *extra != "" {
					os.Stdout.Write(b)
				}
				r.summary(*label)
				if !r.ok() {
					os.Exit(1)
				}
				return
			}
			r.line(line, time.Now())
		case now := <-tick.C:
			r.progress(now)
		}
	}
}
