package main

import (
	"bytes"
	"context"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/tls"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/json"
	"encoding/pem"
	"errors"
	"io"
	"math/big"
	"net"
	"net/http"
	"net/url"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"connectrpc.com/connect"

	"github.com/seqshim/seqshim/memstore"
	"github.com/seqshim/seqshim/seqd"
	"github.com/seqshim/seqshim/seqd/seqdv1"
	"github.com/seqshim/seqshim/seqd/seqdv1/seqdv1connect"
	"github.com/seqshim/seqshim/seqdstore"
	"github.com/seqshim/seqshim/sequence"
)

// env is a getenv over a map.
func env(m map[string]string) func(string) string {
	return func(k string) string { return m[k] }
}

// TestConfigErrors: a configuration seqd cannot serve safely is refused
// before anything opens, with an error that says what to give.
func TestConfigErrors(t *testing.T) {
	dir := t.TempDir()
	creds := filepath.Join(dir, "creds.json")
	for _, tc := range []struct {
		name string
		args []string
		env  map[string]string
		want string
	}{
		{"no store", []string{"--insecure", "--open"}, nil, "no store: give --store URL or SEQSHIM_STORE"},
		{"no credentials", []string{"--store", "memory:cfg", "--insecure"}, nil, "no credentials: give --credentials FILE"},
		{"no credentials, store from the environment", []string{"--insecure"}, map[string]string{"SEQSHIM_STORE": "memory:cfg"}, "no credentials"},
		{"--open without --insecure", []string{"--store", "memory:cfg", "--open", "--tls-cert", "c.pem", "--tls-key", "k.pem"}, nil,
			"--open serves everyone everything: only with --insecure on a loopback --listen address"},
		{"--open on a wildcard address", []string{"--store", "memory:cfg", "--insecure", "--open", "--listen", "0.0.0.0:7443"}, nil,
			"only with --insecure on a loopback --listen address"},
		{"--open on a LAN address", []string{"--store", "memory:cfg", "--insecure", "--open", "--listen", "10.1.2.3:7443"}, nil,
			"only with --insecure on a loopback --listen address"},
		{"--open on a host name", []string{"--store", "memory:cfg", "--insecure", "--open", "--listen", "seqd.internal:7443"}, nil,
			"only with --insecure on a loopback --listen address"},
		{"--open on a non-loopback address from the environment", nil,
			map[string]string{"SEQSHIM_STORE": "memory:cfg", "SEQD_INSECURE": "true", "SEQD_OPEN": "1", "SEQD_LISTEN": ":7443"},
			"only with --insecure on a loopback --listen address"},
		{"--open and --credentials", []string{"--store", "memory:cfg", "--insecure", "--open", "--credentials", creds}, nil,
			"--open and --credentials together"},
		{"TLS without a certificate", []string{"--store", "memory:cfg", "--credentials", creds}, nil,
			"TLS needs --tls-cert and --tls-key (or --insecure"},
		{"TLS without a key", []string{"--store", "memory:cfg", "--credentials", creds, "--tls-cert", "c.pem"}, nil,
			"TLS needs --tls-cert and --tls-key"},
		{"TLS without a certificate, key from the environment", []string{"--store", "memory:cfg", "--credentials", creds},
			map[string]string{"SEQD_TLS_KEY": "k.pem"}, "TLS needs --tls-cert and --tls-key"},
		{"an argument", []string{"--store", "memory:cfg", "--insecure", "--open", "serve"}, nil, `unexpected argument "serve"`},
		{"an unknown flag", []string{"--stor", "memory:cfg"}, nil, "flag provided but not defined: -stor"},
		{"token without a name", []string{"token", "--admin"}, nil, "usage: seqd token NAME"},
		{"token with two names", []string{"token", "a", "b"}, nil, "usage: seqd token NAME"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var stdout, stderr bytes.Buffer
			ready := func(string, string) { t.Error("seqd listened") }
			err := run(t.Context(), tc.args, env(tc.env), &stdout, &stderr, ready)
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("run(%q) = %v, want an error containing %q", tc.args, err, tc.want)
			}
			if stdout.Len() > 0 {
				t.Errorf("stdout: %q", stdout.String())
			}
		})
	}
}

