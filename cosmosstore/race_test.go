package cosmosstore_test

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"strconv"
	"sync"
	"testing"
	"time"

	"github.com/seqshim/seqshim/cosmosstore"
	"github.com/seqshim/seqshim/internal/testkit/testenv"
	"github.com/seqshim/seqshim/sequence"
)

// Environment of a racer process (TestRacer, run by TestRace).
const (
	envRacerURL = "SEQSHIM_COSMOS_RACER_URL" // the store URL
	envRacerN   = "SEQSHIM_COSMOS_RACER_N"   // reservations to make
)

// racerReport is what a racer prints last.
type racerReport struct {
	Stats   cosmosstore.Stats
	GaveUp  int // reservations that ran out of attempts (ErrConflict) and were made again
	Elapsed time.Duration
}

// TestRace is the race: 8 processes reserve blocks of one counter
// in one Cosmos DB document at once, each a Store of its own (its own
// remembered ETag), from a common start. Every value of every block is
// checked: none twice, and, as nothing failed, the blocks together are
// exactly 1..N, the position the store ends at. The 412 retries the
// processes made are reported.
func TestRace(t *testing.T) {
	const procs = 8
	perProc := 150
	if testing.Short() {
		perProc = 40
	}
	c := testenv.NewCosmosContainer(t)
	st, err := c.Store()
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()
	const name = "public.race_seq"
	spec := sequence.DefaultSpec()
	if err := st.Create(ctx, name, spec, spec.Initial()); err != nil {
		t.Fatal(err)
	}

	type racer struct {
		cmd *exec.Cmd
		in  io.WriteCloser
		out *bufio.Scanner
	}
	racers := make([]racer, procs)
	for i := range racers {
		cmd := exec.Command(os.Args[0], "-test.run=^TestRacer$", "-test.count=1")
		cmd.Env = append(os.Environ(), envRacerURL+"="+c.URL(""), envRacerN+"="+strconv.Itoa(perProc))
		cmd.Stderr = os.Stderr
		in, err := cmd.StdinPipe()
		if err != nil {
			t.Fatal(err)
		}
		out, err := cmd.StdoutPipe()
		if err != nil {
			t.Fatal(err)
		}
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { _ = cmd.Process.Kill(); _ = cmd.Wait() })
		racers[i] = racer{cmd: cmd, in: in, out: bufio.NewScanner(out)}
		racers[i].out.Buffer(make([]byte, 1<<16), 1<<20)
	}
	// Every racer says "ready" once its store has read the counter; then
	// all start together.
	for i, r := range racers {
		if !r.out.Scan() || r.out.Text() != "ready" {
			t.Fatalf("racer %d: want ready, got %q (%v)", i, r.out.Text(), r.out.Err())
		}
	}
	for _, r := range racers {
		if _, err := io.WriteString(r.in, "go\n"); err != nil {
			t.Fatal(err)
		}
	}

	var (
		mu      sync.Mutex
		seen    = make(map[int64]int)
		blocks  int
		total   cosmosstore.Stats
		gaveUp  int
		elapsed time.Duration
		wg      sync.WaitGroup
		errs    = make(chan error, procs)
	)
	for i, r := range racers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for r.out.Scan() {
				line := r.out.Bytes()
				if blk, ok := bytes.CutPrefix(line, []byte("block ")); ok {
					var b sequence.Block
					if err := json.Unmarshal(blk, &b); err != nil || b.Count < 1 {
						errs <- fmt.Errorf("racer %d: %q: %v", i, line, err)
						return
					}
					mu.Lock()
					blocks++
					for k := int64(0); k < b.Count; k++ {
						seen[b.Value(k)]++
					}
					mu.Unlock()
					continue
				}
				report, ok := bytes.CutPrefix(line, []byte("report "))
				if !ok {
					continue // go test's own lines
				}
				var rep racerReport
				if err := json.Unmarshal(report, &rep); err != nil {
					errs <- fmt.Errorf("racer %d: %q: %v", i, line, err)
					return
				}
				mu.Lock()
				total.Requests += rep.Stats.Requests
				total.Conflicts += rep.Stats.Conflicts
				total.Throttles += rep.Stats.Throttles
				total.RequestUnits += rep.Stats.RequestUnits
				gaveUp += rep.GaveUp
				elapsed = max(elapsed, rep.Elapsed)
				mu.Unlock()
			}
			if err := r.cmd.Wait(); err != nil {
				errs <- fmt.Errorf("racer %d: %v", i, err)
			}
		}()
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Error(err)
	}
	if t.Failed() {
		return
	}
	if blocks != procs*perProc {
		t.Fatalf("%d blocks reported, want %d", blocks, procs*perProc)
	}
	dups := 0
	for v, n := range seen {
		if n > 1 {
			dups++
			if dups <= 10 {
				t.Errorf("value %d handed out %d times", v, n)
			}
		}
	}
	info, err := st.Describe(ctx, name)
	if err != nil {
		t.Fatal(err)
	}
	if n := int64(len(seen)); info.Position.Last != n {
		t.Errorf("the store's position is %d after %d distinct values: want 1..%d handed out, no gap", info.Position.Last, n, n)
	}
	for v := int64(1); v <= int64(len(seen)); v++ {
		if seen[v] == 0 {
			t.Errorf("value %d was never handed out, yet the blocks reach %d", v, len(seen))
			break
		}
	}
	if total.Conflicts == 0 {
		t.Errorf("%d processes reserved %d blocks of one document from a common start without one 412: they did not race", procs, blocks)
	}
	testenv.Summary(t, fmt.Sprintf("cosmosstore race: %d processes, %d blocks, %d values, %d duplicates, %d retries after 412 (%.2f a block), %d reservations out of attempts, %d requests, %.0f RU (emulator's charges), %v",
		procs, blocks, len(seen), dups, total.Conflicts, float64(total.Conflicts)/float64(blocks), gaveUp, total.Requests, total.RequestUnits, elapsed.Round(time.Millisecond)))
}

// TestRacer is one process of TestRace; it does nothing unless started by
// it.
func TestRacer(t *testing.T) {
	url := os.Getenv(envRacerURL)
	if url == "" {
		t.Skip("a process of TestRace")
	}
	n, err := strconv.Atoi(os.Getenv(envRacerN))
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 4*time.Minute)
	defer cancel()
	st, err := cosmosstore.Open(ctx, url)
	if err != nil {
		t.Fatal(err)
	}
	const name = "public.race_seq"
	if _, err := st.Describe(ctx, name); err != nil { // remembers the document and its ETag
		t.Fatal(err)
	}
	fmt.Println("ready")
	if line, err := bufio.NewReader(os.Stdin).ReadString('\n'); err != nil || line != "go\n" {
		t.Fatalf("want go, got %q (%v)", line, err)
	}
	start := time.Now()
	rep := racerReport{}
	emit := func(what string, v any) {
		b, err := json.Marshal(v)
		if err != nil {
			t.Fatal(err)
		}
		fmt.Printf("%s %s\n", what, b)
	}
	for i := 0; i < n; i++ {
		b, err := st.Reserve(ctx, name, int64(1+i%7))
		if errors.Is(err, sequence.ErrConflict) {
			rep.GaveUp++
			i--
			continue
		}
		if err != nil {
			t.Fatal(err)
		}
		emit("block", b)
	}
	rep.Stats, rep.Elapsed = st.Stats(), time.Since(start)
	emit("report", rep)
}
