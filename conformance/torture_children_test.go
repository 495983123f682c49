package conformance_test

import (
	"context"
	"fmt"
	"io"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/seqshim/seqshim/internal/testkit/torture"
	"github.com/seqshim/seqshim/sequence"
)

// childPool runs the children of a torture test: processes of the test
// binary running one child test (run), each with env and the path of a
// record file of its own (in the environment variable recordVar, under
// dir). A child stops drawing, flushes its record and closes its
// databases when its stdin closes.
type childPool struct {
	t               *testing.T
	run, recordVar  string
	env             []string
	dir             string
	children        []*tortureChild
	incarnation     int
	kills, graceful int // replace's counts
}

// checkLogs fails the test for what any incarnation of a child wrote to its
// log that its exit status cannot report (a killed child has none): the
// race detector's reports, panics.
func (p *childPool) checkLogs() {
	logs, err := filepath.Glob(filepath.Join(p.dir, "*.log"))
	if err != nil {
		p.t.Fatal(err)
	}
	for _, l := range logs {
		b, err := os.ReadFile(l)
		if err != nil {
			p.t.Fatal(err)
		}
		if s := string(b); strings.Contains(s, "DATA RACE") || strings.Contains(s, "panic:") {
			p.t.Errorf("child %s:\n%s", filepath.Base(l), tortureTail(s, 5000))
		}
	}
}

// tortureChild is one process of a childPool.
type tortureChild struct {
	cmd   *exec.Cmd
	stdin io.WriteCloser
	log   string
}

// startChildren starts procs children; the test's cleanup kills any left
// running (on a t.Fatal).
func startChildren(t *testing.T, procs int, run, recordVar string, env []string) *childPool {
	p := &childPool{t: t, run: run, recordVar: recordVar, env: slices.Clip(env), dir: t.TempDir()}
	p.children = make([]*tortureChild, procs)
	for i := range p.children {
		p.children[i] = p.start(i)
	}
	t.Cleanup(func() {
		for _, c := range p.children {
			if c != nil && c.cmd.ProcessState == nil {
				c.cmd.Process.Kill()
				c.cmd.Wait()
			}
		}
	})
	return p
}

func (p *childPool) start(slot int) *tortureChild {
	p.incarnation++
	name := fmt.Sprintf("p%d-%03d", slot, p.incarnation)
	logPath := filepath.Join(p.dir, name+".log")
	logf, err := os.Create(logPath)
	if err != nil {
		p.t.Fatal(err)
	}
	defer logf.Close()
	cmd := exec.Command(os.Args[0], "-test.run=^"+p.run+"$", "-test.count=1")
	cmd.Env = append(p.env, p.recordVar+"="+filepath.Join(p.dir, name+".rec"))
	cmd.Stdout, cmd.Stderr = logf, logf
	stdin, err := cmd.StdinPipe()
	if err != nil {
		p.t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		p.t.Fatal(err)
	}
	return &tortureChild{cmd: cmd, stdin: stdin, log: logPath}
}

// stop closes the child's stdin and waits for it to stop.
func (p *childPool) stop(c *tortureChild) {
	c.stdin.Close()
	done := make(chan error, 1)
	go func() { done <- c.cmd.Wait() }()
	select {
	case err := <-done:
		if err != nil {
			log, _ := os.ReadFile(c.log)
			p.t.Errorf("child %s stopped with %v:\n%s", filepath.Base(c.log), err, tortureTail(string(log), 3000))
		}
	case <-time.After(60 * time.Second):
		c.cmd.Process.Kill()
		<-done
		p.t.Errorf("child %s did not stop within 60s of being told to", filepath.Base(c.log))
	}
}

// replace ends one child, picked by rng — killed (SIGKILL: no flush, no
// release) 85% of the time, stopped cleanly otherwise — and starts
// another in its place.
func (p *childPool) replace(rng *rand.Rand) {
	slot := rng.IntN(len(p.children))
	if rng.Float64() < 0.85 {
		p.children[slot].cmd.Process.Kill()
		p.children[slot].cmd.Wait()
		p.kills++
	} else {
		p.stop(p.children[slot])
		p.graceful++
	}
	p.children[slot] = p.start(slot)
}

// stopAll stops every child, all at once: they stop in parallel.
func (p *childPool) stopAll() {
	for _, c := range p.children {
		c.stdin.Close()
	}
	for _, c := range p.children {
		p.stop(c)
	}
}

// records lists the record files the children wrote.
func (p *childPool) records() ([]string, error) {
	return filepath.Glob(filepath.Join(p.dir, "*.rec"))
}

// check reads the children's records, each named after its file, and
// checks them against what the store issued of seq: values from start to
// the store's position.
func (p *childPool) check(ctx context.Context, t *testing.T, store sequence.Admin, seq string, start int64) ([]torture.Record, torture.Report) {
	t.Helper()
	info, err := store.Describe(ctx, seq)
	if err != nil {
		t.Fatal(err)
	}
	last := info.Position.Last
	if !info.Position.Called {
		last-- // Last itself is the next value
	}
	files, err := p.records()
	if err != nil {
		t.Fatal(err)
	}
	var recs []torture.Record
	for _, f := range files {
		rec, err := torture.ReadRecord(f)
		if err != nil {
			t.Fatal(err)
		}
		rec.Name = strings.TrimSuffix(filepath.Base(f), ".rec")
		recs = append(recs, rec)
	}
	return recs, torture.Check(recs, start, last)
}

// childSettings reads a child's settings from its environment: the path
// of its record file (without one the test is not a child: it skips), its
// goroutines and their pace, and a context that ends with its lifetime or
// when its stdin closes (the controller says stop, or died).
func childSettings(t *testing.T, parent, recordVar, goroutinesVar, paceVar, lifetimeVar string) (path string, goroutines int, pace time.Duration, ctx context.Context) {
	path = os.Getenv(recordVar)
	if path == "" {
		t.Skip("helper process of " + parent)
	}
	goroutines, err := strconv.Atoi(os.Getenv(goroutinesVar))
	if err != nil {
		t.Fatal(err)
	}
	if pace, err = time.ParseDuration(os.Getenv(paceVar)); err != nil {
		t.Fatal(err)
	}
	lifetime, err := time.ParseDuration(os.Getenv(lifetimeVar))
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), lifetime)
	t.Cleanup(cancel)
	go func() {
		io.Copy(io.Discard, os.Stdin)
		cancel()
	}()
	return path, goroutines, pace, ctx
}
