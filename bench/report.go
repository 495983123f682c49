package main

import (
	"bufio"
	"fmt"
	"math"
	"os"
	"runtime"
	"strconv"
	"strings"
	"time"
)

// machineInfo describes where the figures were measured.
type machineInfo struct {
	CPU        string // model name from /proc/cpuinfo
	Cores      int    // logical CPUs
	GOMAXPROCS int
	OS         string // distribution, kernel, GOOS/GOARCH
	Go         string
	PostgreSQL string
}

func machine() machineInfo {
	m := machineInfo{
		CPU:        "unknown",
		Cores:      runtime.NumCPU(),
		GOMAXPROCS: runtime.GOMAXPROCS(0),
		Go:         runtime.Version(),
	}
	if f, err := os.Open("/proc/cpuinfo"); err == nil {
		m.CPU = cpuModel(f)
		f.Close()
	}
	var os_ []string
	if b, err := os.ReadFile("/etc/os-release"); err == nil {
		if name := osRelease(string(b)); name != "" {
			os_ = append(os_, name)
		}
	}
	if b, err := os.ReadFile("/proc/sys/kernel/osrelease"); err == nil {
		os_ = append(os_, "kernel "+strings.TrimSpace(string(b)))
	}
	m.OS = strings.Join(append(os_, runtime.GOOS+"/"+runtime.GOARCH), ", ")
	return m
}

// cpuModel returns the first "model name" of a /proc/cpuinfo, with the
// first "cpu MHz" when there is one.
func cpuModel(f *os.File) string {
	model, mhz := "", ""
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		k, v, ok := strings.Cut(sc.Text(), ":")
		if !ok {
			continue
		}
		switch k, v = strings.TrimSpace(k), strings.TrimSpace(v); {
		case k == "model name" && model == "":
			model = v
		case k == "cpu MHz" && mhz == "":
			if x, err := strconv.ParseFloat(v, 64); err == nil {
				mhz = fmt.Sprintf(" at %.0f MHz", x)
			}
		}
	}
	if model == "" {
		return "unknown"
	}
	return model + mhz
}

// osRelease returns PRETTY_NAME of an os-release file.
func osRelease(s string) string {
	for _, line := range strings.Split(s, "\n") {
		if v, ok := strings.CutPrefix(line, "PRETTY_NAME="); ok {
			return strings.Trim(v, `"'`)
		}
	}
	return ""
}

func runtimeProcs() int { return runtime.GOMAXPROCS(0) }

// clockNs is the median of the clock's own cost per timing over every
// sample of the rows that compare took.
func (r report) clockNs() float64 {
	var all []float64
	for _, row := range r.Rows {
		all = append(all, row.ClockNs...)
	}
	if len(all) == 0 {
		return 0
	}
	return median(all)
}

// report is the content of BENCHMARKS.md.
type report struct {
	Command string
	Date    time.Time
	Machine machineInfo
	Rows    []row
	Store   storeResult
}

