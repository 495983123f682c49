package conformance_test

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"os"
	"os/signal"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"github.com/seqshim/seqshim/dynamostore"
	"github.com/seqshim/seqshim/internal/testkit/torture"
	"github.com/seqshim/seqshim/seqcache"
	"github.com/seqshim/seqshim/seqd"
	"github.com/seqshim/seqshim/seqdstore"
	"github.com/seqshim/seqshim/sequence"
)

// What TestTortureSeqd tells a server process (TestTortureSeqdServerChild).
const (
	envSeqdServerAddr     = "SEQSHIM_TORTURE_SEQD_SERVER_ADDR" // 127.0.0.1:PORT to serve on; set only in a server child
	envSeqdServerStore    = "SEQSHIM_TORTURE_SEQD_SERVER_STORE"
	envSeqdServerBlocks   = "SEQSHIM_TORTURE_SEQD_SERVER_BLOCKS" // log of the blocks it got from the store
	envSeqdServerCount    = "SEQSHIM_TORTURE_SEQD_SERVER_COUNT"  // file of the count of Reserve requests answered
	envSeqdServerBuffer   = "SEQSHIM_TORTURE_SEQD_SERVER_BUFFER"
	envSeqdServerMaxBlock = "SEQSHIM_TORTURE_SEQD_SERVER_MAX_BLOCK"
	envSeqdServerLifetime = "SEQSHIM_TORTURE_SEQD_SERVER_LIFETIME"
)

// What TestTortureSeqd tells a client process (TestTortureSeqdClientChild).
const (
	envSeqdClientRecord     = "SEQSHIM_TORTURE_SEQD_CLIENT_RECORD" // record file; set only in a client child
	envSeqdClientURL        = "SEQSHIM_TORTURE_SEQD_CLIENT_URL"    // seqd+http://127.0.0.1:P1,127.0.0.1:P2
	envSeqdClientSeq        = "SEQSHIM_TORTURE_SEQD_CLIENT_SEQ"
	envSeqdClientGoroutines = "SEQSHIM_TORTURE_SEQD_CLIENT_GOROUTINES"
	envSeqdClientPace       = "SEQSHIM_TORTURE_SEQD_CLIENT_PACE"
	envSeqdClientLifetime   = "SEQSHIM_TORTURE_SEQD_CLIENT_LIFETIME"
	envSeqdClientBuffer     = "SEQSHIM_TORTURE_SEQD_CLIENT_BUFFER"
	envSeqdClientMinBlock   = "SEQSHIM_TORTURE_SEQD_CLIENT_MIN_BLOCK"
	envSeqdClientMaxBlock   = "SEQSHIM_TORTURE_SEQD_CLIENT_MAX_BLOCK"
	envSeqdClientFlush      = "SEQSHIM_TORTURE_SEQD_CLIENT_FLUSH" // how often the record is flushed
	envSeqdClientNice       = "SEQSHIM_TORTURE_SEQD_CLIENT_NICE"  // niceness the client gives itself; empty: none
)

