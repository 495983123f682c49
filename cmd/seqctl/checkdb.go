package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"slices"
	"strings"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"

	"github.com/seqshim/seqshim/internal/storeurl"
	"github.com/seqshim/seqshim/sequence"
)

// Stale members. A member of a counter (sequence.Member) is stale when its
// database no longer exists. The store cannot know; only the PostgreSQL
// clusters can, so show, list and members prune ask the clusters named by
// --check-db, and leave the members of other clusters unknown. A member is
// a database's OID and name (sequence.DatabaseID): a database renamed has
// another identity, and no longer sees the sequences it declared, but it
// exists, and so does its data drawn from the counter: it is not stale,
// and prune leaves it alone.

// clusterQuery reads what a cluster says of its databases, in one round
// trip: its system identifier, as the driver reads it for
// sequence.DatabaseID, with each database's OID and name.
const clusterQuery = `SELECT (SELECT system_identifier::text FROM pg_catalog.pg_control_system()),
	oid::text, datname::text FROM pg_catalog.pg_database`

// checkDBFlag is the repeatable --check-db.
type checkDBFlag []string

func (f *checkDBFlag) String() string {
	if f == nil {
		return ""
	}
	s := make([]string, len(*f))
	for i, u := range *f {
		s[i] = storeurl.Redact(u)
	}
	return strings.Join(s, ", ")
}

func (f *checkDBFlag) Set(u string) error {
	if strings.TrimSpace(u) == "" {
		return errors.New("want a PostgreSQL URL")
	}
	*f = append(*f, u)
	return nil
}

// registerCheckDB adds --check-db to fs.
func registerCheckDB(fs *flag.FlagSet, f *checkDBFlag) {
	fs.Var(f, "check-db", "`URL` of a database (any one, postgres://…) of a PostgreSQL cluster: members of that cluster whose database is gone are marked stale; repeatable, one per cluster")
}

// clusters is what the clusters of --check-db say: by system identifier,
// the databases each has, name by OID. A nil clusters checked nothing.
type clusters map[string]map[string]string

// readClusters connects to each URL and reads its cluster's databases.
func readClusters(ctx context.Context, urls []string) (clusters, error) {
	if len(urls) == 0 {
		return nil, nil
	}
	cl := clusters{}
	for _, u := range urls {
		if err := cl.read(ctx, u); err != nil {
			return nil, err
		}
	}
	return cl, nil
}

func (cl clusters) read(ctx context.Context, u string) error {
	cfg, err := pgx.ParseConfig(u)
	if err != nil {
		return usagef("--check-db %s: %v", storeurl.Redact(u), err)
	}
	conn, err := pgx.ConnectConfig(ctx, cfg)
	if err != nil {
		return fmt.Errorf("--check-db: connect to %s: %w", storeurl.Redact(u), err)
	}
	defer conn.Close(context.WithoutCancel(ctx))
	rows, err := conn.Query(ctx, clusterQuery)
	if err != nil {
		return clusterErr(u, err)
	}
	defer rows.Close()
	for rows.Next() {
		var sysID, oid, name string
		if err := rows.Scan(&sysID, &oid, &name); err != nil {
			return clusterErr(u, err)
		}
		if cl[sysID] == nil {
			cl[sysID] = map[string]string{}
		}
		cl[sysID][oid] = name
	}
	if err := rows.Err(); err != nil {
		return clusterErr(u, err)
	}
	return nil
}

func clusterErr(u string, err error) error {
	var pe *pgconn.PgError
	if errors.As(err, &pe) && pe.Code == codeInsufficientPrivilege {
		return fmt.Errorf("--check-db: read the databases of %s: %w (grant EXECUTE on pg_control_system() to this user)", storeurl.Redact(u), err)
	}
	return fmt.Errorf("--check-db: read the databases of %s: %w", storeurl.Redact(u), err)
}

// memberState is what the clusters say of a member's database.
type memberState int

const (
	unknown memberState = iota // its cluster was not checked (or db is not a PostgreSQL identity)
	live                       // its cluster has a database of its OID and name
	stale                      // its cluster has no database of its OID: the database is gone
	renamed                    // its cluster has its OID under another name
)

// state tells whether the database db (a sequence.DatabaseID) exists, and
// for one renamed, its name now.
func (cl clusters) state(db string) (memberState, string) {
	sysID, oid, name, ok := sequence.ParseDatabaseID(db)
	if !ok {
		return unknown, ""
	}
	dbs, checked := cl[sysID]
	if !checked {
		return unknown, ""
	}
	now, exists := dbs[oid]
	switch {
	case !exists:
		return stale, ""
	case now != name:
		return renamed, now
	}
	return live, ""
}

// staleJSON is a state as -o json prints it: true, false, or null when
// not checked.
func (s memberState) staleJSON() *bool {
	if s == unknown {
		return nil
	}
	b := s == stale
	return &b
}

// ids lists the system identifiers of the clusters checked, for messages.
func (cl clusters) ids() string {
	s := make([]string, 0, len(cl))
	for id := range cl {
		s = append(s, id)
	}
	slices.Sort(s)
	return strings.Join(s, ", ")
}
