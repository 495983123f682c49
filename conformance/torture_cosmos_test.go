package conformance_test

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"net/http/httputil"
	"net/url"
	"os"
	"path/filepath"
	"strconv"
	"sync/atomic"
	"testing"
	"time"

	"github.com/seqshim/seqshim/cosmosstore"
	"github.com/seqshim/seqshim/internal/engine"
	"github.com/seqshim/seqshim/internal/testkit/testenv"
	"github.com/seqshim/seqshim/sequence"
)

// envTortureCosmosDuration is how long TestTortureCosmos draws values
// (default 20s; 10s with -short); the other knobs are TestTorture's.
const envTortureCosmosDuration = "SEQSHIM_TORTURE_COSMOS_DURATION"

// TestTortureCosmos is TestTorture on a Cosmos DB container of the emulator:
// the same children, kills, fault proxy and checks, the children's store a
// cosmos+http:// URL through the proxy (signed with the emulator's key,
// $AZURE_COSMOS_KEY, which TestMain sets and the children inherit). Its
// summary lines add up the children's store counts: requests, writes that
// lost a race (412 Precondition Failed, read again and retried), throttled
// requests (429) and request units.
//
// The proxy tells which of the reservations whose answers it dropped the
// store applied only for DynamoDB's requests: here the lines report the
// values wasted, not those reservations.
func TestTortureCosmos(t *testing.T) {
	pg := testenv.PG(t)
	testenv.Cosmos(t)
	modes, duration, seed := tortureSchedule(t, envTortureCosmosDuration, 20*time.Second, 10*time.Second)
	for _, mode := range modes {
		t.Run("recovery "+mode, func(t *testing.T) {
			c := testenv.NewCosmosContainer(t) // the store on it talks to the emulator directly, not through a proxy
			store, err := c.Store()
			if err != nil {
				t.Fatal(err)
			}
			front := startCosmosFront(t, c.Endpoint)
			tortureRun(t, pg, tortureStore{
				name:     "cosmos",
				store:    store,
				upstream: front.URL,
				url: func(proxyURL string) string {
					front.advertise(proxyURL)
					return testenv.CosmosContainer{Endpoint: proxyURL, Database: c.Database, Container: c.Container}.URL("")
				},
				stats: true,
			}, mode, duration, seed)
		})
	}
}

// cosmosFront is an HTTP reverse proxy to the emulator that makes a client
// stay behind the fault proxy. The Azure SDK reads the account's
// properties (GET /) and sends every later request to the regional
// endpoint they name, keeping only its host: the emulator names itself
// (https://127.0.0.1:PORT/, its own port whatever the Host header said),
// so through the fault proxy alone nothing but that first read would go
// through the proxy. The front, between the fault proxy and the emulator,
// rewrites the endpoints of that answer to the fault proxy's address, and
// forwards everything else unchanged.
type cosmosFront struct {
	*httptest.Server
	proxy atomic.Pointer[string] // the host the account's endpoints are rewritten to
}

// startCosmosFront starts a front to the emulator at endpoint, closed when
// the test ends.
func startCosmosFront(t *testing.T, endpoint string) *cosmosFront {
	t.Helper()
	target, err := url.Parse(endpoint)
	if err != nil {
		t.Fatal(err)
	}
	f := &cosmosFront{}
	rp := &httputil.ReverseProxy{
		Rewrite: func(r *httputil.ProxyRequest) {
			r.SetURL(target)
			r.Out.Host = r.In.Host
			if isAccountRead(r.Out) {
				r.Out.Header.Del("Accept-Encoding") // an answer it can rewrite
			}
		},
		ModifyResponse: f.rewrite,
	}
	rp.Transport = &http.Transport{MaxIdleConnsPerHost: 64, IdleConnTimeout: 30 * time.Second}
	f.Server = httptest.NewServer(rp)
	t.Cleanup(f.Close)
	return f
}

// advertise makes the account's endpoints the fault proxy's, at proxyURL.
func (f *cosmosFront) advertise(proxyURL string) {
	u, _ := url.Parse(proxyURL)
	f.proxy.Store(&u.Host)
}

