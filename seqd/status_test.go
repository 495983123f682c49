package seqd_test

import (
	"context"
	"encoding/json"
	"encoding/xml"
	"errors"
	"fmt"
	"io"
	"math"
	"math/big"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/seqshim/seqshim/internal/testkit/testenv"
	"github.com/seqshim/seqshim/memstore"
	"github.com/seqshim/seqshim/seqcache"
	"github.com/seqshim/seqshim/seqd"
	"github.com/seqshim/seqshim/seqdstore"
	"github.com/seqshim/seqshim/sequence"
)

// The status page's tests: /status.json against what clients drew, and
// /status as a real browser (Debian's chromium, headless) draws it.

// The counters of the status fixture: one with a MAXVALUE (its remaining
// values and runway are known), one without.
const (
	statusLimited   = "orders_seq"
	statusUnlimited = "items_seq"
	statusMax       = 1_000_000
)

var (
	statusCounters = []string{statusUnlimited, statusLimited} // as /status.json orders them
	statusClients  = []string{"web", "worker"}
)

// statusFixture is a server over memstore with two named clients, its API
// and its ops handler on loopback, and what the clients drew.
type statusFixture struct {
	st     *memstore.Store
	ops    *httptest.Server
	stores map[string]*seqdstore.Store // by client name
	drawn  map[string]map[string]int64 // counter → client → values
	// sampled is, per forced sample, each counter's served total then.
	sampled []map[string]int64
}

// cacheSample is the server cache's rate sample period here: short, so that
// a rate is measured between a test's draws.
const cacheSample = 20 * time.Millisecond

func newStatusFixture(t *testing.T) *statusFixture {
	t.Helper()
	ctx := context.Background()
	f := &statusFixture{st: memstore.New(), stores: map[string]*seqdstore.Store{}, drawn: map[string]map[string]int64{}}
	limited, pos, err := sequence.Clauses{MaxValue: sequence.Int64(statusMax)}.Create()
	if err != nil {
		t.Fatal(err)
	}
	if err := f.st.Create(ctx, statusLimited, limited, pos); err != nil {
		t.Fatal(err)
	}
	spec := sequence.DefaultSpec()
	if err := f.st.Create(ctx, statusUnlimited, spec, spec.Initial()); err != nil {
		t.Fatal(err)
	}
	var creds []seqd.Credential
	tokens := map[string]string{}
	for _, name := range statusClients {
		tok := "tok-status-" + name + "-" + sequence.NewToken().String()
		tokens[name] = tok
		creds = append(creds, seqd.Credential{Name: name, TokenSHA256: seqd.HashToken(tok), Prefixes: []string{""}, Ops: []string{"reserve"}})
	}
	srv, err := seqd.New(seqd.Config{Store: f.st, Credentials: creds,
		Cache: seqcache.Options{Sample: cacheSample, MinBlock: 200}})
	if err != nil {
		t.Fatal(err)
	}
	api := httptest.NewServer(srv.Handler())
	f.ops = httptest.NewServer(srv.OpsHandler())
	t.Cleanup(func() {
		api.Close()
		f.ops.Close()
		if err := srv.Close(); err != nil {
			t.Errorf("server Close: %v", err)
		}
	})
	for _, name := range statusClients {
		cs, err := seqdstore.Open(ctx, "seqd+http://:"+tokens[name]+"@"+strings.TrimPrefix(api.URL, "http://"))
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { cs.Close() })
		f.stores[name] = cs
	}
	for _, c := range statusCounters {
		f.drawn[c] = map[string]int64{}
	}
	return f
}

// draw has every client take a block of every counter, sizes varying with
// round, then waits for the server cache to measure a rate.
func (f *statusFixture) draw(t *testing.T, round int) {
	t.Helper()
	for ci, client := range statusClients {
		for ki, counter := range statusCounters {
			n := int64(3 + round + 4*ci + 2*ki)
			b, err := f.stores[client].Reserve(context.Background(), counter, n)
			if err != nil {
				t.Fatalf("%s reserves %d of %s: %v", client, n, counter, err)
			}
			if b.Count < 1 || b.Count > n {
				t.Fatalf("%s reserves %d of %s: a block of %d", client, n, counter, b.Count)
			}
			f.drawn[counter][client] += b.Count
		}
	}
	time.Sleep(3 * cacheSample)
}

