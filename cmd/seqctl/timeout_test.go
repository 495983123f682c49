package main

import (
	"net"
	"strings"
	"testing"
)

// silentServer accepts connections on loopback and never answers, as a
// store behind a dead load balancer does.
func silentServer(t *testing.T) string {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { ln.Close() })
	go func() {
		var held []net.Conn
		defer func() {
			for _, c := range held {
				c.Close()
			}
		}()
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			held = append(held, c)
		}
	}()
	return ln.Addr().String()
}

func TestTimeout(t *testing.T) {
	addr := silentServer(t)
	ts := &tester{t: t, store: "postgres://seqctl@" + addr + "/db?sslmode=disable"}
	for _, args := range [][]string{
		{"--timeout", "200ms", "list"},
		{"show", "orders_seq", "--timeout", "200ms"},               // after the command
		{"watch", "--count", "1", "--timeout=200ms", "orders_seq"}, // each refresh
	} {
		r := ts.run(args...)
		if r.code != exitFailed || !strings.Contains(r.stderr, "timed out after 200ms (--timeout)") {
			t.Errorf("seqctl %s: exit %d, stderr %q; want exit 1 and the timeout named", strings.Join(args, " "), r.code, r.stderr)
		}
	}
	if r := ts.run("--timeout", "soon", "list"); r.code != exitUsage {
		t.Errorf("--timeout soon: exit %d, want %d", r.code, exitUsage)
	}
}