// TestFlagsOverEnvironment: a flag given wins over its variable, a variable
// over the default.
func TestFlagsOverEnvironment(t *testing.T) {
	e := map[string]string{"SEQSHIM_STORE": "memory:env", "SEQD_LISTEN": "0.0.0.0:1", "SEQD_OPS_LISTEN": "127.0.0.1:2",
		"SEQD_INSECURE": "1", "SEQD_OPEN": "true", "SEQD_BUFFER": "3s", "SEQD_MIN_BLOCK": "7", "SEQD_TOKEN_TTL": "1m"}
	c, err := parseFlags([]string{"--listen", "127.0.0.1:0", "--min-block", "9"}, env(e), io.Discard)
	if err != nil {
		t.Fatal(err)
	}
	want := config{listen: "127.0.0.1:0", opsListen: "127.0.0.1:2", store: "memory:env", insecure: true, open: true,
		buffer: 3 * time.Second, minBlock: 9, tokenTTL: time.Minute, shutdownGrace: 20 * time.Second}
	if c != want {
		t.Errorf("config %+v\nwant   %+v", c, want)
	}
	c, err = parseFlags([]string{"--store", "memory:flag", "--insecure", "--open"}, env(nil), io.Discard)
	if err != nil {
		t.Fatal(err)
	}
	if c.listen != "127.0.0.1:7443" || c.opsListen != "127.0.0.1:7444" || c.store != "memory:flag" || c.tokenTTL != 10*time.Minute {
		t.Errorf("defaults: %+v", c)
	}
}

// token runs 'seqd token args…' and returns the token and its entry.
func newToken(t *testing.T, args ...string) (string, seqd.Credential) {
	t.Helper()
	var stdout bytes.Buffer
	if err := run(t.Context(), append([]string{"token"}, args...), env(nil), &stdout, io.Discard, nil); err != nil {
		t.Fatalf("seqd token %q: %v", args, err)
	}
	head, entry, ok := strings.Cut(stdout.String(), "\n\ncredentials entry:\n")
	lines := strings.Split(head, "\n")
	if !ok || len(lines) != 2 || !strings.HasPrefix(lines[0], "token ") {
		t.Fatalf("seqd token %q printed:\n%s", args, stdout.String())
	}
	var c seqd.Credential
	dec := json.NewDecoder(strings.NewReader(entry))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&c); err != nil {
		t.Fatalf("seqd token %q: the credentials entry: %v\n%s", args, err, entry)
	}
	return lines[1], c
}

// TestToken: 'seqd token' prints a fresh token and the entry that allows
// it, keeping only its hash; flags come before or after the name.
func TestToken(t *testing.T) {
	tok, c := newToken(t, "billing", "--prefix", "p_", "--admin")
	if len(tok) < 40 || strings.ContainsAny(tok, " \t\n+/=") {
		t.Errorf("token %q: want 32 random bytes, URL-safe", tok)
	}
	want := seqd.Credential{Name: "billing", TokenSHA256: seqd.HashToken(tok), Prefixes: []string{"p_"}, Ops: []string{"reserve", "admin"}}
	if c.Name != want.Name || c.TokenSHA256 != want.TokenSHA256 || !slices.Equal(c.Prefixes, want.Prefixes) || !slices.Equal(c.Ops, want.Ops) {
		t.Errorf("entry %+v, want %+v", c, want)
	}
	tok2, c2 := newToken(t, "--prefix", "p_", "reader")
	if tok2 == tok || c2.TokenSHA256 != seqd.HashToken(tok2) || c2.Name != "reader" || !slices.Equal(c2.Ops, []string{"reserve"}) || !slices.Equal(c2.Prefixes, []string{"p_"}) {
		t.Errorf("second token %q: %+v", tok2, c2)
	}
	_, c3 := newToken(t, "all")
	if !slices.Equal(c3.Prefixes, []string{""}) || !slices.Equal(c3.Ops, []string{"reserve"}) {
		t.Errorf("default entry: %+v, want every name, reserve only", c3)
	}
	// The entries make a credentials file seqd loads.
	f := filepath.Join(t.TempDir(), "creds.json")
	b, _ := json.Marshal([]seqd.Credential{c, c2, c3})
	if err := os.WriteFile(f, b, 0o600); err != nil {
		t.Fatal(err)
	}
	loaded, err := seqd.LoadCredentials(f)
	if err != nil || len(loaded) != 3 {
		t.Fatalf("LoadCredentials: %v, %v", loaded, err)
	}
	if _, err := seqd.New(seqd.Config{Store: memstore.New(), Credentials: loaded}); err != nil {
		t.Errorf("a server with the entries: %v", err)
	}
}

