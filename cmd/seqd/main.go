// Command seqd is the sequence service: it serves the blocks of one store's
// counters to many clients (the seqd:// store of the seqshim driver, the
// pgx front end and seqctl, or any HTTP/JSON or gRPC client), with its own
// cache in front of the store. See package github.com/seqshim/seqshim/seqd.
//
// Usage:
//
//	seqd --store URL --credentials FILE --tls-cert FILE --tls-key FILE [flags]
//	seqd token NAME    print a new bearer token and its credentials entry
//
// Every flag has an environment variable (in brackets in seqd --help); a
// flag given wins over its variable.
package main

import (
	"context"
	"crypto/rand"
	"encoding/base64"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"os"
	"os/signal"
	"strconv"
	"syscall"
	"time"

	_ "github.com/seqshim/seqshim/cosmosstore"
	_ "github.com/seqshim/seqshim/dynamostore"
	"github.com/seqshim/seqshim/internal/storeurl"
	_ "github.com/seqshim/seqshim/memstore"
	"github.com/seqshim/seqshim/seqcache"
	"github.com/seqshim/seqshim/seqd"
	"github.com/seqshim/seqshim/sequence"
	_ "github.com/seqshim/seqshim/sqlstore"
	_ "github.com/seqshim/seqshim/sqlstore/sqlite"
)

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	if err := run(ctx, os.Args[1:], os.Getenv, os.Stdout, os.Stderr, nil); err != nil {
		fmt.Fprintln(os.Stderr, "seqd:", err)
		os.Exit(1)
	}
}

// config is seqd's configuration, from flags and the environment.
type config struct {
	listen, opsListen  string
	store, credentials string
	tlsCert, tlsKey    string
	insecure, open     bool
	noCache            bool
	buffer, tokenTTL   time.Duration
	minBlock, maxBlock int64
	shutdownGrace      time.Duration
}

// run is seqd; ready, if not nil, receives the addresses once it listens
// (for tests).
func run(ctx context.Context, args []string, getenv func(string) string, stdout, stderr io.Writer, ready func(api, ops string)) error {
	if len(args) > 0 && args[0] == "token" {
		return token(args[1:], stdout, stderr)
	}
	c, err := parseFlags(args, getenv, stderr)
	if err != nil {
		return err
	}
	log := slog.New(slog.NewTextHandler(stderr, nil))
	st, err := storeurl.Open(ctx, c.store)
	if err != nil {
		return fmt.Errorf("--store: %w", err)
	}
	if cl, ok := st.(io.Closer); ok {
		defer cl.Close()
	}
	if err := sequence.Check(ctx, st); errors.Is(err, sequence.ErrMisconfigured) {
		return fmt.Errorf("store %s: %w", storeurl.Redact(c.store), err)
	}
	var creds []seqd.Credential
	if c.credentials != "" {
		if creds, err = seqd.LoadCredentials(c.credentials); err != nil {
			return err
		}
	}
	srv, err := seqd.New(seqd.Config{Store: st, Credentials: creds, Open: c.open, TokenTTL: c.tokenTTL, Logger: log, NoCache: c.noCache,
		Cache: seqcache.Options{Buffer: c.buffer, MinBlock: c.minBlock, MaxBlock: c.maxBlock, StoreName: storeurl.Redact(c.store)}})
	if err != nil {
		return err
	}
	ln, err := net.Listen("tcp", c.listen)
	if err != nil {
		return err
	}
	var protocols http.Protocols
	protocols.SetHTTP1(true)
	if c.insecure {
		protocols.SetUnencryptedHTTP2(true)
	} else {
		protocols.SetHTTP2(true)
	}
	api := &http.Server{Handler: srv.Handler(), Protocols: &protocols, ReadHeaderTimeout: 10 * time.Second,
		IdleTimeout: 2 * time.Minute, MaxHeaderBytes: 64 << 10, ErrorLog: slog.NewLogLogger(log.Handler(), slog.LevelWarn)}
	errc := make(chan error, 2)
	go func() {
		if c.insecure {
			errc <- api.Serve(ln)
		} else {
			errc <- api.ServeTLS(ln, c.tlsCert, c.tlsKey)
		}
	}()
	var ops *http.Server
	opsAddr := ""
	if c.opsListen != "" {
		oln, err := net.Listen("tcp", c.opsListen)
		if err != nil {
			_ = api.Close()
			return fmt.Errorf("--ops-listen: %w", err)
		}
		opsAddr = oln.Addr().String()
		ops = &http.Server{Handler: srv.OpsHandler(), ReadHeaderTimeout: 10 * time.Second}
		go func() { errc <- ops.Serve(oln) }()
	}
	log.Info("seqd: serving", "api", ln.Addr().String(), "tls", !c.insecure, "ops", opsAddr,
		"store", storeurl.Redact(c.store), "credentials", len(creds), "open", c.open)
	if ready != nil {
		ready(ln.Addr().String(), opsAddr)
	}
	select {
	case <-ctx.Done():
	case err := <-errc:
		if !errors.Is(err, http.ErrServerClosed) {
			_ = srv.Close()
			return err
		}
	}
	// A clean shutdown: readyz fails, the requests in flight finish, then
	// the cache hands its unused values back to the store.
	srv.Drain()
	sctx, cancel := context.WithTimeout(context.Background(), c.shutdownGrace)
	defer cancel()
	_ = api.Shutdown(sctx)
	if ops != nil {
		_ = ops.Shutdown(sctx)
	}
	err = srv.Close()
	log.Info("seqd: stopped", "released", released(srv))
	return err
}

