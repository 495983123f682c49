package torture

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"log"
	"math/rand/v2"
	"net"
	"net/http"
	"net/url"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"
)

// Faults are per-request probabilities of the proxy's faults; at most one
// fault hits a request.
type Faults struct {
	Reset    float64       // reset the connection before forwarding: nothing applied
	Delay    float64       // wait up to MaxDelay, then forward
	Drop     float64       // forward, then close the connection instead of answering
	MaxDelay time.Duration // default 200ms
}

// Mode is what the proxy does with every request, faults aside.
type Mode int32

const (
	// Serve forwards requests (subject to Faults).
	Serve Mode = iota
	// Refuse resets every connection at once: a store that is down.
	Refuse
	// Blackhole holds every request unanswered until the caller gives up or
	// the mode changes, then closes the connection: a store that hangs.
	Blackhole
	// Swallow forwards every request (the store applies it) and closes the
	// connection instead of answering: a network that loses answers.
	Swallow
)

// Counts are what the proxy did so far.
type Counts struct {
	Requests   int64 // requests received
	Forwarded  int64 // requests forwarded and answered
	Dropped    int64 // forwarded, response thrown away
	Delayed    int64
	Reset      int64 // reset before forwarding
	Refused    int64 // reset in Refuse mode
	Blackholed int64 // never answered in Blackhole mode
	Upstream   int64 // upstream failures (answered 502)
}

// Proxy is a fault-injecting HTTP proxy to one upstream. It is safe for
// concurrent use.
type Proxy struct {
	target *url.URL
	client *http.Client
	srv    *http.Server
	ln     net.Listener

	mu     sync.Mutex
	faults Faults
	rng    *rand.Rand
	mode   Mode
	wake   chan struct{} // closed when the mode changes

	requests, forwarded, dropped, delayed, reset, refused, blackholed, upstream atomic.Int64

	lostMu sync.Mutex    // guards lost
	lost   []Reservation // reservations whose response was dropped
}

// Reservation is a block reservation the store applied (a DynamoDB
// UpdateItem of dynamostore's with the value count :cnt), as its request
// and response tell: Count values ending at Last, the position after it.
type Reservation struct{ Last, Count int64 }

// Block returns the reservation's values for a sequence with increment step
// (no CYCLE wrap inside a block).
func (r Reservation) Block(step int64) (first, last int64) {
	return r.Last - (r.Count-1)*step, r.Last
}

// Dropped returns the reservations the store applied whose response the
// proxy threw away.
func (p *Proxy) Dropped() []Reservation {
	p.lostMu.Lock()
	defer p.lostMu.Unlock()
	return slices.Clone(p.lost)
}

// reservation reads a reservation from an UpdateItem's request and
// response bodies; false for anything else.
func reservation(target string, req, resp []byte) (Reservation, bool) {
	if !strings.HasSuffix(target, ".UpdateItem") {
		return Reservation{}, false
	}
	var in struct {
		ExpressionAttributeValues map[string]struct{ N string }
	}
	var out struct {
		Attributes map[string]struct{ N string }
	}
	if json.Unmarshal(req, &in) != nil || json.Unmarshal(resp, &out) != nil {
		return Reservation{}, false
	}
	cnt, err1 := strconv.ParseInt(in.ExpressionAttributeValues[":cnt"].N, 10, 64)
	last, err2 := strconv.ParseInt(out.Attributes["last"].N, 10, 64)
	if err1 != nil || err2 != nil || cnt < 1 {
		return Reservation{}, false // not a reservation (a release, admin)
	}
	return Reservation{Last: last, Count: cnt}, true
}

// StartProxy starts a proxy on 127.0.0.1 (a free port) to upstream, an
// http://host:port URL. seed makes the fault draws repeatable.
func StartProxy(upstream string, f Faults, seed uint64) (*Proxy, error) {
	target, err := url.Parse(upstream)
	if err != nil || target.Scheme != "http" || target.Host == "" {
		return nil, fmt.Errorf("torture: upstream %q: want http://host:port", upstream)
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return nil, err
	}
	p := &Proxy{
		target: target,
		client: &http.Client{
			Transport: &http.Transport{MaxIdleConnsPerHost: 64, IdleConnTimeout: 30 * time.Second},
			// The one bound on a forwarded request: never cancelled by the
			// caller, since dynalite dies when a request is aborted mid-flight.
			Timeout: 30 * time.Second,
		},
		ln:   ln,
		rng:  rand.New(rand.NewPCG(seed, seed^0x9e3779b97f4a7c15)),
		wake: make(chan struct{}),
	}
	p.SetFaults(f)
	p.srv = &http.Server{Handler: p, ErrorLog: log.New(io.Discard, "", 0), ReadHeaderTimeout: 10 * time.Second}
	go p.srv.Serve(ln)
	return p, nil
}

// URL is the proxy's endpoint, http://127.0.0.1:PORT.
func (p *Proxy) URL() string { return "http://" + p.ln.Addr().String() }