// TestTortureSeqdServerChild is one server process of TestTortureSeqd, which
// starts it by running the test binary again; on its own it skips. It
// serves a seqd.Server (open, plain HTTP) over the dynalite table on the
// address it is given, logs every block its cache gets from the store, and
// keeps the count of Reserve requests it answered in a file. SIGTERM (or
// its stdin closing) stops it cleanly: Drain, the HTTP server shut down,
// then Close, which hands the cache's unused values back to the store.
func TestTortureSeqdServerChild(t *testing.T) {
	addr := os.Getenv(envSeqdServerAddr)
	if addr == "" {
		t.Skip("helper process of TestTortureSeqd")
	}
	lifetime, err := time.ParseDuration(os.Getenv(envSeqdServerLifetime))
	if err != nil {
		t.Fatal(err)
	}
	buffer, err := time.ParseDuration(os.Getenv(envSeqdServerBuffer))
	if err != nil {
		t.Fatal(err)
	}
	maxBlock, err := strconv.ParseInt(os.Getenv(envSeqdServerMaxBlock), 10, 64)
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), lifetime)
	defer cancel()
	go func() { // the controller is gone: stop
		io.Copy(io.Discard, os.Stdin)
		cancel()
	}()
	stopCtx, stop := signal.NotifyContext(ctx, syscall.SIGTERM)
	defer stop()

	ds, err := dynamostore.Open(ctx, os.Getenv(envSeqdServerStore))
	if err != nil {
		t.Fatal(err)
	}
	blocks, err := os.Create(os.Getenv(envSeqdServerBlocks))
	if err != nil {
		t.Fatal(err)
	}
	defer blocks.Close()
	st := &seqdLoggedStore{Store: ds, f: blocks}
	logger := slog.New(slog.NewTextHandler(os.Stderr, &slog.HandlerOptions{Level: slog.LevelWarn}))
	srv, err := seqd.New(seqd.Config{Store: st, Open: true, Logger: logger, Cache: seqcache.Options{
		Buffer: buffer, MaxBlock: maxBlock, MaxWait: 3 * time.Second, RefillTimeout: time.Second,
	}})
	if err != nil {
		t.Fatal(err)
	}
	// The port is the controller's: free again once the incarnation before
	// this one is gone (SO_REUSEADDR: connections in TIME_WAIT do not hold
	// it), but try for a while all the same.
	var ln net.Listener
	for deadline := time.Now().Add(10 * time.Second); ; {
		if ln, err = net.Listen("tcp", addr); err == nil || time.Now().After(deadline) {
			break
		}
		time.Sleep(20 * time.Millisecond)
	}
	if err != nil {
		t.Fatal(err)
	}
	var served atomic.Int64
	hs := &http.Server{Handler: seqdCountReserves(srv.Handler(), &served), ReadHeaderTimeout: 10 * time.Second, IdleTimeout: 2 * time.Minute}
	serveErr := make(chan error, 1)
	go func() { serveErr <- hs.Serve(ln) }()

	countPath := os.Getenv(envSeqdServerCount)
	writeCount := func() {
		tmp := countPath + ".tmp"
		if err := os.WriteFile(tmp, []byte(strconv.FormatInt(served.Load(), 10)+"\n"), 0o644); err == nil {
			os.Rename(tmp, countPath)
		}
	}
	countDone := make(chan struct{})
	go func() { // often: a SIGKILL loses the count of the last 50ms at most
		defer close(countDone)
		tick := time.NewTicker(50 * time.Millisecond)
		defer tick.Stop()
		for {
			select {
			case <-stopCtx.Done():
				return
			case <-tick.C:
				writeCount()
			}
		}
	}()

	select {
	case <-stopCtx.Done():
	case err := <-serveErr:
		t.Fatalf("serve: %v", err)
	}
	<-countDone
	// A clean stop, as cmd/seqd's: readyz fails, the requests in flight
	// finish, then the cache hands its unused values back to the store.
	srv.Drain()
	sctx, scancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer scancel()
	if err := hs.Shutdown(sctx); err != nil {
		t.Errorf("shutdown: %v", err)
	}
	// The release may itself be lost to an injected fault (then the values
	// are a gap): logged, not failed.
	if err := srv.Close(); err != nil {
		t.Logf("close: %v", err)
	}
	writeCount()
	var released int64
	for _, s := range srv.Stats() {
		released += s.Released
	}
	t.Logf("%d Reserve requests answered; %d values handed back to the store", served.Load(), released)
}

// seqdCountReserves counts the Reserve requests h answered with a block.
func seqdCountReserves(h http.Handler, n *atomic.Int64) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if !strings.HasSuffix(r.URL.Path, "/Reserve") {
			h.ServeHTTP(w, r)
			return
		}
		sw := &seqdStatusWriter{ResponseWriter: w, code: http.StatusOK}
		h.ServeHTTP(sw, r)
		if sw.code == http.StatusOK {
			n.Add(1)
		}
	})
}

type seqdStatusWriter struct {
	http.ResponseWriter
	code int
}

func (w *seqdStatusWriter) WriteHeader(code int) {
	w.code = code
	w.ResponseWriter.WriteHeader(code)
}

func (w *seqdStatusWriter) Unwrap() http.ResponseWriter { return w.ResponseWriter }

// seqdLoggedStore is the server's store, logging every block it gets from
// it, and every Describe (which the server calls when a client's block
// would not come after the last value that client got), one line each,
// unbuffered (a SIGKILL loses none):
//
//	s UNIXNANO FIRST COUNT   a reservation's block
//	r UNIXNANO FIRST COUNT   a block recovered by its token
//	d UNIXNANO NS OK         a Describe began at UNIXNANO, took NS; OK 1 if it succeeded, else 0
type seqdLoggedStore struct {
	*dynamostore.Store
	mu sync.Mutex
	f  *os.File
}

func (s *seqdLoggedStore) log(kind byte, b sequence.Block) {
	line := fmt.Sprintf("%c %d %d %d\n", kind, time.Now().UnixNano(), b.First, b.Count)
	s.mu.Lock()
	s.f.WriteString(line)
	s.mu.Unlock()
}