// selfSigned writes a self-signed certificate for 127.0.0.1 and its key to
// dir.
func selfSigned(t *testing.T, dir string) (certFile, keyFile string, pool *x509.CertPool) {
	t.Helper()
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	tmpl := &x509.Certificate{
		SerialNumber:          big.NewInt(time.Now().UnixNano()),
		Subject:               pkix.Name{CommonName: "seqd test"},
		NotBefore:             time.Now().Add(-time.Hour),
		NotAfter:              time.Now().Add(time.Hour),
		KeyUsage:              x509.KeyUsageDigitalSignature | x509.KeyUsageCertSign,
		ExtKeyUsage:           []x509.ExtKeyUsage{x509.ExtKeyUsageServerAuth},
		BasicConstraintsValid: true,
		IsCA:                  true,
		IPAddresses:           []net.IP{net.IPv4(127, 0, 0, 1)},
	}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, tmpl, &key.PublicKey, key)
	if err != nil {
		t.Fatal(err)
	}
	kder, err := x509.MarshalPKCS8PrivateKey(key)
	if err != nil {
		t.Fatal(err)
	}
	certFile, keyFile = filepath.Join(dir, "cert.pem"), filepath.Join(dir, "key.pem")
	if err := os.WriteFile(certFile, pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: der}), 0o600); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(keyFile, pem.EncodeToMemory(&pem.Block{Type: "PRIVATE KEY", Bytes: kder}), 0o600); err != nil {
		t.Fatal(err)
	}
	cert, err := x509.ParseCertificate(der)
	if err != nil {
		t.Fatal(err)
	}
	pool = x509.NewCertPool()
	pool.AddCert(cert)
	return certFile, keyFile, pool
}

// syncBuffer is seqd's log, written while the test reads nothing.
type syncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (s *syncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *syncBuffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}

// instance is seqd running in the test.
type instance struct {
	api, ops string
	stop     context.CancelFunc
	done     chan error
	log      *syncBuffer
}

// start runs seqd with args and waits until it listens.
func start(t *testing.T, args ...string) *instance {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	in := &instance{stop: cancel, done: make(chan error, 1), log: &syncBuffer{}}
	ready := make(chan [2]string, 1)
	go func() {
		in.done <- run(ctx, args, env(nil), io.Discard, in.log, func(api, ops string) { ready <- [2]string{api, ops} })
	}()
	t.Cleanup(func() {
		cancel()
		select {
		case <-in.done:
		case <-time.After(30 * time.Second):
			t.Error("seqd did not stop")
		}
	})
	select {
	case a := <-ready:
		in.api, in.ops = a[0], a[1]
	case err := <-in.done:
		t.Fatalf("seqd %q: %v\n%s", args, err, in.log)
	case <-time.After(30 * time.Second):
		t.Fatalf("seqd %q did not listen\n%s", args, in.log)
	}
	return in
}

// shutdown stops seqd as a signal does and returns what run returned.
func (in *instance) shutdown(t *testing.T) error {
	t.Helper()
	in.stop()
	select {
	case err := <-in.done:
		in.done <- err // for the cleanup
		return err
	case <-time.After(30 * time.Second):
		t.Fatalf("seqd did not stop\n%s", in.log)
		return nil
	}
}

func clientStore(t *testing.T, token, addr, ca string) *seqdstore.Store {
	t.Helper()
	st, err := seqdstore.Open(t.Context(), "seqd://:"+url.PathEscape(token)+"@"+addr+"?ca="+url.QueryEscape(ca))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { st.Close() })
	return st
}

