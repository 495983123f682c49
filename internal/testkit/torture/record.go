package torture

import (
	"bufio"
	"bytes"
	"cmp"
	"fmt"
	"math"
	"os"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"
)

// A record file has one line per outcome of a call:
//
//	v GOROUTINE START END VALUE   a value handed out; START, END: ns since the process began
//	e GOROUTINE MESSAGE           an error
//
// A process killed mid-write leaves a last line without '\n': ignored.

// Recorder appends one process incarnation's outcomes to a file, buffered:
// call Flush often (a value lost with the buffer at SIGKILL only shrinks the
// checked set). It is safe for concurrent use.
type Recorder struct {
	mu   sync.Mutex
	f    *os.File
	w    *bufio.Writer
	base time.Time
	buf  []byte
}

// CreateRecorder creates (truncates) the record file at path. Times are
// measured from now on the monotonic clock.
func CreateRecorder(path string) (*Recorder, error) {
	f, err := os.Create(path)
	if err != nil {
		return nil, err
	}
	return &Recorder{f: f, w: bufio.NewWriterSize(f, 64<<10), base: time.Now()}, nil
}

// Now is the time since the recorder was created, for Value's start and end.
func (r *Recorder) Now() time.Duration { return time.Since(r.base) }

// Value records value v, handed to goroutine g by a call that began at start
// and returned at end.
func (r *Recorder) Value(g int, start, end time.Duration, v int64) {
	r.mu.Lock()
	b := append(r.buf[:0], 'v', ' ')
	b = strconv.AppendInt(b, int64(g), 10)
	b = append(b, ' ')
	b = strconv.AppendInt(b, int64(start), 10)
	b = append(b, ' ')
	b = strconv.AppendInt(b, int64(end), 10)
	b = append(b, ' ')
	b = strconv.AppendInt(b, v, 10)
	b = append(b, '\n')
	r.w.Write(b)
	r.buf = b
	r.mu.Unlock()
}

// Error records a failed call of goroutine g.
func (r *Recorder) Error(g int, err error) {
	msg := strings.ReplaceAll(err.Error(), "\n", " ")
	r.mu.Lock()
	fmt.Fprintf(r.w, "e %d %s\n", g, msg)
	r.mu.Unlock()
}

// Flush writes the buffered lines to the file (no fsync: the test survives
// process kills, not machine crashes).
func (r *Recorder) Flush() error {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.w.Flush()
}

// Close flushes and closes the file.
func (r *Recorder) Close() error {
	err := r.Flush()
	if cerr := r.f.Close(); err == nil {
		err = cerr
	}
	return err
}

// Drawn is one value handed out, as recorded.
type Drawn struct {
	G          int
	Start, End int64 // ns since the incarnation began
	Value      int64
}

// Record is what one process incarnation recorded.
type Record struct {
	Name   string
	Values []Drawn
	Errors []string
}

// ReadRecord reads a record file. An unterminated last line (the process
// was killed while writing it) is ignored; any other malformed line is an
// error.
func ReadRecord(path string) (Record, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return Record{}, err
	}
	rec := Record{Name: path}
	if i := bytes.LastIndexByte(data, '\n'); i+1 < len(data) {
		data = data[:i+1]
	}
	for n, line := range strings.Split(strings.TrimSuffix(string(data), "\n"), "\n") {
		if line == "" {
			continue
		}
		kind, rest, _ := strings.Cut(line, " ")
		switch kind {
		case "v":
			f := strings.Fields(rest)
			if len(f) != 4 {
				return Record{}, fmt.Errorf("%s:%d: malformed value line %q", path, n+1, line)
			}
			var d Drawn
			var g int64
			var errs [4]error
			g, errs[0] = strconv.ParseInt(f[0], 10, 32)
			d.Start, errs[1] = strconv.ParseInt(f[1], 10, 64)
			d.End, errs[2] = strconv.ParseInt(f[2], 10, 64)
			d.Value, errs[3] = strconv.ParseInt(f[3], 10, 64)
			for _, e := range errs {
				if e != nil {
					return Record{}, fmt.Errorf("%s:%d: %q: %w", path, n+1, line, e)
				}
			}
			d.G = int(g)
			rec.Values = append(rec.Values, d)
		case "e":
			_, msg, _ := strings.Cut(rest, " ")
			rec.Errors = append(rec.Errors, msg)
		default:
			return Record{}, fmt.Errorf("%s:%d: malformed line %q", path, n+1, line)
		}
	}
	return rec, nil
}

