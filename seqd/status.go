package seqd

import (
	"cmp"
	"context"
	_ "embed"
	"encoding/json"
	"net/http"
	"slices"
	"sync"
	"time"

	"github.com/seqshim/seqshim/sequence"
)

// The status page: per counter, the server's cache depth, the rate clients
// take values at, the refill rate (store reservations a minute), burn per
// day, runway to the counter's limit, the values wasted or handed back, and
// its clients — with charts of the last hour. The data is /status.json;
// the page (status.html, no outside resources) draws it with SVG and
// refreshes every two seconds.

//go:embed status.html
var statusHTML []byte

// statusEvery is how often the status log samples the cache; describeEvery
// how often it reads the counters' positions in the store.
const (
	statusEvery   = 5 * time.Second
	describeEvery = 30 * time.Second
	historyLen    = 720 // an hour of samples
)

type statusLog struct {
	s    *Server
	now  func() time.Time
	stop func()

	mu       sync.Mutex
	counters map[string]*counterStatus
	started  time.Time
}

type counterStatus struct {
	clients   map[string]*clientUse
	history   []sample // oldest first, at most historyLen
	info      *sequence.Info
	infoAt    time.Time
	infoError string
}

type clientUse struct {
	Values int64     `json:"values"`
	Last   time.Time `json:"last"`
}

type sample struct {
	At           int64   `json:"t"` // Unix milliseconds
	Served       int64   `json:"served"`
	Depth        int64   `json:"depth"`
	Reservations int64   `json:"reservations"`
	Rate         float64 `json:"rate"` // values a second, over the cache's window, as then
}

func newStatusLog(s *Server, now func() time.Time) *statusLog {
	ctx, cancel := context.WithCancel(context.Background())
	l := &statusLog{s: s, now: now, counters: map[string]*counterStatus{}, started: now()}
	done := make(chan struct{})
	l.stop = func() { cancel(); <-done }
	go func() {
		defer close(done)
		t := time.NewTicker(statusEvery)
		defer t.Stop()
		for {
			select {
			case <-ctx.Done():
				return
			case <-t.C:
				l.sample(ctx)
			}
		}
	}()
	return l
}

func (l *statusLog) counterLocked(name string) *counterStatus {
	c := l.counters[name]
	if c == nil {
		c = &counterStatus{clients: map[string]*clientUse{}}
		l.counters[name] = c
	}
	return c
}

// served records n values handed to client.
func (l *statusLog) served(client, name string, n int64) {
	now := l.now()
	l.mu.Lock()
	u := l.counterLocked(name).clients[client]
	if u == nil {
		u = &clientUse{}
		l.counterLocked(name).clients[client] = u
	}
	u.Values += n
	u.Last = now
	l.mu.Unlock()
}

// sample records the cache's counters, and now and then the counters'
// positions in the store.
func (l *statusLog) sample(ctx context.Context) {
	now := l.now()
	stats := l.s.cache.AllStats()
	var describe []string
	l.mu.Lock()
	for _, st := range stats {
		c := l.counterLocked(st.Name)
		c.history = append(c.history, sample{At: now.UnixMilli(), Served: st.Served, Depth: st.Depth, Reservations: st.Reservations, Rate: st.Rate})
		if len(c.history) > historyLen {
			c.history = c.history[len(c.history)-historyLen:]
		}
		if now.Sub(c.infoAt) >= describeEvery {
			describe = append(describe, st.Name)
		}
	}
	l.mu.Unlock()
	for _, name := range describe {
		dctx, cancel := context.WithTimeout(ctx, 3*time.Second)
		info, err := l.s.cfg.Store.Describe(dctx, name)
		cancel()
		l.mu.Lock()
		c := l.counterLocked(name)
		c.infoAt = now
		if err != nil {
			c.infoError = err.Error()
		} else {
			c.info, c.infoError = &info, ""
		}
		l.mu.Unlock()
	}
}

// statusJSON is /status.json.
type statusJSON struct {
	Now      int64           `json:"now"`
	Started  int64           `json:"started"`
	Counters []counterJSON   `json:"counters"`
	Clients  []clientSummary `json:"clients"`
}