// SetFaults replaces the fault probabilities.
func (p *Proxy) SetFaults(f Faults) {
	if f.MaxDelay <= 0 {
		f.MaxDelay = 200 * time.Millisecond
	}
	p.mu.Lock()
	p.faults = f
	p.mu.Unlock()
}

// SetMode switches between serving, refusing and blackholing. Requests held
// by Blackhole are closed unanswered when the mode changes.
func (p *Proxy) SetMode(m Mode) {
	p.mu.Lock()
	p.mode = m
	close(p.wake)
	p.wake = make(chan struct{})
	p.mu.Unlock()
}

// Counts returns what the proxy did so far.
func (p *Proxy) Counts() Counts {
	return Counts{
		Requests: p.requests.Load(), Forwarded: p.forwarded.Load(), Dropped: p.dropped.Load(),
		Delayed: p.delayed.Load(), Reset: p.reset.Load(), Refused: p.refused.Load(),
		Blackholed: p.blackholed.Load(), Upstream: p.upstream.Load(),
	}
}

// Close stops the proxy and closes every connection, held ones included.
func (p *Proxy) Close() error {
	err := p.srv.Close()
	p.client.CloseIdleConnections()
	return err
}

type fault int

const (
	noFault fault = iota
	resetFault
	delayFault
	dropFault
)

// draw picks the request's fault and, for a delay, its length.
func (p *Proxy) draw() (Mode, <-chan struct{}, fault, time.Duration) {
	p.mu.Lock()
	defer p.mu.Unlock()
	f := p.faults
	x := p.rng.Float64()
	var d time.Duration
	switch {
	case x < f.Reset:
		return p.mode, p.wake, resetFault, 0
	case x < f.Reset+f.Delay:
		d = time.Duration(p.rng.Int64N(int64(f.MaxDelay)) + 1)
		return p.mode, p.wake, delayFault, d
	case x < f.Reset+f.Delay+f.Drop:
		return p.mode, p.wake, dropFault, 0
	}
	return p.mode, p.wake, noFault, 0
}

func (p *Proxy) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	p.requests.Add(1)
	mode, wake, f, delay := p.draw()
	switch mode {
	case Refuse:
		p.refused.Add(1)
		closeConn(w, true)
		return
	case Blackhole:
		p.blackholed.Add(1)
		select {
		case <-r.Context().Done():
		case <-wake:
		}
		closeConn(w, false)
		return
	case Swallow:
		f = dropFault
	}
	body, err := io.ReadAll(r.Body)
	if err != nil {
		closeConn(w, true)
		return
	}
	switch f {
	case resetFault:
		p.reset.Add(1)
		closeConn(w, true)
		return
	case delayFault:
		p.delayed.Add(1)
		t := time.NewTimer(delay)
		select {
		case <-t.C:
		case <-r.Context().Done():
			t.Stop()
			return // the caller gave up: nothing forwarded
		}
	}
	resp, respBody, err := p.forward(r, body)
	if err != nil {
		p.upstream.Add(1)
		http.Error(w, err.Error(), http.StatusBadGateway)
		return
	}
	if f == dropFault {
		// The store applied the request; the caller never hears of it.
		p.dropped.Add(1)
		if resp.StatusCode == http.StatusOK {
			if res, ok := reservation(r.Header.Get("X-Amz-Target"), body, respBody); ok {
				p.lostMu.Lock()
				p.lost = append(p.lost, res)
				p.lostMu.Unlock()
			}
		}
		closeConn(w, false)
		return
	}
	p.forwarded.Add(1)
	for k, v := range resp.Header {
		w.Header()[k] = v
	}
	w.WriteHeader(resp.StatusCode)
	w.Write(respBody)
}

// forward sends the request upstream and reads the whole response, detached
// from the caller's cancellation.
func (p *Proxy) forward(r *http.Request, body []byte) (*http.Response, []byte, error) {
	u := *p.target
	u.Path, u.RawPath, u.RawQuery = r.URL.Path, r.URL.RawPath, r.URL.RawQuery
	req, err := http.NewRequestWithContext(context.WithoutCancel(r.Context()), r.Method, u.String(), bytes.NewReader(body))
	if err != nil {
		return nil, nil, err
	}
	req.Header = r.Header.Clone()
	req.Host = r.Host // part of the request's signature
	resp, err := p.client.Do(req)
	if err != nil {
		return nil, nil, err
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	if err != nil {
		return nil, nil, err
	}
	return resp, b, nil
}

// closeConn closes the caller's connection without an answer; with reset,
// abortively (RST rather than FIN).
func closeConn(w http.ResponseWriter, reset bool) {
	hj, ok := w.(http.Hijacker)
	if !ok {
		panic(http.ErrAbortHandler)
	}
	c, _, err := hj.Hijack()
	if err != nil {
		panic(http.ErrAbortHandler)
	}
	if tc, ok := c.(*net.TCPConn); ok && reset {
		tc.SetLinger(0)
	}
	c.Close()
}