// served is what the clients drew of counter.
func (f *statusFixture) served(counter string) int64 {
	var n int64
	for _, v := range f.drawn[counter] {
		n += v
	}
	return n
}

// run draws rounds times, forcing a sample after each of the last samples
// rounds.
func (f *statusFixture) run(t *testing.T, rounds, samples int) {
	t.Helper()
	for i := range rounds {
		f.draw(t, i)
		if i >= rounds-samples {
			f.sample(t)
		}
	}
}

// sample forces a sample and records the counters' served totals.
func (f *statusFixture) sample(t *testing.T) statusDoc {
	t.Helper()
	s := f.status(t, true)
	m := map[string]int64{}
	for _, c := range statusCounters {
		m[c] = f.served(c)
	}
	f.sampled = append(f.sampled, m)
	return s
}

// status reads /status.json, forcing a sample first if sample is set.
func (f *statusFixture) status(t *testing.T, sample bool) statusDoc {
	t.Helper()
	u := f.ops.URL + "/status.json"
	if sample {
		u += "?sample=1"
	}
	res, err := http.Get(u)
	if err != nil {
		t.Fatal(err)
	}
	defer res.Body.Close()
	body, err := io.ReadAll(res.Body)
	if err != nil {
		t.Fatal(err)
	}
	if res.StatusCode != http.StatusOK || !strings.HasPrefix(res.Header.Get("Content-Type"), "application/json") {
		t.Fatalf("GET %s: %s, %s: %s", u, res.Status, res.Header.Get("Content-Type"), body)
	}
	var s statusDoc
	if err := json.Unmarshal(body, &s); err != nil {
		t.Fatalf("GET %s: %v\n%s", u, err, body)
	}
	return s
}

// settle waits until the server's cache stops refilling (depth and
// reservations unchanged over a few reads), every counter holding values.
func (f *statusFixture) settle(t *testing.T) statusDoc {
	t.Helper()
	key := func(s statusDoc) string {
		var b strings.Builder
		for _, c := range s.Counters {
			fmt.Fprintf(&b, "%s:%d:%d ", c.Name, c.Depth, c.Reservations)
		}
		return b.String()
	}
	prev, same := "", 0
	for deadline := time.Now().Add(5 * time.Second); ; {
		s := f.status(t, false)
		k := key(s)
		full := len(s.Counters) == len(statusCounters)
		for _, c := range s.Counters {
			full = full && c.Depth > 0
		}
		if k == prev && full {
			if same++; same >= 3 {
				return s
			}
		} else {
			prev, same = k, 0
		}
		if time.Now().After(deadline) {
			t.Fatalf("the server's cache did not settle with values cached: %s", k)
		}
		time.Sleep(50 * time.Millisecond)
	}
}

// statusDoc is /status.json.
type statusDoc struct {
	Now      int64 `json:"now"`
	Started  int64 `json:"started"`
	Counters []struct {
		Name          string   `json:"name"`
		Depth         int64    `json:"depth"`
		Rate          float64  `json:"rate"`
		RefillsPerMin float64  `json:"refills_per_min"`
		BurnPerDay    float64  `json:"burn_per_day"`
		Remaining     *int64   `json:"remaining"`
		RunwayDays    *float64 `json:"runway_days"`
		Wasted        int64    `json:"wasted"`
		Released      int64    `json:"released"`
		Served        int64    `json:"served"`
		Reservations  int64    `json:"reservations"`
		StoreErrors   int64    `json:"store_errors"`
		Clients       []struct {
			Name   string `json:"name"`
			Values int64  `json:"values"`
			Last   int64  `json:"last"`
		} `json:"clients"`
		History []struct {
			T            int64   `json:"t"`
			Served       int64   `json:"served"`
			Depth        int64   `json:"depth"`
			Reservations int64   `json:"reservations"`
			Rate         float64 `json:"rate"`
		} `json:"history"`
		StoreError string `json:"store_error"`
	} `json:"counters"`
	Clients []struct {
		Name        string `json:"name"`
		RateLimited int64  `json:"rate_limited"`
	} `json:"clients"`
}