func released(srv *seqd.Server) int64 {
	var n int64
	for _, s := range srv.Stats() {
		n += s.Released
	}
	return n
}

func parseFlags(args []string, getenv func(string) string, stderr io.Writer) (config, error) {
	var c config
	fs := flag.NewFlagSet("seqd", flag.ContinueOnError)
	fs.SetOutput(stderr)
	env := func(name, def string) string {
		if v := getenv(name); v != "" {
			return v
		}
		return def
	}
	envBool := func(name string) bool { b, _ := strconv.ParseBool(getenv(name)); return b }
	envDur := func(name string, def time.Duration) time.Duration {
		if d, err := time.ParseDuration(getenv(name)); err == nil {
			return d
		}
		return def
	}
	envInt := func(name string) int64 { n, _ := strconv.ParseInt(getenv(name), 10, 64); return n }
	fs.StringVar(&c.listen, "listen", env("SEQD_LISTEN", "127.0.0.1:7443"), "`address` of the API (gRPC, gRPC-Web, Connect/HTTP-JSON) [SEQD_LISTEN]")
	fs.StringVar(&c.opsListen, "ops-listen", env("SEQD_OPS_LISTEN", "127.0.0.1:7444"), "`address` of /status, /status.json, /healthz, /readyz; empty: none [SEQD_OPS_LISTEN]")
	fs.StringVar(&c.store, "store", env("SEQSHIM_STORE", ""), "store `URL` whose counters to serve [SEQSHIM_STORE]")
	fs.StringVar(&c.credentials, "credentials", env("SEQD_CREDENTIALS", ""), "credentials `file`: JSON array of {name, token_sha256, prefixes, ops, values_per_second, burst, requests_per_second} [SEQD_CREDENTIALS]")
	fs.StringVar(&c.tlsCert, "tls-cert", env("SEQD_TLS_CERT", ""), "TLS certificate `file` (PEM) [SEQD_TLS_CERT]")
	fs.StringVar(&c.tlsKey, "tls-key", env("SEQD_TLS_KEY", ""), "TLS key `file` (PEM) [SEQD_TLS_KEY]")
	fs.BoolVar(&c.insecure, "insecure", envBool("SEQD_INSECURE"), "serve plain HTTP (HTTP/1.1 and h2c) instead of TLS: loopback, or a network that encrypts itself [SEQD_INSECURE]")
	fs.BoolVar(&c.open, "open", envBool("SEQD_OPEN"), "no credentials: every caller may do everything (only with --insecure on a loopback address) [SEQD_OPEN]")
	fs.DurationVar(&c.buffer, "buffer", envDur("SEQD_BUFFER", 0), "seconds of consumption the server's cache keeps per counter (default 10s) [SEQD_BUFFER]")
	fs.Int64Var(&c.minBlock, "min-block", envInt("SEQD_MIN_BLOCK"), "smallest block the server reserves from the store (default 50) [SEQD_MIN_BLOCK]")
	fs.Int64Var(&c.maxBlock, "max-block", envInt("SEQD_MAX_BLOCK"), "largest block the server reserves from the store (default 1,000,000) [SEQD_MAX_BLOCK]")
	fs.BoolVar(&c.noCache, "no-cache", envBool("SEQD_NO_CACHE"), "no server cache: every client block is a reservation in the store (an authenticating, rate-limiting proxy) [SEQD_NO_CACHE]")
	fs.DurationVar(&c.tokenTTL, "token-ttl", envDur("SEQD_TOKEN_TTL", 10*time.Minute), "how long a reservation's token is remembered for its retries [SEQD_TOKEN_TTL]")
	fs.DurationVar(&c.shutdownGrace, "shutdown-grace", envDur("SEQD_SHUTDOWN_GRACE", 20*time.Second), "how long a shutdown waits for requests in flight [SEQD_SHUTDOWN_GRACE]")
	if err := fs.Parse(args); err != nil {
		return c, err
	}
	switch {
	case fs.NArg() > 0:
		return c, fmt.Errorf("unexpected argument %q", fs.Arg(0))
	case c.store == "":
		return c, errors.New("no store: give --store URL or SEQSHIM_STORE")
	case !c.insecure && (c.tlsCert == "" || c.tlsKey == ""):
		return c, errors.New("TLS needs --tls-cert and --tls-key (or --insecure for plain HTTP on loopback)")
	case c.credentials == "" && !c.open:
		return c, errors.New("no credentials: give --credentials FILE ('seqd token NAME' makes an entry), or --open for a loopback test server")
	case c.open && c.credentials != "":
		return c, errors.New("--open and --credentials together: choose one")
	case c.open && !(c.insecure && loopback(c.listen)):
		return c, errors.New("--open serves everyone everything: only with --insecure on a loopback --listen address")
	}
	return c, nil
}

