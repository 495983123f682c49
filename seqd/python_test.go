package seqd_test

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/seqshim/seqshim/internal/testkit/testenv"
	"github.com/seqshim/seqshim/memstore"
	"github.com/seqshim/seqshim/seqcache"
	"github.com/seqshim/seqshim/seqd"
	"github.com/seqshim/seqshim/sequence"
)

// The client in another language: testdata/seqd_client.py, Python's
// standard library only, speaking HTTP/JSON to the service.
const pythonClient = "testdata/seqd_client.py"

// python3 returns the Python interpreter, or skips the test.
func python3(t *testing.T) string {
	t.Helper()
	p, err := exec.LookPath("python3")
	if err != nil {
		testenv.Skip(t, "python3 not available: "+err.Error())
	}
	return p
}

// runPython runs the Python client with args and returns its output.
func runPython(ctx context.Context, python string, args ...string) (string, error) {
	cmd := exec.CommandContext(ctx, python, append([]string{pythonClient}, args...)...)
	// The servers are on loopback: no proxy of the environment's.
	cmd.Env = append(os.Environ(), "no_proxy=*", "NO_PROXY=*")
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	if err := cmd.Run(); err != nil {
		return stdout.String(), fmt.Errorf("python3 %s %q: %v: %s", pythonClient, args, err, strings.TrimSpace(stderr.String()))
	}
	return stdout.String(), nil
}

// pyCredential is a credential that may reserve and administer everything.
func pyCredential(name string) (seqd.Credential, string) {
	tok := "py-" + name + "-" + sequence.NewToken().String()
	return seqd.Credential{Name: name, TokenSHA256: seqd.HashToken(tok), Prefixes: []string{""}, Ops: []string{"reserve", "admin"}}, tok
}

// TestPythonClient: Python processes and Go clients (the client store under
// a seqcache) draw from one counter through one server at the same time.
// No value is drawn twice, and every Python process gets every value it
// asked for.
func TestPythonClient(t *testing.T) {
	python := python3(t)
	ctx := t.Context()
	cred, tok := pyCredential("mixed")
	_, hs := serve(t, seqd.Config{Store: memstore.New(), Credentials: []seqd.Credential{cred},
		Cache: seqcache.Options{MinBlock: 100, MaxBlock: 2000}})
	spec := sequence.DefaultSpec()
	if err := open(t, storeURL(hs, tok)).Create(ctx, "orders_seq", spec, spec.Initial()); err != nil {
		t.Fatal(err)
	}

	const (
		pyProcs, pyRequests, pyCount = 4, 10, 37
		goClients, goEach            = 4, 3000
	)
	var (
		mu     sync.Mutex
		seen   = map[int64]string{}
		goN    int
		pyWG   sync.WaitGroup
		goWG   sync.WaitGroup
		pyDone = make(chan struct{})
	)
	record := func(who string, v int64) {
		mu.Lock()
		defer mu.Unlock()
		if prev, dup := seen[v]; dup {
			t.Errorf("value %d drawn by %s and by %s", v, prev, who)
		}
		seen[v] = who
	}
	for i := range pyProcs {
		who := fmt.Sprintf("python client %d", i)
		pyWG.Go(func() {
			out, err := runPython(ctx, python, hs.URL, tok, "orders_seq", strconv.Itoa(pyRequests), strconv.Itoa(pyCount))
			if err != nil {
				t.Error(err)
				return
			}
			lines := strings.Fields(out)
			if len(lines) != pyRequests*pyCount {
				t.Errorf("%s printed %d values, want %d×%d", who, len(lines), pyRequests, pyCount)
			}
			for _, l := range lines {
				v, err := strconv.ParseInt(l, 10, 64)
				if err != nil || v < 1 {
					t.Errorf("%s printed %q", who, l)
					continue
				}
				record(who, v)
			}
		})
	}
	for i := range goClients {
		who := fmt.Sprintf("go client %d", i)
		c := seqcache.New(open(t, storeURL(hs, tok)), func(o *seqcache.Options) { o.MinBlock = 10; o.MaxBlock = 50 })
		// At least goEach values, and on while the Python clients draw
		// (pausing now and then, so as not to draw millions).
		goWG.Go(func() {
			defer c.Close()
			n := 0
			defer func() { mu.Lock(); goN += n; mu.Unlock() }()
			for ; ; n++ {
				if n >= goEach {
					select {
					case <-pyDone:
						return
					default:
					}
					if n%20 == 0 {
						time.Sleep(time.Millisecond)
					}
				}
				v, err := c.Next(ctx, "orders_seq")
				if err != nil {
					t.Errorf("%s: %v", who, err)
					return
				}
				record(who, v)
			}
		})
	}
	pyWG.Wait()
	close(pyDone)
	goWG.Wait()
	t.Logf("%d values to %d Python processes, %d to %d Go clients", pyProcs*pyRequests*pyCount, pyProcs, goN, goClients)
	if want := pyProcs*pyRequests*pyCount + goN; len(seen) != want {
		t.Errorf("%d distinct values drawn, want %d", len(seen), want)
	}
}

// TestPythonClientRetry: a Python client that sends a reservation again
// with the same attempt token (its answer lost) gets the same block, not a
// second one; a request with an unknown token is refused with a reason.
func TestPythonClientRetry(t *testing.T) {
	python := python3(t)
	ctx := t.Context()
	st := memstore.New()
	spec := sequence.DefaultSpec()
	if err := st.Create(ctx, "orders_seq", spec, spec.Initial()); err != nil {
		t.Fatal(err)
	}
	cred, tok := pyCredential("retry")
	_, hs := serve(t, seqd.Config{Store: st, Credentials: []seqd.Credential{cred}, Cache: seqcache.Options{MinBlock: 100}})

	out, err := runPython(ctx, python, "--retry", hs.URL, tok, "orders_seq", "25")
	if err != nil {
		t.Fatal(err)
	}
	answers := strings.Split(strings.TrimSpace(out), "\n")
	if len(answers) != 2 {
		t.Fatalf("--retry printed %q, want two answers", out)
	}
	var want []string
	for v := range 25 {
		want = append(want, strconv.Itoa(v+1))
	}
	if answers[0] != strings.Join(want, " ") {
		t.Errorf("the first answer: %q, want 1…25", answers[0])
	}
	if answers[1] != answers[0] {
		t.Errorf("the retry got %q, want the same block %q", answers[1], answers[0])
	}
	// The retry took nothing: the next reservation goes on from 26.
	b, err := open(t, storeURL(hs, tok)).Reserve(ctx, "orders_seq", 5)
	if err != nil || b.First != 26 {
		t.Errorf("the next block: %+v, %v; want from 26", b, err)
	}

	// Two ordinary requests draw the next values.
	out, err = runPython(ctx, python, hs.URL, tok, "orders_seq", "2", "3")
	if err != nil {
		t.Fatal(err)
	}
	if got := strings.Join(strings.Fields(out), " "); got != "31 32 33 34 35 36" {
		t.Errorf("two requests of 3: %q, want 31…36", got)
	}

	_, err = runPython(ctx, python, hs.URL, "not-a-token", "orders_seq", "1", "1")
	if err == nil || !strings.Contains(err.Error(), "HTTP 401") || !strings.Contains(err.Error(), "unknown bearer token") {
		t.Errorf("an unknown token: %v, want HTTP 401 with the reason", err)
	}
}