func (r report) markdown() string {
	var b strings.Builder
	p := func(format string, args ...any) { fmt.Fprintf(&b, format+"\n", args...) }
	p("# seqshim benchmarks")
	p("")
	p("Produced by `%s` (from the repository root) on %s UTC, all figures in one run. Do not edit by hand: run the command again.", r.Command, r.Date.Format("2006-01-02 15:04"))
	p("")
	p("## Machine")
	p("")
	p("- CPU: %s, %d logical cores (GOMAXPROCS %d)", r.Machine.CPU, r.Machine.Cores, r.Machine.GOMAXPROCS)
	p("- OS: %s", r.Machine.OS)
	p("- Go: %s", r.Machine.Go)
	if pg := r.Machine.PostgreSQL; pg != "" {
		// "PostgreSQL 15.18 (Debian …) on x86_64-pc-linux-gnu, compiled by …, 64-bit, fsync off"
		fsync := ""
		if i := strings.LastIndex(pg, ", fsync "); i > 0 {
			pg, fsync = pg[:i], pg[i+2:]
		}
		if i := strings.Index(pg, " on "); i > 0 {
			pg = pg[:i]
		}
		p("- Database: %s, local, %s", pg, fsync)
	}
	p("")
	p("## Ratios")
	p("")
	p("Ratio = subject time / baseline time, taken in every sample (a round, or a block of interleaved pairs; see the samples column): the median, with the interquartile range in brackets; below 1 means seqshim is faster. The times shown are the medians of the samples' times, so they need not divide exactly to the ratio.")
	p("")
	p("| benchmark | subject | baseline | ratio | samples | allocs/op (subject) | note |")
	p("|---|---|---|---|---|---|---|")
	for _, row := range r.Rows {
		rs := row.ratios()
		allocs := "–" // not measured
		if row.SubjectAllocs >= 0 {
			allocs = fmt.Sprintf("%.0f", row.SubjectAllocs)
		}
		p("| %s | %s: %s | %s: %s | **%s** (%s–%s)%s | %s | %s | %s |", row.Name,
			row.Subject, fmtNs(median(row.SubjectNs)), row.Baseline, fmtNs(median(row.BaselineNs)),
			fmtRatio(median(rs)), fmtRatio(quantile(rs, 0.25)), fmtRatio(quantile(rs, 0.75)), faster(median(rs)), row.Samples, allocs, row.Note)
	}
	s := r.Store
	fewer := ""
	if w := math.Round(s.SteadyPerMillion); w > 0 { // as shown in the row
		fewer = fmt.Sprintf(": %s× fewer writes", thousands(int64(1e6/w+0.5)))
	}
	p("| store writes per million values at a steady %s values/s | seqshim: %s | one write per value: 1,000,000 | **%s**%s | one run of %v | – | steady state after a %v warm-up; %s including it |",
		thousands(int64(s.Rate)), thousands(int64(s.SteadyPerMillion+0.5)), fmtRatio(s.SteadyPerMillion/1e6), fewer, s.Duration, s.Warm, thousands(int64(s.TotalPerMillion+0.5)))
	p("")
	p("## How it was measured")
	p("")
	p("- Cache hot path: `seqcache.Cache` over `memstore` with default options, `Handle.Next` against a bare `atomic.Int64.Add` (the floor of any shared counter), each with `testing.Benchmark` (`b.Loop`, or `b.RunParallel` for the parallel row); the two alternate which runs first in each round.")
	p("- Cache hot path, metrics collected: the same, the cache's MeterProvider collecting its metrics every %v meanwhile (a provider that runs the cache's callback, as an SDK reader does at each collection; with the OpenTelemetry SDK itself, `BenchmarkNext` in `integration/otel` measures it).", collectEvery)
	p("- Client nextval through the service: `seqcache.Cache` over the client store `seqdstore` (a `seqd` server in process, on loopback HTTP, with its own cache over `memstore`) against `seqcache.Cache` over `memstore` directly, `Handle.Next` with `testing.Benchmark`, alternating which runs first: the client's hot path is the same whatever its store; the server only sees the background refills.")
	p("- PostgreSQL rows: one `database/sql` handle through the `seqshim` driver (`driver.NewConnector` around pgx's connector, store `memory:`; whatever the store, values come from the in-process cache and the store is only called by background refills) and one natively through pgx's `database/sql` driver, against the same server and sequence. Both handles drive one and the same pgx connection, one operation at a time: with a session each, each side would have its own server process, and where the machine runs those moves a side by a percent or two. Every pair runs one seqshim operation and one native one, alternating which goes first, each timed separately, so that load drifting on a shared machine hits both alike; a sample is a block of %s pairs, and blocks are taken for `-pg-time` per row after a warm-up. A timing holds the clock's own cost too (the end of the read that starts it, the start of the read that ends it), nothing beside a round trip but a share of an operation answered in process: every pair also times two reads back to back just before its first operation, and each block's mean of those is subtracted from both sides' times (%s, the median over every block of these rows). The ratio is the median of the blocks' ratios (quartiles in brackets): one stall of a few milliseconds moves a long run's mean by percents, and the median over many short blocks is what such stalls do not move. The control row runs the same pgx path on both sides: its distance from 1 is the method's own error. The operations run under `context.Background()` except in the row that says otherwise. Allocations are `testing.AllocsPerRun` of the subject's operation alone. The bigserial row creates its table through each handle (`CREATE TABLE … (id bigserial PRIMARY KEY, v text)`): through seqshim the store gets the sequence (the database a fenced twin of it, which nothing draws from), and the INSERT leaving the id out gets it written in; natively the database's own default draws it. The no-default row inserts into ordinary tables while the store has that column default for another table.", thousands(blockPairs), fmtNs(r.clockNs()))
	p("- pgx rows (package pgxseq, the pgx-native front end): a `pgxseq.Conn` (store `memory:`) against the very `*pgx.Conn` it wraps, the same session, in interleaved pairs as above, for nextval and the bigserial INSERT. The pass-through row cannot be told apart from a server round trip's jitter, so it is measured in process: `Exec(\"SELECT 1\")` through each against a fake server in the process that answers as the messages are written (`internal/testkit/fakepg`, no socket, no goroutine), with `testing.Benchmark`, alternating which runs first; what pgxseq adds is the difference, in the note. The concurrent rows run %d sessions (a pool of as many connections for each side: `pgxpool`, `pgxseq.Pool`, and `database/sql` through the seqshim driver) inserting into one bigserial table each, leaving the id to its default, for a share of `-pg-time` per turn, sides in alternating order; the ratio is wall time per row (below 1: more rows per second), and both seqshim tables are checked for duplicate ids afterwards.", concurrentSessions)
	p("- Store writes: `seqcache.Cache` with its production defaults (buffer 10s, block = one second of consumption) over %s, drawing %s values/s in real time for %v (%s values, %s writes, %s reads; %d failed calls; mean block %s values). The per-million figures are extrapolated from that run: the steady figure counts the writes after the first %v (%s values, %s writes). A DynamoDB atomic counter, or any store asked once per value, makes 1,000,000 writes per million values.",
		s.Store, thousands(int64(s.Rate)), s.Duration, thousands(s.Values), thousands(s.Writes), thousands(s.Reads), s.Errors, thousands(s.AvgBlock), s.Warm, thousands(s.SteadyValues), thousands(s.SteadyWrites))
	p("- PostgreSQL and dynalite (a local DynamoDB) run on the same machine, over loopback: against a real network the native round trips cost more, so seqshim's ratio for nextval here is conservative, and the pass-through and INSERT ratios come closer to 1. Absolute times depend on this small machine; compare ratios.")
	return b.String()
}

// faster spells out a ratio below 1 as a speed-up.
func faster(ratio float64) string {
	if ratio <= 0 || ratio >= 0.95 {
		return ""
	}
	return fmt.Sprintf(": %.3g× faster", 1/ratio)
}

func fmtRatio(x float64) string {
	switch {
	case x >= 100:
		return fmt.Sprintf("%.0f×", x)
	case x >= 0.9 && x < 1.1: // near 1 a percent matters: one more digit
		return fmt.Sprintf("%.3f×", x)
	case x >= 0.1:
		return fmt.Sprintf("%.2f×", x)
	case x >= 0.001:
		return fmt.Sprintf("%.4f×", x)
	}
	return fmt.Sprintf("%.2g×", x)
}

// thousands formats n with comma separators.
func thousands(n int64) string {
	s := fmt.Sprint(n)
	neg := strings.HasPrefix(s, "-")
	s = strings.TrimPrefix(s, "-")
	var out []byte
	for i := range len(s) {
		if i > 0 && (len(s)-i)%3 == 0 {
			out = append(out, ',')
		}
		out = append(out, s[i])
	}
	if neg {
		return "-" + string(out)
	}
	return string(out)
}