func loopback(addr string) bool {
	h, _, err := net.SplitHostPort(addr)
	if err != nil {
		return false
	}
	ip := net.ParseIP(h)
	return h == "localhost" || ip != nil && ip.IsLoopback()
}

// token prints a new bearer token and the credentials entry that allows it.
// Flags may come before or after NAME.
func token(args []string, stdout, stderr io.Writer) error {
	fs := flag.NewFlagSet("seqd token", flag.ContinueOnError)
	fs.SetOutput(stderr)
	prefix := fs.String("prefix", "", "sequence name `prefix` the client may use (default: every name)")
	admin := fs.Bool("admin", false, "allow administration (create, alter, drop, setval…) too")
	var names []string
	for {
		if err := fs.Parse(args); err != nil {
			return err
		}
		if fs.NArg() == 0 {
			break
		}
		names = append(names, fs.Arg(0))
		args = fs.Args()[1:]
	}
	if len(names) != 1 || names[0] == "" {
		return errors.New("usage: seqd token NAME [--prefix P] [--admin]")
	}
	var b [32]byte
	if _, err := rand.Read(b[:]); err != nil {
		return err
	}
	tok := base64.RawURLEncoding.EncodeToString(b[:])
	ops := []string{"reserve"}
	if *admin {
		ops = append(ops, "admin")
	}
	entry, err := json.MarshalIndent(seqd.Credential{Name: names[0], TokenSHA256: seqd.HashToken(tok),
		Prefixes: []string{*prefix}, Ops: ops}, "", "  ")
	if err != nil {
		return err
	}
	fmt.Fprintf(stdout, "token (give it to the client; seqd keeps only its hash):\n%s\n\ncredentials entry:\n%s\n", tok, entry)
	return nil
}
