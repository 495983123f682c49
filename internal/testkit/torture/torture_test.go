package torture

import (
	"context"
	"errors"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"
	"time"
)

func TestCheck(t *testing.T) {
	v := func(g int, start, end, value int64) Drawn { return Drawn{G: g, Start: start, End: end, Value: value} }
	tests := []struct {
		name        string
		recs        []Record
		first, last int64
		dup, back   int
		out         int
		wasted      int64
	}{
		{"clean", []Record{
			{Name: "a", Values: []Drawn{v(0, 0, 1, 1), v(0, 2, 3, 2), v(1, 0, 5, 4)}},
			{Name: "b", Values: []Drawn{v(0, 0, 1, 3)}},
		}, 1, 5, 0, 0, 0, 1},
		{"duplicate across processes", []Record{
			{Name: "a", Values: []Drawn{v(0, 0, 1, 1)}},
			{Name: "b", Values: []Drawn{v(0, 0, 1, 1)}},
		}, 1, 1, 1, 0, 0, 0},
		{"backwards in one goroutine", []Record{
			{Name: "a", Values: []Drawn{v(0, 0, 1, 5), v(0, 2, 3, 4)}},
		}, 1, 5, 0, 1, 0, 3},
		{"backwards across goroutines in real time", []Record{
			{Name: "a", Values: []Drawn{v(0, 0, 1, 5), v(1, 2, 3, 4)}},
		}, 1, 5, 0, 1, 0, 3},
		{"overlapping calls may finish in any order", []Record{
			{Name: "a", Values: []Drawn{v(0, 0, 10, 5), v(1, 2, 3, 4)}},
		}, 4, 5, 0, 0, 0, 0},
		{"a new incarnation may go lower", []Record{
			{Name: "a", Values: []Drawn{v(0, 0, 1, 5)}},
			{Name: "b", Values: []Drawn{v(0, 2, 3, 4)}},
		}, 4, 5, 0, 0, 0, 0},
		{"outside the issued range", []Record{
			{Name: "a", Values: []Drawn{v(0, 0, 1, 7), v(0, 2, 3, 8)}},
		}, 1, 7, 0, 0, 1, 6},
		{"nothing issued", nil, 1, 0, 0, 0, 0, 0},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			rep := Check(tt.recs, tt.first, tt.last)
			if rep.Duplicates != tt.dup || rep.Backwards != tt.back || rep.OutOfRange != tt.out || rep.Wasted != tt.wasted {
				t.Errorf("Check = %v (examples %q); want %d duplicates, %d backwards, %d out of range, %d wasted",
					rep, rep.Examples, tt.dup, tt.back, tt.out, tt.wasted)
			}
			if want := tt.dup == 0 && tt.back == 0 && tt.out == 0; rep.OK() != want {
				t.Errorf("OK() = %v, want %v", rep.OK(), want)
			}
		})
	}
}

func TestRecorderRoundTrip(t *testing.T) {
	path := filepath.Join(t.TempDir(), "rec")
	r, err := CreateRecorder(path)
	if err != nil {
		t.Fatal(err)
	}
	r.Value(3, 10, 20, 42)
	r.Error(1, errors.New("store\ndown"))
	r.Value(0, 30, 40, -7)
	if err := r.Close(); err != nil {
		t.Fatal(err)
	}
	// A kill in the middle of a write leaves a torn line behind.
	f, err := os.OpenFile(path, os.O_APPEND|os.O_WRONLY, 0)
	if err != nil {
		t.Fatal(err)
	}
	f.WriteString("v 2 50 6")
	f.Close()

	rec, err := ReadRecord(path)
	if err != nil {
		t.Fatal(err)
	}
	want := []Drawn{{3, 10, 20, 42}, {0, 30, 40, -7}}
	if len(rec.Values) != len(want) || rec.Values[0] != want[0] || rec.Values[1] != want[1] {
		t.Errorf("values = %v, want %v", rec.Values, want)
	}
	if len(rec.Errors) != 1 || rec.Errors[0] != "store down" {
		t.Errorf("errors = %q, want [\"store down\"]", rec.Errors)
	}

	if err := os.WriteFile(path, []byte("v 1 2\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := ReadRecord(path); err == nil {
		t.Error("ReadRecord accepted a malformed line")
	}
}

func TestDraw(t *testing.T) {
	path := filepath.Join(t.TempDir(), "rec")
	r, err := CreateRecorder(path)
	if err != nil {
		t.Fatal(err)
	}
	var n atomic.Int64
	ctx, cancel := context.WithCancel(context.Background())
	next := func(context.Context) (int64, error) {
		v := n.Add(1)
		if v >= 1000 {
			cancel() // bounded: stop after 1000 calls
		}
		if v%10 == 0 {
			return 0, errors.New("every tenth call fails")
		}
		return v, nil
	}
	values, errs := Draw(ctx, r, DrawOptions{Goroutines: 4}, next)
	r.Close()
	rec, err := ReadRecord(path)
	if err != nil {
		t.Fatal(err)
	}
	if int64(len(rec.Values)) != values || int64(len(rec.Errors)) != errs {
		t.Errorf("recorded %d values and %d errors, Draw counted %d and %d", len(rec.Values), len(rec.Errors), values, errs)
	}
	if values < 800 || errs < 80 {
		t.Errorf("Draw = %d values, %d errors; want about 900 and 100", values, errs)
	}
	if rep := Check([]Record{rec}, 1, n.Load()); !rep.OK() {
		t.Errorf("Check = %v: %q", rep, rep.Examples)
	}
}

// upstream is an HTTP server counting the requests it applied.
func upstream(t *testing.T) (*httptest.Server, *atomic.Int64) {
	var applied atomic.Int64
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, _ := io.ReadAll(r.Body)
		applied.Add(1)
		w.Header().Set("X-Applied", "1")
		w.Write(append([]byte("echo:"), body...))
	}))
	t.Cleanup(srv.Close)
	return srv, &applied
}