// TestStatusJSON: /status.json says what the clients drew: served totals,
// the clients by name with their values, the samples forced between draws,
// the cache's depth, and for the counter with a MAXVALUE the values left
// and the runway.
func TestStatusJSON(t *testing.T) {
	f := newStatusFixture(t)

	s := f.status(t, false)
	if len(s.Counters) != 0 {
		t.Errorf("before any draw: %d counters, want none", len(s.Counters))
	}
	var names []string
	for _, c := range s.Clients {
		names = append(names, c.Name)
		if c.RateLimited != 0 {
			t.Errorf("client %s: %d rate limited", c.Name, c.RateLimited)
		}
	}
	if !slices.Equal(names, statusClients) {
		t.Errorf("clients %q, want %q", names, statusClients)
	}

	// Drawn, not sampled yet: a history of none, as [] (the page takes its
	// length), unless the status log's own ticker sampled meanwhile.
	f.draw(t, 0)
	for _, c := range f.status(t, false).Counters {
		if c.History == nil {
			t.Errorf("%s: history null before the first sample, want []", c.Name)
		}
	}
	f.sample(t)
	for round := 1; round < 4; round++ {
		f.draw(t, round)
		f.sample(t)
	}
	f.settle(t)
	s = f.sample(t) // after the last draw: the sample sees every value drawn

	if len(s.Counters) != len(statusCounters) {
		t.Fatalf("%d counters, want %d: %+v", len(s.Counters), len(statusCounters), s)
	}
	if s.Started > s.Now || s.Now == 0 {
		t.Errorf("started %d, now %d", s.Started, s.Now)
	}
	for i, c := range s.Counters {
		if c.Name != statusCounters[i] {
			t.Fatalf("counter %d is %s, want %s", i, c.Name, statusCounters[i])
		}
		t.Logf("%s: served %d, depth %d, %d reservations, rate %.1f/s, refills %.1f/min, remaining %s, runway %s days, %d samples",
			c.Name, c.Served, c.Depth, c.Reservations, c.Rate, c.RefillsPerMin, ptr(c.Remaining), ptr(c.RunwayDays), len(c.History))
		if want := f.served(c.Name); c.Served != want {
			t.Errorf("%s: served %d, want the %d values the clients drew", c.Name, c.Served, want)
		}
		if c.Depth <= 0 {
			t.Errorf("%s: depth %d, want values cached", c.Name, c.Depth)
		}
		if c.Reservations < 1 || c.StoreErrors != 0 || c.Wasted != 0 || c.Released != 0 || c.StoreError != "" {
			t.Errorf("%s: %d reservations, %d store errors, %d wasted, %d released, store error %q",
				c.Name, c.Reservations, c.StoreErrors, c.Wasted, c.Released, c.StoreError)
		}
		if c.Rate <= 0 || math.Abs(c.BurnPerDay-c.Rate*86400) > 1e-9*c.BurnPerDay {
			t.Errorf("%s: rate %g/s, burn %g/day", c.Name, c.Rate, c.BurnPerDay)
		}

		// The clients, by name, most values first.
		var clients []string
		for j, cl := range c.Clients {
			clients = append(clients, cl.Name)
			if want := f.drawn[c.Name][cl.Name]; cl.Values != want {
				t.Errorf("%s: client %s took %d values, want %d", c.Name, cl.Name, cl.Values, want)
			}
			if cl.Last < s.Started || cl.Last > s.Now {
				t.Errorf("%s: client %s last took at %d, outside [%d, %d]", c.Name, cl.Name, cl.Last, s.Started, s.Now)
			}
			if j > 0 && cl.Values > c.Clients[j-1].Values {
				t.Errorf("%s: clients not sorted by values: %+v", c.Name, c.Clients)
			}
		}
		slices.Sort(clients)
		if !slices.Equal(clients, statusClients) {
			t.Errorf("%s: clients %q, want %q", c.Name, clients, statusClients)
		}

		// The history holds every forced sample, in order (the status log's
		// ticker may have added some between them).
		if len(c.History) < len(f.sampled) {
			t.Errorf("%s: %d samples in the history, want at least the %d forced", c.Name, len(c.History), len(f.sampled))
		}
		next := 0
		for j, h := range c.History {
			if j > 0 && (h.T < c.History[j-1].T || h.Served < c.History[j-1].Served || h.Reservations < c.History[j-1].Reservations) {
				t.Errorf("%s: sample %d goes back: %+v after %+v", c.Name, j, h, c.History[j-1])
			}
			if next < len(f.sampled) && h.Served == f.sampled[next][c.Name] {
				next++
			}
		}
		if next != len(f.sampled) {
			t.Errorf("%s: the history %+v lacks forced sample %d (served %d)", c.Name, c.History, next, f.sampled[next][c.Name])
		}
		if n := len(c.History); n > 0 {
			last := c.History[n-1]
			if last.Served != c.Served || last.Depth <= 0 || last.Rate <= 0 || last.T > s.Now {
				t.Errorf("%s: last sample %+v; served %d at %d", c.Name, last, c.Served, s.Now)
			}
		}
		if c.RefillsPerMin < 0 {
			t.Errorf("%s: %g refills a minute", c.Name, c.RefillsPerMin)
		}

		switch c.Name {
		case statusLimited:
			// Remaining is the store's, as last read (at the first sample):
			// no more than before any draw, no less than now.
			info, err := f.st.Describe(context.Background(), c.Name)
			if err != nil {
				t.Fatal(err)
			}
			if c.Remaining == nil || c.RunwayDays == nil {
				t.Fatalf("%s (MAXVALUE %d): remaining %s, runway %s: want both", c.Name, statusMax, ptr(c.Remaining), ptr(c.RunwayDays))
			}
			if left := statusMax - info.Position.Last; *c.Remaining < left || *c.Remaining >= statusMax {
				t.Errorf("%s: %d remaining; the store has %d left of %d", c.Name, *c.Remaining, left, statusMax)
			}
			if want := float64(*c.Remaining) / c.BurnPerDay; math.Abs(*c.RunwayDays-want) > 1e-9*want {
				t.Errorf("%s: runway %g days, want remaining / burn = %g", c.Name, *c.RunwayDays, want)
			}
		case statusUnlimited:
			if c.Remaining != nil && *c.Remaining < math.MaxInt64/2 {
				t.Errorf("%s (no MAXVALUE): %d remaining", c.Name, *c.Remaining)
			}
		}
	}
}

