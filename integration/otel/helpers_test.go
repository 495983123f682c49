package otel_test

import (
	"context"
	"log/slog"
	"sync"
	"sync/atomic"
	"testing"

	"go.opentelemetry.io/otel/attribute"
	sdkmetric "go.opentelemetry.io/otel/sdk/metric"
	"go.opentelemetry.io/otel/sdk/metric/metricdata"

	"github.com/seqshim/seqshim/memstore"
	"github.com/seqshim/seqshim/sequence"
)

// instrumentNames are every instrument seqshim promises.
var instrumentNames = []string{
	"seqshim.values.served", "seqshim.values.reserved", "seqshim.values.wasted", "seqshim.values.released",
	"seqshim.cache.remaining", "seqshim.cache.runway",
	"seqshim.refill.duration", "seqshim.wait.duration", "seqshim.store.errors", "seqshim.block.size",
}

// newProvider returns an SDK MeterProvider read by a ManualReader.
func newProvider(t *testing.T) (*sdkmetric.MeterProvider, *sdkmetric.ManualReader) {
	reader := sdkmetric.NewManualReader()
	mp := sdkmetric.NewMeterProvider(sdkmetric.WithReader(reader))
	t.Cleanup(func() { mp.Shutdown(context.Background()) })
	return mp, reader
}

// reading is one collection, by instrument name.
type reading map[string]metricdata.Metrics

func collect(t *testing.T, r *sdkmetric.ManualReader) reading {
	t.Helper()
	var rm metricdata.ResourceMetrics
	if err := r.Collect(context.Background(), &rm); err != nil {
		t.Fatal(err)
	}
	out := reading{}
	for _, sm := range rm.ScopeMetrics {
		for _, m := range sm.Metrics {
			out[m.Name] = m
		}
	}
	return out
}

// anyErr matches a data point whatever its error.type.
const anyErr = "*"

// match reports whether set names sequence seq and, unless errType is
// anyErr, has error.type errType ("" for none).
func match(set attribute.Set, seq, errType string) bool {
	if v, ok := set.Value("seqshim.sequence"); !ok || v.AsString() != seq {
		return false
	}
	if errType == anyErr {
		return true
	}
	v, ok := set.Value("error.type")
	if errType == "" {
		return !ok
	}
	return ok && v.AsString() == errType
}

// int is the sum of an int64 counter's or gauge's points for seq with
// errType; ok is false when there is none.
func (r reading) int(name, seq, errType string) (n int64, ok bool) {
	var points []metricdata.DataPoint[int64]
	switch d := r[name].Data.(type) {
	case metricdata.Sum[int64]:
		points = d.DataPoints
	case metricdata.Gauge[int64]:
		points = d.DataPoints
	}
	for _, p := range points {
		if match(p.Attributes, seq, errType) {
			n += p.Value
			ok = true
		}
	}
	return n, ok
}

// float is a float64 gauge's point for seq.
func (r reading) float(name, seq string) (float64, bool) {
	if d, ok := r[name].Data.(metricdata.Gauge[float64]); ok {
		for _, p := range d.DataPoints {
			if match(p.Attributes, seq, "") {
				return p.Value, true
			}
		}
	}
	return 0, false
}

// hist is the count and sum of a histogram's points for seq with errType.
func (r reading) hist(name, seq, errType string) (count uint64, sum float64) {
	switch d := r[name].Data.(type) {
	case metricdata.Histogram[float64]:
		for _, p := range d.DataPoints {
			if match(p.Attributes, seq, errType) {
				count += p.Count
				sum += p.Sum
			}
		}
	case metricdata.Histogram[int64]:
		for _, p := range d.DataPoints {
			if match(p.Attributes, seq, errType) {
				count += p.Count
				sum += float64(p.Sum)
			}
		}
	}
	return count, sum
}

// flakyStore is a memstore that fails while down, as DynamoDB does when it
// is unavailable, and counts the Reserve calls.
type flakyStore struct {
	*memstore.Store
	down  atomic.Bool
	calls atomic.Int64
}

// errUnavailable is what flakyStore returns while down: an AWS-style coded
// error, reported as error.type ServiceUnavailable.
var errUnavailable = codedError("ServiceUnavailable")

type codedError string

func (e codedError) Error() string     { return "store: api error " + string(e) }
func (e codedError) ErrorCode() string { return string(e) }

func newFlakyStore(t testing.TB, names ...string) *flakyStore {
	t.Helper()
	s := &flakyStore{Store: memstore.New()}
	spec := sequence.DefaultSpec()
	for _, n := range names {
		if err := s.Create(context.Background(), n, spec, spec.Initial()); err != nil {
			t.Fatal(err)
		}
	}
	return s
}

func (s *flakyStore) Reserve(ctx context.Context, name string, n int64) (sequence.Block, error) {
	s.calls.Add(1)
	if s.down.Load() {
		return sequence.Block{}, errUnavailable
	}
	return s.Store.Reserve(ctx, name, n)
}

// recorder is a slog.Handler that keeps the records it is given.
type recorder struct {
	mu      sync.Mutex // protects records
	records []slog.Record
}

func (r *recorder) Enabled(context.Context, slog.Level) bool { return true }
func (r *recorder) Handle(_ context.Context, rec slog.Record) error {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.records = append(r.records, rec.Clone())
	return nil
}
func (r *recorder) WithAttrs([]slog.Attr) slog.Handler { return r }
func (r *recorder) WithGroup(string) slog.Handler      { return r }

// logged is a record's level, message and attributes as strings.
type logged struct {
	Level slog.Level
	Msg   string
	Attrs map[string]string
}

func (r *recorder) lines() []logged {
	r.mu.Lock()
	defer r.mu.Unlock()
	var out []logged
	for _, rec := range r.records {
		l := logged{Level: rec.Level, Msg: rec.Message, Attrs: map[string]string{}}
		rec.Attrs(func(a slog.Attr) bool {
			l.Attrs[a.Key] = a.Value.Resolve().String()
			return true
		})
		out = append(out, l)
	}
	return out
}