// TestServe runs seqd as deployed: TLS with a certificate of the test's, a
// credentials file of 'seqd token' entries, a memory store. Clients create
// a counter and draw from it over TLS, through the Go client store and
// over gRPC; the ops address answers; a shutdown is clean and hands the
// unused values back, so a new seqd on the store goes on from the last
// value a client got.
func TestServe(t *testing.T) {
	ctx := t.Context()
	dir := t.TempDir()
	certFile, keyFile, pool := selfSigned(t, dir)
	adminTok, adminCred := newToken(t, "ops", "--admin")
	appTok, appCred := newToken(t, "app", "--prefix", "app_")
	credFile := filepath.Join(dir, "credentials.json")
	b, err := json.MarshalIndent([]seqd.Credential{adminCred, appCred}, "", "  ")
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(credFile, b, 0o600); err != nil {
		t.Fatal(err)
	}
	storeURL := "memory:seqd-cmd-" + sequence.NewToken().String()
	args := []string{"--listen", "127.0.0.1:0", "--ops-listen", "127.0.0.1:0", "--store", storeURL,
		"--credentials", credFile, "--tls-cert", certFile, "--tls-key", keyFile, "--shutdown-grace", "5s"}
	in := start(t, args...)

	// Administration needs the admin credential; drawing, the reserve one.
	admin := clientStore(t, adminTok, in.api, certFile)
	app := clientStore(t, appTok, in.api, certFile)
	spec := sequence.DefaultSpec()
	if err := app.Create(ctx, "app_orders", spec, spec.Initial()); !errors.Is(err, sequence.ErrMisconfigured) {
		t.Errorf("a reserve-only credential creates: %v, want refused", err)
	}
	if err := admin.Create(ctx, "app_orders", spec, spec.Initial()); err != nil {
		t.Fatalf("create over TLS: %v", err)
	}
	if err := admin.Create(ctx, "billing_invoices", spec, spec.Initial()); err != nil {
		t.Fatal(err)
	}
	if _, err := app.Reserve(ctx, "billing_invoices", 1); !errors.Is(err, sequence.ErrMisconfigured) {
		t.Errorf("app reserves outside its prefix: %v, want refused", err)
	}
	seen := map[int64]bool{}
	var last int64
	take := func(b sequence.Block, want int64, how string) {
		t.Helper()
		if b.Count < 1 || b.Count > want || b.Step != 1 {
			t.Fatalf("%s: block %+v for %d values", how, b, want)
		}
		for i := range b.Count {
			v := b.First + i*b.Step
			if seen[v] {
				t.Errorf("%s: value %d drawn twice", how, v)
			}
			seen[v] = true
			last = max(last, v)
		}
	}
	for i := range 20 {
		n := int64(1 + i%7)
		b, err := app.Reserve(ctx, "app_orders", n)
		if err != nil {
			t.Fatalf("reserve over TLS: %v", err)
		}
		take(b, n, "client store")
	}
	if err := sequence.Check(ctx, app); err != nil {
		t.Errorf("Check: %v", err)
	}
	bad := clientStore(t, "not-a-token", in.api, certFile)
	if _, err := bad.Reserve(ctx, "app_orders", 1); !errors.Is(err, sequence.ErrMisconfigured) {
		t.Errorf("an unknown token reserves: %v, want refused", err)
	}

	// gRPC (HTTP/2 only) through TLS, with the generated client.
	protocols := new(http.Protocols)
	protocols.SetHTTP2(true)
	h2 := &http.Client{Transport: &http.Transport{TLSClientConfig: &tls.Config{RootCAs: pool}, Protocols: protocols}}
	defer h2.CloseIdleConnections()
	grpc := seqdv1connect.NewSequenceServiceClient(h2, "https://"+in.api, connect.WithGRPC())
	req := connect.NewRequest(&seqdv1.ReserveRequest{Name: "app_orders", Count: 5, Token: sequence.NewToken().String()})
	if _, err := grpc.Reserve(ctx, req); connect.CodeOf(err) != connect.CodeUnauthenticated {
		t.Errorf("gRPC without a token: %v, want Unauthenticated", err)
	}
	req.Header().Set("Authorization", "Bearer "+appTok)
	res, err := grpc.Reserve(ctx, req)
	if err != nil {
		t.Fatalf("gRPC Reserve: %v", err)
	}
	if ct := res.Header().Get("Content-Type"); !strings.HasPrefix(ct, "application/grpc") {
		t.Errorf("gRPC answer of content type %q", ct)
	}
	gb := res.Msg.GetBlock()
	take(sequence.Block{First: gb.GetFirst(), Step: gb.GetStep(), Count: gb.GetCount()}, 5, "gRPC")
	// A client without the CA does not trust the server.
	untrusting := seqdv1connect.NewSequenceServiceClient(&http.Client{}, "https://"+in.api, connect.WithGRPC())
	if _, err := untrusting.Check(ctx, connect.NewRequest(&seqdv1.CheckRequest{})); err == nil || !strings.Contains(err.Error(), "certificate") {
		t.Errorf("a client without the CA: %v, want a certificate error", err)
	}

	// The ops address: plain HTTP, health and status.
	get := func(path string) (int, string) {
		t.Helper()
		res, err := http.Get("http://" + in.ops + path)
		if err != nil {
			t.Fatal(err)
		}
		defer res.Body.Close()
		b, _ := io.ReadAll(res.Body)
		return res.StatusCode, string(b)
	}
	if c, body := get("/healthz"); c != 200 || strings.TrimSpace(body) != "ok" {
		t.Errorf("/healthz: %d %q", c, body)
	}
	if c, body := get("/readyz"); c != 200 || strings.TrimSpace(body) != "ready" {
		t.Errorf("/readyz: %d %q", c, body)
	}
	if c, body := get("/status.json"); c != 200 || !strings.Contains(body, "app_orders") {
		t.Errorf("/status.json: %d %.200q", c, body)
	}

	// A clean shutdown: run returns nil, the listeners close, and the store
	// stands at the last value a client got. (The clients hang up first:
	// an HTTP/2 connection left open holds the shutdown for a second.)
	for _, c := range []*seqdstore.Store{admin, app, bad} {
		c.Close()
	}
	h2.CloseIdleConnections()
	if err := in.shutdown(t); err != nil {
		t.Fatalf("run after cancel: %v\n%s", err, in.log)
	}
	if log := in.log.String(); !strings.Contains(log, "seqd: stopped") || strings.Contains(log, "released=0") {
		t.Errorf("no stop, or nothing released, in the log:\n%s", log)
	}
	if _, err := http.Get("http://" + in.ops + "/healthz"); err == nil {
		t.Error("the ops address answers after the shutdown")
	}
	mem, err := memstore.Open(storeURL)
	if err != nil {
		t.Fatal(err)
	}
	info, err := mem.Describe(ctx, "app_orders")
	if err != nil {
		t.Fatal(err)
	}
	if info.Position != (sequence.Position{Last: last, Called: true}) {
		t.Errorf("after the shutdown the store stands at %+v, want %d (the last value a client got)\n%s", info.Position, last, in.log)
	}
	if int64(len(seen)) != last {
		t.Errorf("%d values drawn up to %d: want no gap", len(seen), last)
	}

	// A new seqd on the same store goes on from there.
	in2 := start(t, args...)
	app2 := clientStore(t, appTok, in2.api, certFile)
	b2, err := app2.Reserve(ctx, "app_orders", 3)
	if err != nil || b2.First != last+1 {
		t.Errorf("the new server's first block: %+v, %v; want from %d", b2, err, last+1)
	}
	app2.Close()
	if err := in2.shutdown(t); err != nil {
		t.Errorf("second run: %v", err)
	}
}

// TestServeInsecureOpen: a loopback test server without TLS or credentials
// answers plain HTTP clients.
func TestServeInsecureOpen(t *testing.T) {
	ctx := t.Context()
	in := start(t, "--listen", "127.0.0.1:0", "--ops-listen", "", "--store", "memory:seqd-cmd-"+sequence.NewToken().String(),
		"--insecure", "--open")
	if in.ops != "" {
		t.Errorf("ops address %q with --ops-listen ''", in.ops)
	}
	st, err := seqdstore.Open(ctx, "seqd+http://"+in.api)
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	spec := sequence.DefaultSpec()
	if err := st.Create(ctx, "s", spec, spec.Initial()); err != nil {
		t.Fatal(err)
	}
	if b, err := st.Reserve(ctx, "s", 4); err != nil || b.First != 1 || b.Count != 4 {
		t.Errorf("reserve: %+v, %v", b, err)
	}
	if err := in.shutdown(t); err != nil {
		t.Errorf("run: %v", err)
	}
}