func ptr[T any](p *T) string {
	if p == nil {
		return "null"
	}
	return fmt.Sprint(*p)
}

// TestStatusPage: the status page as headless chromium draws it: a summary
// row per counter with the numbers of status.json, and per counter two
// charts with a point per sample, with no sample yet, one, and several.
func TestStatusPage(t *testing.T) {
	bin, err := exec.LookPath("chromium")
	if err != nil {
		testenv.Skip(t, "chromium not found on PATH: the status page test runs Debian's chromium headless (scripts/test installs it when run as root)")
	}
	for _, tc := range []struct {
		name            string
		rounds, samples int
	}{
		{"no-samples", 2, 0},
		{"one-sample", 2, 1},
		{"samples", 4, 4},
	} {
		t.Run(tc.name, func(t *testing.T) {
			// The status log samples on its own every 5 seconds: a run that
			// sees more samples than it forced, or a page drawn from data
			// that changed meanwhile, starts over.
			for attempt := 1; ; attempt++ {
				retry := func(format string, args ...any) {
					if attempt == 3 {
						t.Fatalf(format, args...)
					}
					t.Logf("attempt %d: "+format+"; again", append([]any{attempt}, args...)...)
				}
				f := newStatusFixture(t)
				f.run(t, tc.rounds, tc.samples)
				before := f.settle(t)
				if n := len(before.Counters[0].History); n != tc.samples {
					retry("%d samples, want the %d forced", n, tc.samples)
					continue
				}
				dom := dumpDOM(t, bin, f.ops.URL+"/status")
				after := f.status(t, false)
				if d := statusDiff(before, after); d != "" {
					retry("the status changed while the page was drawn: %s", d)
					continue
				}
				checkPage(t, dom, before, after)
				return
			}
		})
	}
}