// Report is the checker's verdict.
type Report struct {
	Incarnations int
	Values       int   // values recorded
	Distinct     int   // distinct values among them
	Duplicates   int   // values recorded more than once (each extra copy counts): must be 0
	Backwards    int   // values not above one handed out earlier in the same incarnation: must be 0
	OutOfRange   int   // values outside what the store issued: must be 0
	Errors       int   // failed calls
	Issued       int64 // values the store issued, by its final position
	Wasted       int64 // issued but never recorded
	Examples     []string
}

// OK reports whether the records show no duplicate, no value going
// backwards and nothing outside what the store issued.
func (r Report) OK() bool { return r.Duplicates == 0 && r.Backwards == 0 && r.OutOfRange == 0 }

func (r Report) String() string {
	pct := 0.0
	if r.Issued > 0 {
		pct = 100 * float64(r.Wasted) / float64(r.Issued)
	}
	return fmt.Sprintf("%d values, %d duplicates, %d backwards, %d out of range, %d wasted (%.1f%% of %d issued), %d errors, %d incarnations",
		r.Values, r.Duplicates, r.Backwards, r.OutOfRange, r.Wasted, pct, r.Issued, r.Errors, r.Incarnations)
}

// Check checks the records of every incarnation against the store's issued
// range [first, last] of an ascending sequence with increment 1 (last <
// first: nothing issued).
//
// Backwards uses real time, not only each goroutine's order: a value must be
// above every value the same incarnation handed out by a call that returned
// before this call began.
func Check(recs []Record, first, last int64) Report {
	rep := Report{Incarnations: len(recs)}
	if last >= first {
		rep.Issued = last - first + 1
	}
	var all []int64
	for _, rec := range recs {
		rep.Errors += len(rec.Errors)
		rep.Values += len(rec.Values)
		for _, d := range rec.Values {
			all = append(all, d.Value)
			if d.Value < first || d.Value > last {
				rep.OutOfRange++
				rep.example(fmt.Sprintf("%s: value %d outside the issued range [%d, %d]", rec.Name, d.Value, first, last))
			}
		}
		rep.Backwards += backwards(rec, &rep)
	}
	slices.Sort(all)
	for i, v := range all {
		if i > 0 && all[i-1] == v {
			rep.Duplicates++
			rep.example(fmt.Sprintf("value %d handed out more than once", v))
			continue
		}
		rep.Distinct++
	}
	inRange := 0
	for i, v := range all {
		if (i == 0 || all[i-1] != v) && v >= first && v <= last {
			inRange++
		}
	}
	rep.Wasted = rep.Issued - int64(inRange)
	return rep
}

func (r *Report) example(s string) {
	if len(r.Examples) < 10 {
		r.Examples = append(r.Examples, s)
	}
}

// backwards counts values of rec that are not above the largest value
// handed out by a call that returned before theirs began.
func backwards(rec Record, rep *Report) int {
	byEnd := slices.Clone(rec.Values)
	slices.SortFunc(byEnd, func(a, b Drawn) int { return cmp.Compare(a.End, b.End) })
	byStart := slices.Clone(rec.Values)
	slices.SortFunc(byStart, func(a, b Drawn) int { return cmp.Compare(a.Start, b.Start) })
	n, j := 0, 0
	maxV, maxOf := int64(math.MinInt64), Drawn{}
	for _, d := range byStart {
		for j < len(byEnd) && byEnd[j].End < d.Start {
			if byEnd[j].Value > maxV {
				maxV, maxOf = byEnd[j].Value, byEnd[j]
			}
			j++
		}
		if maxV >= d.Value {
			n++
			rep.example(fmt.Sprintf("%s: goroutine %d got %d at %dns after goroutine %d got %d (returned at %dns)",
				rec.Name, d.G, d.Value, d.Start, maxOf.G, maxOf.Value, maxOf.End))
		}
	}
	return n
}

// LostAnswers counts, for blocks whose reservation's answer was lost
// (first..last of an ascending sequence, in any order), the values in them
// and those of them recorded (handed out: the block was recovered).
func LostAnswers(recs []Record, blocks [][2]int64) (values, handedOut int64) {
	var all []int64
	for _, rec := range recs {
		for _, d := range rec.Values {
			all = append(all, d.Value)
		}
	}
	slices.Sort(all)
	all = slices.Compact(all)
	for _, b := range blocks {
		values += b[1] - b[0] + 1
		i, _ := slices.BinarySearch(all, b[0])
		j, _ := slices.BinarySearch(all, b[1]+1)
		handedOut += int64(j - i)
	}
	return values, handedOut
}