func (s *seqdLoggedStore) Describe(ctx context.Context, name string) (sequence.Info, error) {
	start := time.Now()
	info, err := s.Store.Describe(ctx, name)
	ok := 1
	if err != nil {
		ok = 0
	}
	line := fmt.Sprintf("d %d %d %d\n", start.UnixNano(), time.Since(start), ok)
	s.mu.Lock()
	s.f.WriteString(line)
	s.mu.Unlock()
	return info, err
}

func (s *seqdLoggedStore) Reserve(ctx context.Context, name string, n int64) (sequence.Block, error) {
	b, err := s.Store.Reserve(ctx, name, n)
	if err == nil {
		s.log('s', b)
	}
	return b, err
}

func (s *seqdLoggedStore) ReserveToken(ctx context.Context, name string, n int64, tok sequence.Token) (sequence.Block, error) {
	b, err := s.Store.ReserveToken(ctx, name, n, tok)
	if err == nil {
		s.log('s', b)
	}
	return b, err
}

func (s *seqdLoggedStore) Recover(ctx context.Context, name string, tok sequence.Token) (sequence.Block, bool, error) {
	b, ok, err := s.Store.Recover(ctx, name, tok)
	if err == nil && ok {
		s.log('r', b)
	}
	return b, ok, err
}

// TestTortureSeqdClientChild is one client process of TestTortureSeqd,
// which starts it by running the test binary again; on its own it skips.
// Its goroutines draw values of one sequence from a seqcache over the
// client store (seqdstore, the service's two servers) and record each one;
// every block request to the service is timed and logged (seqdTimedStore).
// It stops when its stdin closes: its cache hands its unused values back.
func TestTortureSeqdClientChild(t *testing.T) {
	path, goroutines, pace, ctx := childSettings(t, "TestTortureSeqd", envSeqdClientRecord, envSeqdClientGoroutines, envSeqdClientPace, envSeqdClientLifetime)
	if s := os.Getenv(envSeqdClientNice); s != "" {
		n, err := strconv.Atoi(s)
		if err != nil {
			t.Fatal(err)
		}
		seqdNice(t, n)
	}
	buffer, err := time.ParseDuration(os.Getenv(envSeqdClientBuffer))
	if err != nil {
		t.Fatal(err)
	}
	minBlock, err := strconv.ParseInt(os.Getenv(envSeqdClientMinBlock), 10, 64)
	if err != nil {
		t.Fatal(err)
	}
	maxBlock, err := strconv.ParseInt(os.Getenv(envSeqdClientMaxBlock), 10, 64)
	if err != nil {
		t.Fatal(err)
	}
	flush, err := time.ParseDuration(os.Getenv(envSeqdClientFlush))
	if err != nil {
		t.Fatal(err)
	}
	st, err := seqdstore.Open(ctx, os.Getenv(envSeqdClientURL))
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	blocks, err := os.Create(strings.TrimSuffix(path, ".rec") + ".blk")
	if err != nil {
		t.Fatal(err)
	}
	defer blocks.Close()
	ts := &seqdTimedStore{Store: st, f: blocks}
	logger := slog.New(slog.NewTextHandler(os.Stderr, &slog.HandlerOptions{Level: slog.LevelWarn}))
	cache := seqcache.New(ts, func(o *seqcache.Options) {
		o.Buffer, o.MinBlock, o.MaxBlock = buffer, minBlock, maxBlock
		o.MaxWait, o.RefillTimeout = 3*time.Second, time.Second
		o.Logger = logger
	})
	h := cache.Handle(os.Getenv(envSeqdClientSeq))
	rec, err := torture.CreateRecorder(path)
	if err != nil {
		t.Fatal(err)
	}
	values, errs := torture.Draw(ctx, rec, torture.DrawOptions{Goroutines: goroutines, Pace: pace, Flush: flush}, h.Next)
	if err := rec.Close(); err != nil {
		t.Error(err)
	}
	// Close hands the unused values back to a server; logged, not failed.
	if err := cache.Close(); err != nil {
		t.Logf("close: %v", err)
	}
	t.Logf("%d values, %d errors", values, errs)
}