// statusDiff says how two reads of the status differ in what the page
// shows exactly (the rate falls by the second: it is compared in a range).
func statusDiff(a, b statusDoc) string {
	if len(a.Counters) != len(b.Counters) {
		return fmt.Sprintf("%d counters, then %d", len(a.Counters), len(b.Counters))
	}
	for i := range a.Counters {
		x, y := a.Counters[i], b.Counters[i]
		kx := fmt.Sprint(x.Name, x.Depth, x.Served, x.Wasted+x.Released, len(x.Clients), len(x.History), x.RefillsPerMin, ptr(x.Remaining), x.RunwayDays == nil)
		ky := fmt.Sprint(y.Name, y.Depth, y.Served, y.Wasted+y.Released, len(y.Clients), len(y.History), y.RefillsPerMin, ptr(y.Remaining), y.RunwayDays == nil)
		if kx != ky {
			return kx + " then " + ky
		}
	}
	return ""
}

// checkPage checks the DOM chromium dumped against status.json read before
// and after.
func checkPage(t *testing.T, dom string, before, s statusDoc) {
	t.Helper()
	root := parseDOM(t, dom)
	fail := func(format string, args ...any) {
		t.Helper()
		t.Errorf(format, args...)
	}
	defer func() {
		if t.Failed() {
			t.Logf("the DOM chromium dumped:\n%s", dom)
		}
	}()
	meta := root.find(func(n *domNode) bool { return n.attr["id"] == "meta" })
	if len(meta) != 1 || !strings.HasPrefix(meta[0].text(), fmt.Sprintf("%d counters", len(s.Counters))) {
		fail("#meta: %q, want %d counters and the times", textOf(meta), len(s.Counters))
	}
	rows := root.find(func(n *domNode) bool { return n.tag == "tr" && n.attr["data-counter"] != "" })
	boxes := root.find(func(n *domNode) bool { return n.tag == "div" && n.attr["data-counter"] != "" })
	if len(rows) != len(s.Counters) || len(boxes) != len(s.Counters) {
		t.Fatalf("%d summary rows and %d counter boxes, want %d of each", len(rows), len(boxes), len(s.Counters))
	}
	for i, c := range s.Counters {
		row, box := rows[i], boxes[i]
		if row.attr["data-counter"] != c.Name || box.attr["data-counter"] != c.Name {
			fail("row %d is %q, box %q; want %s", i, row.attr["data-counter"], box.attr["data-counter"], c.Name)
			continue
		}
		cells := map[string]*domNode{}
		for _, td := range row.find(func(n *domNode) bool { return n.tag == "td" }) {
			cells[td.attr["data-field"]] = td
		}
		cell := func(field string) *domNode {
			if td := cells[field]; td != nil {
				return td
			}
			fail("%s: no %s cell", c.Name, field)
			return &domNode{attr: map[string]string{}}
		}
		value := func(field string) (float64, bool) {
			v, ok := cell(field).attr["data-value"]
			if !ok {
				return 0, false
			}
			f, err := strconv.ParseFloat(v, 64)
			if err != nil {
				fail("%s: %s data-value %q: %v", c.Name, field, v, err)
			}
			return f, true
		}
		exact := func(field string, want float64, text string) {
			if got, ok := value(field); !ok || got != want {
				fail("%s: %s data-value %v (%v), want %v", c.Name, field, got, ok, want)
			}
			if text != "" && cell(field).text() != text {
				fail("%s: %s shows %q, want %q", c.Name, field, cell(field).text(), text)
			}
		}
		// between: a value that changes with time, read before and after.
		between := func(field string, lo, hi *float64) {
			if lo == nil || hi == nil {
				if _, ok := value(field); ok || cell(field).text() != "–" {
					fail("%s: %s %q with data-value, want – (unknown)", c.Name, field, cell(field).text())
				}
				return
			}
			a, b := min(*lo, *hi), max(*lo, *hi)
			if got, ok := value(field); !ok || got < a*(1-1e-9) || got > b*(1+1e-9) {
				fail("%s: %s data-value %v (%v), want within [%v, %v]", c.Name, field, got, ok, a, b)
			}
		}
		if cell("name").text() != c.Name {
			fail("%s: the name cell shows %q", c.Name, cell("name").text())
		}
		exact("depth", float64(c.Depth), jsFmt(float64(c.Depth)))
		exact("served", float64(c.Served), jsFmt(float64(c.Served)))
		exact("refills", c.RefillsPerMin, "")
		exact("wasted", float64(c.Wasted+c.Released), jsFmt(float64(c.Wasted+c.Released)))
		exact("clients", float64(len(c.Clients)), strconv.Itoa(len(c.Clients)))
		if c.Remaining == nil {
			between("remaining", nil, nil)
		} else {
			exact("remaining", float64(*c.Remaining), jsFmt(float64(*c.Remaining)))
		}
		b := before.Counters[i]
		between("rate", &b.Rate, &c.Rate)
		between("burn", &b.BurnPerDay, &c.BurnPerDay)
		between("runway", b.RunwayDays, c.RunwayDays)

		if h2 := box.find(func(n *domNode) bool { return n.tag == "h2" }); len(h2) != 1 || h2[0].text() != c.Name {
			fail("%s: box heading %q", c.Name, textOf(h2))
		}
		cl := box.find(func(n *domNode) bool { return n.attr["class"] == "clients" })
		for _, x := range c.Clients {
			if len(cl) != 1 || !strings.Contains(cl[0].text(), x.Name+" "+jsFmt(float64(x.Values))) {
				fail("%s: clients %q, want %s with %d values", c.Name, textOf(cl), x.Name, x.Values)
			}
		}

		// Two charts, rate and depth, a point per sample.
		svgs := box.find(func(n *domNode) bool { return n.tag == "svg" })
		if len(svgs) != 2 {
			fail("%s: %d charts, want 2", c.Name, len(svgs))
			continue
		}
		var rates, depths []float64
		for _, h := range c.History {
			rates = append(rates, h.Rate)
			depths = append(depths, float64(h.Depth))
		}
		checkChart(t, c.Name+" rate chart", svgs[0], rates)
		checkChart(t, c.Name+" depth chart", svgs[1], depths)
	}
}