type counterJSON struct {
	Name          string      `json:"name"`
	Depth         int64       `json:"depth"`           // values in the server's cache
	Rate          float64     `json:"rate"`            // values a second clients take, over the cache's window
	RefillsPerMin float64     `json:"refills_per_min"` // store reservations a minute, over the history
	BurnPerDay    float64     `json:"burn_per_day"`
	Remaining     *int64      `json:"remaining"`   // values left before the limit, as last read; null: unknown
	RunwayDays    *float64    `json:"runway_days"` // remaining / burn per day; null: unknown or no burn
	Wasted        int64       `json:"wasted"`
	Released      int64       `json:"released"`
	Served        int64       `json:"served"`
	Reservations  int64       `json:"reservations"`
	StoreErrors   int64       `json:"store_errors"`
	Clients       []clientRow `json:"clients"`
	History       []sample    `json:"history"` // oldest first; [] before the first sample
	StoreError    string      `json:"store_error,omitempty"`
}

type clientRow struct {
	Name   string `json:"name"`
	Values int64  `json:"values"`
	Last   int64  `json:"last"` // Unix milliseconds
}

type clientSummary struct {
	Name        string `json:"name"`
	RateLimited int64  `json:"rate_limited"`
}

func (l *statusLog) snapshot() statusJSON {
	stats := l.s.cache.AllStats()
	now := l.now()
	out := statusJSON{Now: now.UnixMilli(), Started: l.started.UnixMilli(), Counters: []counterJSON{}, Clients: []clientSummary{}}
	l.mu.Lock()
	defer l.mu.Unlock()
	for _, st := range stats {
		c := l.counterLocked(st.Name)
		cj := counterJSON{Name: st.Name, Depth: st.Depth, Rate: st.Rate, BurnPerDay: st.Rate * 86400,
			Wasted: st.Wasted, Released: st.Released, Served: st.Served, Reservations: st.Reservations,
			StoreErrors: st.StoreErrors, History: append([]sample{}, c.history...), StoreError: c.infoError, Clients: []clientRow{}}
		if n := len(c.history); n > 1 {
			first, last := c.history[0], c.history[n-1]
			if mins := float64(last.At-first.At) / 60000; mins > 0 {
				cj.RefillsPerMin = float64(last.Reservations-first.Reservations) / mins
			}
		}
		if c.info != nil {
			if left, ok := remaining(*c.info); ok {
				cj.Remaining = &left
				if cj.BurnPerDay > 0 {
					days := float64(left) / cj.BurnPerDay
					cj.RunwayDays = &days
				}
			}
		}
		for name, u := range c.clients {
			cj.Clients = append(cj.Clients, clientRow{Name: name, Values: u.Values, Last: u.Last.UnixMilli()})
		}
		slices.SortFunc(cj.Clients, func(a, b clientRow) int {
			return cmp.Or(cmp.Compare(b.Values, a.Values), cmp.Compare(a.Name, b.Name))
		})
		out.Counters = append(out.Counters, cj)
	}
	for _, c := range l.s.auth.byToken {
		out.Clients = append(out.Clients, clientSummary{Name: c.name, RateLimited: c.refusedRL.Load()})
	}
	if o := l.s.auth.open; o != nil {
		out.Clients = append(out.Clients, clientSummary{Name: o.name, RateLimited: o.refusedRL.Load()})
	}
	slices.SortFunc(out.Clients, func(a, b clientSummary) int { return cmp.Compare(a.Name, b.Name) })
	return out
}

// remaining is how many values a counter has left before its limit (0 for
// one that cycles: it never runs out).
func remaining(info sequence.Info) (int64, bool) {
	if info.Spec.Cycle {
		return 0, false
	}
	b, _, err := info.Spec.Reserve(info.Name, info.Position, 1)
	if err != nil {
		return 0, true
	}
	limit := info.Spec.Max
	if info.Spec.Descending() {
		limit = info.Spec.Min
	}
	return int64((float64(limit)-float64(b.First))/float64(info.Spec.Increment)) + 1, true
}

func (l *statusLog) json(w http.ResponseWriter, r *http.Request) {
	if r.URL.Query().Get("sample") == "1" {
		l.sample(r.Context())
	}
	w.Header().Set("Content-Type", "application/json")
	w.Header().Set("Cache-Control", "no-store")
	_ = json.NewEncoder(w).Encode(l.snapshot())
}

func (l *statusLog) page(w http.ResponseWriter, _ *http.Request) {
	w.Header().Set("Content-Type", "text/html; charset=utf-8")
	w.Header().Set("Content-Security-Policy", "default-src 'self'; script-src 'unsafe-inline' 'self'; style-src 'unsafe-inline'")
	_, _ = w.Write(statusHTML)
}