// seqdNice gives every thread of the process niceness n (threads started
// later inherit it): the clients of the load mode yield to the servers, as
// if these had cores of their own.
func seqdNice(t *testing.T, n int) {
	tasks, err := os.ReadDir("/proc/self/task")
	if err != nil {
		t.Logf("nice: %v", err)
		return
	}
	for _, task := range tasks {
		tid, err := strconv.Atoi(task.Name())
		if err != nil {
			continue
		}
		if err := syscall.Setpriority(syscall.PRIO_PROCESS, tid, n); err != nil {
			t.Logf("nice thread %d: %v", tid, err)
		}
	}
}

// seqdTimedStore is a client's store, timing and logging every block
// request, one line each, unbuffered (a SIGKILL loses none):
//
//	b UNIXNANO NS FIRST COUNT   a request began at UNIXNANO, took NS and got a block
//	f UNIXNANO NS               a request that failed
//	r UNIXNANO FIRST COUNT      a block recovered by its token
type seqdTimedStore struct {
	*seqdstore.Store
	mu sync.Mutex
	f  *os.File
}

func (s *seqdTimedStore) write(line string) {
	s.mu.Lock()
	s.f.WriteString(line)
	s.mu.Unlock()
}

func (s *seqdTimedStore) timed(start time.Time, b sequence.Block, err error) (sequence.Block, error) {
	d := time.Since(start)
	if err != nil {
		s.write(fmt.Sprintf("f %d %d\n", start.UnixNano(), d))
	} else {
		s.write(fmt.Sprintf("b %d %d %d %d\n", start.UnixNano(), d, b.First, b.Count))
	}
	return b, err
}

func (s *seqdTimedStore) Reserve(ctx context.Context, name string, n int64) (sequence.Block, error) {
	start := time.Now()
	b, err := s.Store.Reserve(ctx, name, n)
	return s.timed(start, b, err)
}

func (s *seqdTimedStore) ReserveToken(ctx context.Context, name string, n int64, tok sequence.Token) (sequence.Block, error) {
	start := time.Now()
	b, err := s.Store.ReserveToken(ctx, name, n, tok)
	return s.timed(start, b, err)
}

func (s *seqdTimedStore) Recover(ctx context.Context, name string, tok sequence.Token) (sequence.Block, bool, error) {
	b, ok, err := s.Store.Recover(ctx, name, tok)
	if err == nil && ok {
		s.write(fmt.Sprintf("r %d %d %d\n", time.Now().UnixNano(), b.First, b.Count))
	}
	return b, ok, err
}

// seqdBlock is a line of a block log (seqdLoggedStore's, seqdTimedStore's).
type seqdBlock struct {
	kind         byte          // 's' or 'b': reserved; 'r' recovered; 'f' failed; 'd' a server's Describe
	at           time.Time     // when it was received (or failed; a Describe: began)
	took         time.Duration // for a client's request, a Describe
	first, count int64
	ok           bool   // a Describe that succeeded
	src          string // the log's incarnation, e.g. s0-003
}

// readSeqdBlocks reads a block log; an unterminated last line (killed
// mid-write) is ignored.
func readSeqdBlocks(path string) ([]seqdBlock, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	src := strings.TrimSuffix(filepath.Base(path), filepath.Ext(path))
	var out []seqdBlock
	r := bufio.NewReader(f)
	for {
		line, err := r.ReadString('\n')
		if errors.Is(err, io.EOF) {
			return out, nil // a torn last line, or none
		}
		if err != nil {
			return nil, err
		}
		fs := strings.Fields(line)
		bad := fmt.Errorf("%s: malformed line %q", path, line)
		if len(fs) < 3 || len(fs[0]) != 1 {
			return nil, bad
		}
		n := make([]int64, len(fs)-1)
		for i, s := range fs[1:] {
			if n[i], err = strconv.ParseInt(s, 10, 64); err != nil {
				return nil, bad
			}
		}
		b := seqdBlock{kind: fs[0][0], src: src}
		switch {
		case (b.kind == 's' || b.kind == 'r') && len(n) == 3:
			b.at, b.first, b.count = time.Unix(0, n[0]), n[1], n[2]
		case b.kind == 'b' && len(n) == 4:
			b.took = time.Duration(n[1])
			b.at, b.first, b.count = time.Unix(0, n[0]).Add(b.took), n[2], n[3]
		case b.kind == 'd' && len(n) == 3:
			b.at, b.took, b.ok = time.Unix(0, n[0]), time.Duration(n[1]), n[2] == 1
		case b.kind == 'f' && len(n) == 2:
			b.took = time.Duration(n[1])
			b.at = time.Unix(0, n[0]).Add(b.took)
		default:
			return nil, bad
		}
		out = append(out, b)
	}
}