// The chart's size (status.html: W, H).
const chartW, chartH = 360, 110

var pathPoint = regexp.MustCompile(`([ML])(-?[0-9.]+) (-?[0-9.]+)`)

// checkChart checks an SVG chart against the values it draws, one a sample.
func checkChart(t *testing.T, what string, svg *domNode, values []float64) {
	t.Helper()
	n := len(values)
	paths := svg.find(func(n *domNode) bool { return n.tag == "path" })
	if len(paths) != 1 {
		t.Errorf("%s: %d paths, want 1", what, len(paths))
		return
	}
	p := paths[0]
	if svg.attr["data-points"] != strconv.Itoa(n) || p.attr["data-points"] != strconv.Itoa(n) {
		t.Errorf("%s: data-points %q (path %q), want %d", what, svg.attr["data-points"], p.attr["data-points"], n)
	}
	d := strings.TrimSpace(p.attr["d"])
	if n == 0 {
		if d != "" {
			t.Errorf("%s: no samples, yet d=%q", what, d)
		}
		if !strings.Contains(svg.text(), "no samples yet") {
			t.Errorf("%s: no samples, and no note saying so: %q", what, svg.text())
		}
		return
	}
	pts := pathPoint.FindAllStringSubmatch(d, -1)
	if len(pts) != n || strings.Count(d, "M")+strings.Count(d, "L") != n || pts[0][1] != "M" {
		t.Errorf("%s: d=%q: %d points, want %d, one a sample", what, d, len(pts), n)
		return
	}
	for _, m := range pts {
		x, _ := strconv.ParseFloat(m[2], 64)
		y, _ := strconv.ParseFloat(m[3], 64)
		if x < 0 || x > chartW || y < 0 || y > chartH {
			t.Errorf("%s: point (%v, %v) outside the chart", what, x, y)
		}
	}
	if len(pts) > 1 {
		x0, _ := strconv.ParseFloat(pts[0][2], 64)
		x1, _ := strconv.ParseFloat(pts[len(pts)-1][2], 64)
		if x1 <= x0 {
			t.Errorf("%s: d=%q: time does not run left to right", what, d)
		}
	}
	hi := 0.0
	for _, v := range values {
		hi = max(hi, v)
	}
	if got, err := strconv.ParseFloat(svg.attr["data-max"], 64); err != nil || got != hi {
		t.Errorf("%s: data-max %q, want %v", what, svg.attr["data-max"], hi)
	}
	if dots := svg.find(func(n *domNode) bool { return n.tag == "circle" }); n == 1 && len(dots) != 1 {
		t.Errorf("%s: one sample, %d dots; want it drawn as one", what, len(dots))
	}
}