// isAccountRead reports whether r reads the account's properties.
func isAccountRead(r *http.Request) bool {
	return r.Method == http.MethodGet && (r.URL.Path == "/" || r.URL.Path == "")
}

// rewrite points the endpoints of an account read's answer at the fault
// proxy.
func (f *cosmosFront) rewrite(resp *http.Response) error {
	host := f.proxy.Load()
	if !isAccountRead(resp.Request) || resp.StatusCode != http.StatusOK || host == nil {
		return nil
	}
	body, err := io.ReadAll(resp.Body)
	resp.Body.Close()
	if err != nil {
		return err
	}
	var account map[string]any
	if err := json.Unmarshal(body, &account); err != nil {
		return fmt.Errorf("cosmos front: the account's properties: %w", err)
	}
	for _, k := range []string{"writableLocations", "readableLocations"} {
		locs, _ := account[k].([]any)
		for _, l := range locs {
			if loc, ok := l.(map[string]any); ok {
				loc["databaseAccountEndpoint"] = "http://" + *host + "/"
			}
		}
	}
	if body, err = json.Marshal(account); err != nil {
		return err
	}
	resp.Body = io.NopCloser(bytes.NewReader(body))
	resp.ContentLength = int64(len(body))
	resp.Header.Set("Content-Length", strconv.Itoa(len(body)))
	resp.Header.Del("Content-Encoding")
	return nil
}

// tortureChildStats keeps the Cosmos DB store the driver of a child opens
// (through engine.OpenStore) and writes its request counts
// (cosmosstore.Store.Stats) to path, as "REQUESTS CONFLICTS THROTTLES RU":
// every 100ms until ctx ends (a SIGKILL loses the counts of the last 100ms
// at most), and once more when the function it returns is called (at the
// end, once the database handle is closed). Other stores are not counted.
func tortureChildStats(t *testing.T, ctx context.Context, path string) (final func()) {
	var st atomic.Pointer[cosmosstore.Store]
	open := engine.OpenStore
	engine.OpenStore = func(ctx context.Context, rawurl string) (sequence.Store, error) {
		s, err := open(ctx, rawurl)
		if c, ok := s.(*cosmosstore.Store); ok {
			st.Store(c)
		}
		return s, err
	}
	t.Cleanup(func() { engine.OpenStore = open })
	write := func() {
		c := st.Load()
		if c == nil {
			return
		}
		s := c.Stats()
		tmp := path + ".tmp"
		line := fmt.Sprintf("%d %d %d %.3f\n", s.Requests, s.Conflicts, s.Throttles, s.RequestUnits)
		if err := os.WriteFile(tmp, []byte(line), 0o644); err == nil {
			os.Rename(tmp, path)
		}
	}
	stop, done := make(chan struct{}), make(chan struct{})
	go func() {
		defer close(done)
		tick := time.NewTicker(100 * time.Millisecond)
		defer tick.Stop()
		for {
			select {
			case <-ctx.Done():
				return
			case <-stop:
				return
			case <-tick.C:
				write()
			}
		}
	}()
	return func() {
		close(stop)
		<-done
		write()
	}
}

// readTortureStats adds up the request counts the children wrote under dir
// (tortureChildStats), and tells how many stores they are of.
func readTortureStats(dir string) (cosmosstore.Stats, int, error) {
	files, err := filepath.Glob(filepath.Join(dir, "*.stats"))
	if err != nil {
		return cosmosstore.Stats{}, 0, err
	}
	var sum cosmosstore.Stats
	for _, f := range files {
		b, err := os.ReadFile(f)
		if err != nil {
			return cosmosstore.Stats{}, 0, err
		}
		var s cosmosstore.Stats
		if _, err := fmt.Sscanf(string(b), "%d %d %d %g", &s.Requests, &s.Conflicts, &s.Throttles, &s.RequestUnits); err != nil {
			return cosmosstore.Stats{}, 0, fmt.Errorf("%s: %q: %w", f, b, err)
		}
		sum.Requests += s.Requests
		sum.Conflicts += s.Conflicts
		sum.Throttles += s.Throttles
		sum.RequestUnits += s.RequestUnits
	}
	return sum, len(files), nil
}