func TestProxyFaults(t *testing.T) {
	tests := []struct {
		name        string
		faults      Faults
		wantErr     bool
		wantApplied int64
		count       func(Counts) int64
	}{
		{"none", Faults{}, false, 1, func(c Counts) int64 { return c.Forwarded }},
		{"reset before forwarding", Faults{Reset: 1}, true, 0, func(c Counts) int64 { return c.Reset }},
		{"drop after applying", Faults{Drop: 1}, true, 1, func(c Counts) int64 { return c.Dropped }},
		{"delay", Faults{Delay: 1, MaxDelay: time.Millisecond}, false, 1, func(c Counts) int64 { return c.Delayed }},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			srv, applied := upstream(t)
			p, err := StartProxy(srv.URL, tt.faults, 1)
			if err != nil {
				t.Fatal(err)
			}
			defer p.Close()
			client := &http.Client{Transport: &http.Transport{DisableKeepAlives: true}, Timeout: 10 * time.Second}
			resp, err := client.Post(p.URL()+"/x?y=1", "text/plain", strings.NewReader("hi"))
			if err == nil {
				body, _ := io.ReadAll(resp.Body)
				resp.Body.Close()
				if string(body) != "echo:hi" || resp.Header.Get("X-Applied") != "1" {
					t.Errorf("response %q (header %q), want the upstream's", body, resp.Header.Get("X-Applied"))
				}
			}
			if (err != nil) != tt.wantErr {
				t.Errorf("error = %v, want error: %v", err, tt.wantErr)
			}
			if got := applied.Load(); got != tt.wantApplied {
				t.Errorf("upstream applied %d requests, want %d", got, tt.wantApplied)
			}
			if c := p.Counts(); c.Requests != 1 || tt.count(c) != 1 {
				t.Errorf("counts %+v", c)
			}
		})
	}
}

func TestProxyModes(t *testing.T) {
	srv, applied := upstream(t)
	p, err := StartProxy(srv.URL, Faults{}, 1)
	if err != nil {
		t.Fatal(err)
	}
	defer p.Close()
	client := &http.Client{Transport: &http.Transport{DisableKeepAlives: true}, Timeout: 10 * time.Second}
	get := func() error {
		resp, err := client.Get(p.URL())
		if err == nil {
			resp.Body.Close()
		}
		return err
	}

	p.SetMode(Refuse)
	if err := get(); err == nil {
		t.Error("Refuse: request answered")
	}

	p.SetMode(Blackhole)
	done := make(chan error, 1)
	go func() { done <- get() }()
	for p.Counts().Blackholed == 0 {
		time.Sleep(time.Millisecond) // until the request is held
	}
	p.SetMode(Serve) // releases the held request unanswered
	if err := <-done; err == nil {
		t.Error("Blackhole: request answered")
	}
	if applied.Load() != 0 {
		t.Errorf("upstream applied %d requests while the store was stopped", applied.Load())
	}

	p.SetMode(Swallow)
	if err := get(); err == nil {
		t.Error("Swallow: request answered")
	}
	if applied.Load() != 1 {
		t.Errorf("upstream applied %d requests in Swallow mode, want 1", applied.Load())
	}

	p.SetMode(Serve)
	if err := get(); err != nil {
		t.Errorf("Serve after the outage: %v", err)
	}
	if c := p.Counts(); c.Refused != 1 || c.Blackholed != 1 || c.Dropped != 1 || c.Forwarded != 1 || applied.Load() != 2 {
		t.Errorf("counts %+v, applied %d", c, applied.Load())
	}
}