// jsFmt is the page's fmt (status.html) for a number.
func jsFmt(v float64) string {
	a := math.Abs(v)
	for _, u := range []struct {
		div    float64
		suffix string
	}{{1e18, "E"}, {1e15, "P"}, {1e12, "T"}, {1e9, "G"}, {1e6, "M"}, {1e3, "k"}} {
		if a >= u.div {
			return jsToFixed1(v/u.div) + u.suffix
		}
	}
	r := math.Floor(v * 10) // Math.round(v * 10): halves up
	if v*10-r >= 0.5 {
		r++
	}
	return strconv.FormatFloat(r/10, 'f', -1, 64)
}

// jsToFixed1 is JavaScript's x.toFixed(1): from x's exact value, a tie to
// the larger.
func jsToFixed1(x float64) string {
	f := new(big.Float).SetPrec(256).SetFloat64(x)
	f.Mul(f, new(big.Float).SetPrec(256).SetInt64(10))
	f.Add(f, new(big.Float).SetPrec(256).SetFloat64(0.5))
	n, acc := f.Int(nil) // toward zero
	if f.Sign() < 0 && acc != big.Exact {
		n.Sub(n, big.NewInt(1))
	}
	sign := ""
	if n.Sign() < 0 {
		sign, n = "-", n.Neg(n)
	}
	s := n.String()
	if len(s) < 2 {
		s = "0" + s
	}
	return sign + s[:len(s)-1] + "." + s[len(s)-1:]
}

// dumpDOM loads url in headless chromium and returns the DOM once the
// page's scripts ran (5 virtual seconds: its first refreshes). No chromium
// process outlives it.
func dumpDOM(t *testing.T, bin, url string) string {
	t.Helper()
	dir := t.TempDir()
	stdout, err := os.Create(filepath.Join(dir, "dom.html"))
	if err != nil {
		t.Fatal(err)
	}
	defer stdout.Close()
	stderr, err := os.Create(filepath.Join(dir, "stderr.txt"))
	if err != nil {
		t.Fatal(err)
	}
	defer stderr.Close()
	ctx, cancel := context.WithTimeout(context.Background(), 90*time.Second)
	defer cancel()
	// Root needs --no-sandbox; a profile of its own in the test's directory.
	cmd := exec.CommandContext(ctx, bin, "--headless=new", "--no-sandbox", "--disable-gpu",
		"--no-first-run", "--user-data-dir="+filepath.Join(dir, "profile"),
		"--virtual-time-budget=5000", "--dump-dom", url)
	cmd.Env = append(os.Environ(), "HOME="+dir, "XDG_CONFIG_HOME="+dir, "XDG_CACHE_HOME="+dir)
	cmd.Stdout, cmd.Stderr = stdout, stderr // files: no pipe a child process could hold open
	// Chromium's processes in a group of their own, killed together on a
	// timeout, and whatever is left of them once it exits.
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	cmd.Cancel = func() error { return syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL) }
	start := time.Now()
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	pgid := cmd.Process.Pid
	runErr := cmd.Wait()
	killGroup(t, pgid)
	errText := func() string {
		b, _ := os.ReadFile(stderr.Name())
		var keep []string
		for l := range strings.Lines(string(b)) {
			if !strings.Contains(l, "dbus") { // no session bus in a test: noise
				keep = append(keep, l)
			}
		}
		return strings.Join(keep[max(0, len(keep)-30):], "")
	}
	if ctx.Err() != nil {
		t.Fatalf("chromium did not dump %s within %v; stderr:\n%s", url, time.Since(start).Round(time.Millisecond), errText())
	}
	if runErr != nil {
		t.Fatalf("chromium: %v; stderr:\n%s", runErr, errText())
	}
	dom, err := os.ReadFile(stdout.Name())
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("chromium dumped %s in %v (%d bytes)", url, time.Since(start).Round(time.Millisecond), len(dom))
	if !strings.Contains(string(dom), "<table") {
		t.Fatalf("chromium dumped no page:\n%s\nstderr:\n%s", dom, errText())
	}
	return string(dom)
}

