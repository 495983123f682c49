// Command prometheus shows what an operator sees of seqshim: the cache's
// OpenTelemetry instruments exported with the Prometheus exporter and
// scraped over HTTP, and its logs, through a store outage and the recovery.
//
//	cd examples/prometheus && go run .          # prints the logs and the scrape
//	cd examples/prometheus && go run . -serve   # then keeps serving /metrics
//
// The application database is a SQLite file in a temporary directory; the
// sequence store is the in-process memory: store behind a switch that makes
// it fail, as DynamoDB does when it is unavailable. It is a module of its
// own (examples/prometheus/go.mod), so that the OpenTelemetry SDK and the
// Prometheus client never enter seqshim's go.mod: seqshim itself depends on
// the OpenTelemetry metric API only.
package main

import (
	"bufio"
	"context"
	"database/sql"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"os"
	"os/signal"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/promhttp"
	otelprom "go.opentelemetry.io/otel/exporters/prometheus"
	sdkmetric "go.opentelemetry.io/otel/sdk/metric"
	"modernc.org/sqlite"

	"github.com/seqshim/seqshim/driver"
	"github.com/seqshim/seqshim/memstore"
	"github.com/seqshim/seqshim/sequence"
)

func main() {
	addr := flag.String("listen", "127.0.0.1:9464", "address of the /metrics endpoint")
	serve := flag.Bool("serve", false, "keep serving /metrics after the run, until interrupted")
	flag.Parse()
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt)
	defer stop()
	if err := run(ctx, os.Stdout, *addr, *serve); err != nil {
		fmt.Fprintln(os.Stderr, "prometheus:", err)
		os.Exit(1)
	}
}

func run(ctx context.Context, w io.Writer, addr string, serve bool) error {
	w = &lockedWriter{w: w} // the cache logs from its own goroutines
	// The OpenTelemetry SDK with the Prometheus exporter as its reader, on
	// a registry of its own, served at /metrics.
	registry := prometheus.NewRegistry()
	// (Without the target_info series and the otel_scope_* labels, to keep
	// the printout short.)
	exporter, err := otelprom.New(otelprom.WithRegisterer(registry), otelprom.WithoutTargetInfo(), otelprom.WithoutScopeInfo())
	if err != nil {
		return err
	}
	mp := sdkmetric.NewMeterProvider(sdkmetric.WithReader(exporter))
	defer mp.Shutdown(context.Background())
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		return err
	}
	srv := &http.Server{Handler: promhttp.HandlerFor(registry, promhttp.HandlerOpts{}), ReadHeaderTimeout: 5 * time.Second}
	go srv.Serve(ln)
	defer srv.Close()
	metricsURL := "http://" + ln.Addr().String() + "/metrics"

	// Logs as text, without the time so that runs compare.
	logger := slog.New(slog.NewTextHandler(w, &slog.HandlerOptions{
		ReplaceAttr: func(groups []string, a slog.Attr) slog.Attr {
			if a.Key == slog.TimeKey && len(groups) == 0 {
				return slog.Attr{}
			}
			return a
		},
	}))

	dir, err := os.MkdirTemp("", "seqshim-prometheus-")
	if err != nil {
		return err
	}
	defer os.RemoveAll(dir)
	app, err := sqlite.NewConnector("file:" + filepath.Join(dir, "app.db"))
	if err != nil {
		return err
	}
	store := &switchable{Store: memstore.New()}
	connector, err := driver.NewConnector(app, func(o *driver.Options) {
		o.Store = store
		o.MeterProvider = mp // default: otel.GetMeterProvider()
		o.Logger = logger    // default: slog.Default()
		// Small figures, so that the outage shows within a second.
		o.Buffer = 200 * time.Millisecond
		o.MinBlock, o.MaxBlock = 100, 1000
		o.MaxWait = time.Second
	})
	if err != nil {
		return err
	}
	db := sql.OpenDB(connector)
	defer db.Close()
	for _, stmt := range []string{
		"CREATE SEQUENCE orders_seq",
		"CREATE TABLE orders (id INTEGER PRIMARY KEY, item TEXT NOT NULL)",
	} {
		if _, err := db.ExecContext(ctx, stmt); err != nil {
			return fmt.Errorf("%s: %w", stmt, err)
		}
	}
	insert := func() error {
		_, err := db.ExecContext(ctx, "INSERT INTO orders (id, item) VALUES (nextval('orders_seq'), 'widget')")
		return err
	}

	inserted := 0
	for range 500 {
		if err := insert(); err != nil {
			return err
		}
		inserted++
	}
	fmt.Fprintf(w, "inserted %d orders\n", inserted)

	// The outage: the cache keeps serving what it holds, then nextval
	// fails after seqshim.max_wait.
	store.down.Store(true)
	fmt.Fprintln(w, "store down")
	during := 0
	for {
		err := insert()
		if err != nil {
			fmt.Fprintf(w, "inserted %d orders from the cache, then: %v\n", during, err)
			break
		}
		during++
		inserted++
	}

	// The recovery: the application retries; the cache refills by itself.
	store.down.Store(false)
	fmt.Fprintln(w, "store up")
	for retries := 0; ; retries++ {
		err := insert()
		if err == nil {
			inserted++
			break
		}
		if retries == 10 {
			return fmt.Errorf("no recovery: %w", err)
		}
	}
	fmt.Fprintf(w, "inserted %d orders in all\n", inserted)

	scrape, err := get(ctx, metricsURL)
	if err != nil {
		return err
	}
	if !serve {
		// Close waits for the cache's background refills, and so for their
		// logs (the recovery's is written once the caller has its value).
		db.Close()
	}
	fmt.Fprintf(w, "\nGET %s (seqshim's series; histogram buckets left out):\n", metricsURL)
	sc := bufio.NewScanner(strings.NewReader(scrape))
	for sc.Scan() {
		line := sc.Text()
		name := strings.TrimPrefix(strings.TrimPrefix(line, "# HELP "), "# TYPE ")
		if strings.HasPrefix(name, "seqshim_") && !strings.Contains(line, "_bucket{") {
			fmt.Fprintln(w, line)
		}
	}

	if serve {
		fmt.Fprintf(w, "\nserving %s until interrupted\n", metricsURL)
		<-ctx.Done()
	}
	return nil
}

// get returns the body of a GET of url.
func get(ctx context.Context, url string) (string, error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, url, nil)
	if err != nil {
		return "", err
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		return "", err
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	if err == nil && resp.StatusCode != http.StatusOK {
		err = fmt.Errorf("GET %s: %s", url, resp.Status)
	}
	return string(b), err
}

// lockedWriter serialises writes to w.
type lockedWriter struct {
	mu sync.Mutex // protects w
	w  io.Writer
}

func (l *lockedWriter) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.w.Write(p)
}

// switchable is a store that fails while down, with the error DynamoDB
// gives when it is unavailable.
type switchable struct {
	*memstore.Store
	down atomic.Bool
}

// errUnavailable carries an AWS-style error code, which seqshim reports as
// the error.type of seqshim.store.errors.
var errUnavailable = apiError("ServiceUnavailable")

type apiError string

func (e apiError) Error() string     { return "api error " + string(e) + ": the store is down" }
func (e apiError) ErrorCode() string { return string(e) }

func (s *switchable) Reserve(ctx context.Context, name string, n int64) (sequence.Block, error) {
	if s.down.Load() {
		return sequence.Block{}, errUnavailable
	}
	return s.Store.Reserve(ctx, name, n)
}
