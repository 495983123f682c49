package main

import (
	"context"
	"net"
	"strings"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/seqshim/seqshim/sequence"
)

// pgConn returns a connection to the test PostgreSQL and its URL.
func pgConn(t *testing.T) (*pgx.Conn, string) {
	t.Helper()
	pgURL := pgTestURL(t)
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	conn, err := pgx.Connect(ctx, pgURL)
	if err != nil {
		t.Fatalf("connect to the test PostgreSQL: %v", err)
	}
	t.Cleanup(func() { conn.Close(context.Background()) })
	return conn, pgURL
}

// pgDatabase creates a database unique to the test on the test PostgreSQL,
// dropped at the end if it is still there, and returns its name and its
// identity as the driver records it (sequence.DatabaseID).
func pgDatabase(t *testing.T, conn *pgx.Conn) (name, id string) {
	t.Helper()
	name = uniqueName(t, "seqctl_", 63)
	pgExec(t, conn, "CREATE DATABASE "+name)
	t.Cleanup(func() {
		ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
		defer cancel()
		if _, err := conn.Exec(ctx, "DROP DATABASE IF EXISTS "+name+" WITH (FORCE)"); err != nil {
			t.Errorf("drop database %s: %v", name, err)
		}
	})
	var sysID, oid string
	err := conn.QueryRow(context.Background(), `SELECT (SELECT system_identifier::text FROM pg_control_system()), oid::text
		FROM pg_database WHERE datname = $1`, name).Scan(&sysID, &oid)
	if err != nil {
		t.Fatal(err)
	}
	return name, sequence.DatabaseID(sysID, oid, name)
}

// TestReadClusters reads the test cluster: its databases are live, one
// dropped is stale, one renamed is renamed, and a database of another
// cluster, or an identity not of PostgreSQL's form, is unknown.
func TestReadClusters(t *testing.T) {
	conn, pgURL := pgConn(t)
	live1, liveID := pgDatabase(t, conn)
	gone, goneID := pgDatabase(t, conn)
	old, oldID := pgDatabase(t, conn)
	pgExec(t, conn, "DROP DATABASE "+gone, "ALTER DATABASE "+old+" RENAME TO "+old+"_new")
	t.Cleanup(func() { pgExec(t, conn, "DROP DATABASE IF EXISTS "+old+"_new") })
	sysID, oid, _, _ := sequence.ParseDatabaseID(liveID)

	// The same cluster twice is the same cluster.
	cl, err := readClusters(t.Context(), []string{pgURL, pgURL})
	if err != nil {
		t.Fatal(err)
	}
	if len(cl) != 1 || cl.ids() != sysID {
		t.Fatalf("clusters %v, want the one cluster %s", cl.ids(), sysID)
	}
	for _, tt := range []struct {
		db      string
		want    memberState
		wantNow string
	}{
		{liveID, live, ""},
		{goneID, stale, ""},
		{oldID, renamed, old + "_new"},
		{sequence.DatabaseID(sysID, "2", live1), stale, ""},               // no database of that OID
		{sequence.DatabaseID(sysID, oid, live1+"_other"), renamed, live1}, // its OID, another name
		{sequence.DatabaseID("42", oid, live1), unknown, ""},              // a cluster not checked
		{"mysql-orders", unknown, ""},
	} {
		if got, now := cl.state(tt.db); got != tt.want || now != tt.wantNow {
			t.Errorf("state(%s) = %d, %q; want %d, %q", tt.db, got, now, tt.want, tt.wantNow)
		}
	}
	if got, _ := clusters(nil).state(liveID); got != unknown {
		t.Errorf("nothing checked: state = %d, want unknown", got)
	}
}

func TestReadClustersErrors(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	closed := ln.Addr().String()
	ln.Close() // nothing listens there: connection refused
	ts := &tester{t: t, store: "memory:" + uniqueName(t, "", 40)}
	r := ts.fails(exitFailed, "list", "--check-db", "postgres://seqctl:secret@"+closed+"/db?sslmode=disable")
	if !strings.Contains(r.stderr, "--check-db: connect to postgres://seqctl:xxxxx@"+closed) {
		t.Errorf("stderr %q: want the URL redacted and the failure named", r.stderr)
	}
	r = ts.fails(exitUsage, "show", "s", "--check-db", "postgres://h:notaport/db")
	if !strings.Contains(r.stderr, "--check-db") {
		t.Errorf("stderr %q: want --check-db named", r.stderr)
	}
	ts.fails(exitUsage, "list", "--check-db", "")
}