// killGroup kills what is left of process group pgid and waits until no
// process of it runs.
func killGroup(t *testing.T, pgid int) {
	t.Helper()
	if err := syscall.Kill(-pgid, syscall.SIGKILL); err != nil && !errors.Is(err, syscall.ESRCH) {
		t.Errorf("killing chromium's process group %d: %v", pgid, err)
	}
	var left []string
	for deadline := time.Now().Add(10 * time.Second); time.Now().Before(deadline); time.Sleep(50 * time.Millisecond) {
		if left = groupMembers(pgid); len(left) == 0 {
			return
		}
	}
	t.Errorf("chromium processes left behind in group %d: %q", pgid, left)
}

// groupMembers lists the live (not zombie) processes of group pgid, from
// /proc.
func groupMembers(pgid int) []string {
	dirs, _ := filepath.Glob("/proc/[0-9]*/stat")
	var out []string
	for _, p := range dirs {
		b, err := os.ReadFile(p)
		if err != nil {
			continue
		}
		// pid (comm) state ppid pgrp …; comm may hold spaces and parentheses.
		s := string(b)
		i := strings.LastIndexByte(s, ')')
		if i < 0 {
			continue
		}
		f := strings.Fields(s[i+1:])
		if len(f) < 3 || f[0] == "Z" || f[0] == "X" || f[2] != strconv.Itoa(pgid) {
			continue
		}
		out = append(out, strings.TrimSpace(s[:i+1]))
	}
	return out
}

// domNode is an element of the dumped DOM, or a text node (tag "").
type domNode struct {
	tag  string
	attr map[string]string
	kids []*domNode
	data string
}

func (n *domNode) find(match func(*domNode) bool) []*domNode {
	var out []*domNode
	for _, k := range n.kids {
		if k.tag != "" && match(k) {
			out = append(out, k)
		}
		out = append(out, k.find(match)...)
	}
	return out
}

func (n *domNode) text() string {
	if n.tag == "" {
		return n.data
	}
	var b strings.Builder
	for _, k := range n.kids {
		b.WriteString(k.text())
	}
	return b.String()
}

func textOf(ns []*domNode) []string {
	var out []string
	for _, n := range ns {
		out = append(out, n.text())
	}
	return out
}

var scriptOrStyle = regexp.MustCompile(`(?is)<script\b.*?</script>|<style\b.*?</style>`)

// parseDOM parses the HTML chromium serializes, its scripts and styles
// left out, with encoding/xml in its HTML mode.
func parseDOM(t *testing.T, s string) *domNode {
	t.Helper()
	d := xml.NewDecoder(strings.NewReader(scriptOrStyle.ReplaceAllString(s, "")))
	d.Strict, d.AutoClose, d.Entity = false, xml.HTMLAutoClose, xml.HTMLEntity
	root := &domNode{tag: "#document"}
	stack := []*domNode{root}
	for {
		tok, err := d.Token()
		if err == io.EOF {
			break
		}
		if err != nil {
			t.Fatalf("parsing the DOM: %v\n%s", err, s)
		}
		top := stack[len(stack)-1]
		switch tok := tok.(type) {
		case xml.StartElement:
			n := &domNode{tag: strings.ToLower(tok.Name.Local), attr: map[string]string{}}
			for _, a := range tok.Attr {
				n.attr[a.Name.Local] = a.Value
			}
			top.kids = append(top.kids, n)
			stack = append(stack, n)
		case xml.EndElement:
			name := strings.ToLower(tok.Name.Local)
			for i := len(stack) - 1; i > 0; i-- {
				if stack[i].tag == name {
					stack = stack[:i]
					break
				}
			}
		case xml.CharData:
			top.kids = append(top.kids, &domNode{data: string(tok)})
		}
	}
	return root
}
