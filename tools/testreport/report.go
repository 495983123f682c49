package main

import (
	"encoding/json"
	"fmt"
	"io"
	"slices"
	"strings"
	"time"
)

// event is one line of `go test -json` (see `go doc test2json`), or of the
// build output it interleaves (`go help buildjson`).
type event struct {
	Time       time.Time
	Action     string
	Package    string
	Test       string
	Elapsed    float64
	Output     string
	ImportPath string // build-output and build-fail events
}

// report follows a `go test -json` stream: it prints each package as it
// finishes, with the output of what failed, and what is still running when
// asked (progress); it is not safe for concurrent use.
type report struct {
	w     io.Writer
	start time.Time
	pkgs  map[string]*pkgState

	passed, failed, skipped int // top-level tests, examples and fuzz targets
	failedPkgs              []string
	failedTests             []string // "pkg TestName/sub", deepest first, for the summary
	skippedTests            []string // "pkg TestName", for the summary
}

type pkgState struct {
	started time.Time
	running map[string]time.Time        // top-level tests running, by start time
	output  map[string]*strings.Builder // by test; "" is the package's own
	tests   int
	failed  int    // top-level tests failed
	last    string // the top-level test that finished last
}

func newReport(w io.Writer, now time.Time) *report {
	return &report{w: w, start: now, pkgs: make(map[string]*pkgState)}
}

// line takes one line of the stream. A line that is not a JSON event (a
// message of the go command itself) is printed as it is.
func (r *report) line(text string, now time.Time) {
	var e event
	if !strings.HasPrefix(text, "{") || json.Unmarshal([]byte(text), &e) != nil {
		fmt.Fprintln(r.w, text)
		return
	}
	switch e.Action {
	case "build-output":
		fmt.Fprint(r.w, e.Output)
		return
	case "build-fail":
		return // its output came as build-output; the package's fail follows
	}
	p := r.pkg(e.Package, now)
	switch e.Action {
	case "start":
		p.started = now
	case "run":
		if isTopLevel(e.Test) {
			p.running[e.Test] = now
		}
	case "output":
		b := p.output[e.Test]
		if b == nil {
			b = new(strings.Builder)
			p.output[e.Test] = b
		}
		b.WriteString(e.Output)
	case "pass", "fail", "skip":
		if e.Test == "" {
			r.finish(e, p)
			return
		}
		if !isTopLevel(e.Test) {
			// A subtest's output matters only if it failed: a package's
			// failure prints what is left, and a failing scenario must not
			// be buried under the logs of its passing siblings.
			if e.Action == "fail" {
				r.failedTests = append(r.failedTests, shortPkg(e.Package)+" "+e.Test)
			} else {
				delete(p.output, e.Test)
			}
			return
		}
		delete(p.running, e.Test)
		p.tests++
		p.last = e.Test
		switch e.Action {
		case "pass":
			r.passed++
			delete(p.output, e.Test)
		case "skip":
			r.skipped++
			r.skippedTests = append(r.skippedTests, shortPkg(e.Package)+" "+e.Test)
			delete(p.output, e.Test)
		case "fail":
			r.failed++
			p.failed++
			r.failedTests = append(r.failedTests, shortPkg(e.Package)+" "+e.Test)
		}
	}
}

func (r *report) pkg(name string, now time.Time) *pkgState {
	p := r.pkgs[name]
	if p == nil {
		p = &pkgState{started: now, running: map[string]time.Time{}, output: map[string]*strings.Builder{}}
		r.pkgs[name] = p
	}
	return p
}

// finish prints a package's line and, when it failed, the output of its
// failed tests and its own.
func (r *report) finish(e event, p *pkgState) {
	delete(r.pkgs, e.Package)
	elapsed := time.Duration(e.Elapsed * float64(time.Second)).Round(10 * time.Millisecond)
	switch e.Action {
	case "skip":
		fmt.Fprintf(r.w, "?    %s\t[no test files]\n", e.Package)
		return
	case "pass":
		if p.tests == 1 && strings.HasPrefix(p.last, "Fuzz") {
			// A fuzzing run (go test -fuzz, one target per run): name it.
			fmt.Fprintf(r.w, "ok   %s %s\t%v\n", e.Package, p.last, elapsed)
			return
		}
		fmt.Fprintf(r.w, "ok   %s\t%v\t%d tests\n", e.Package, elapsed, p.tests)
		return
	}
	r.failedPkgs = append(r.failedPkgs, e.Package)
	if p.failed == 0 {
		r.failed++ // no test failed: the build, TestMain or the binary did
	}
	names := make([]string, 0, len(p.output))
	for name := range p.output {
		if name != "" {
			names = append(names, name)
		}
	}
	slices.Sort(names)
	for _, name := range names {
		fmt.Fprintf(r.w, "--- output of %s %s\n%s", e.Package, name, p.output[name])
	}
	if b := p.output[""]; b != nil {
		fmt.Fprint(r.w, b)
	}
	fmt.Fprintf(r.w, "FAIL %s\t%v\n", e.Package, elapsed)
}

// progress prints what is still running: each package with its
// longest-running test, or that the go command is building (compiling with
// -race takes minutes on a fresh machine, and prints nothing meanwhile).
func (r *report) progress(now time.Time) {
	if len(r.pkgs) == 0 {
		fmt.Fprintf(r.w, "... %v: building; no test binary running\n", now.Sub(r.start).Round(time.Second))
		return
	}
	names := make([]string, 0, len(r.pkgs))
	for name := range r.pkgs {
		names = append(names, name)
	}
	slices.Sort(names)
	parts := make([]string, 0, len(names))
	for _, name := range names {
		p := r.pkgs[name]
		part := fmt.Sprintf("%s (%v", shortPkg(name), now.Sub(p.started).Round(time.Second))
		var oldest string
		var since time.Time
		for test, t := range p.running {
			if oldest == "" || t.Before(since) || (t.Equal(since) && test < oldest) {
				oldest, since = test, t
			}
		}
		if oldest != "" {
			part += fmt.Sprintf(", %s %v", oldest, now.Sub(since).Round(time.Second))
		}
		parts = append(parts, part+")")
	}
	fmt.Fprintf(r.w, "... %v: running %s\n", now.Sub(r.start).Round(time.Second), strings.Join(parts, ", "))
}

// summary prints the closing line, in the form CI reads: "LABEL: N passed,
// N failed, N skipped", counting top-level tests, and a package that failed
// outside its tests (a build failure) as one failure.
func (r *report) summary(label string) {
	if len(r.skippedTests) > 0 {
		fmt.Fprintf(r.w, "skipped: %s\n", strings.Join(r.skippedTests, ", "))
	}
	if len(r.failedTests) > 0 {
		fmt.Fprintf(r.w, "failed tests: %s\n", strings.Join(r.failedTests, ", "))
	}
	if len(r.failedPkgs) > 0 {
		fmt.Fprintf(r.w, "failed packages: %s\n", strings.Join(r.failedPkgs, " "))
	}
	fmt.Fprintf(r.w, "%s: %d passed, %d failed, %d skipped\n", label, r.passed, r.failed, r.skipped)
}

// ok reports whether nothing failed.
func (r *report) ok() bool { return r.failed == 0 && len(r.failedPkgs) == 0 }

func isTopLevel(test string) bool { return test != "" && !strings.Contains(test, "/") }

// shortPkg drops the module path from a package name.
func shortPkg(name string) string {
	if rest, ok := strings.CutPrefix(name, "github.com/seqshim/seqshim/"); ok {
		return rest
	}
	return name
}
