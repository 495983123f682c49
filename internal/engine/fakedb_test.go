package engine

import (
	"context"
	"errors"
	"slices"
	"strings"
)

// fakeDB is a database session for the engine's unit tests: a transaction
// status and server parameters the test sets; statements sent are recorded,
// and the raise that aborts a transaction (DO …) fails it, as PostgreSQL's
// does; catalog queries are answered like a database whose search_path is
// path, whose user is user and whose schemas are schemas (public when
// none); SHOW transaction_read_only answers txRO. Other queries have no
// row.
type fakeDB struct {
	status  byte // 0 is 'I'
	params  map[string]string
	txRO    string
	path    string // "" is "$user", public
	user    string
	schemas []string
	db      string // the database's identity; "" for a fixed one

	fail map[string]error // Exec of these statements fails so

	// privs answers privilegesQuery: the row of the relation its
	// argument names, none when it has none.
	privs map[string][]string

	// temps are the session's temporary relations, as tempQuery reads
	// them: name, relkind, columns with sequence defaults; nil when the
	// session has no temporary schema.
	temps     [][]string
	tempReads int

	sent    []string // Exec
	queries []string // Query
	shows   int      // SHOWs of transaction_read_only
	reads   int      // ParameterStatus calls
}

func (c *fakeDB) TxStatus() byte {
	if c.status == 0 {
		return 'I'
	}
	return c.status
}

func (c *fakeDB) ParameterStatus(key string) string {
	c.reads++
	if v, ok := c.params[key]; ok || key != "is_superuser" {
		return v
	}
	return "on" // as the test cluster's postgres: no privilege checks
}
func (c *fakeDB) IsClosed() bool { return false }

func (c *fakeDB) Exec(_ context.Context, sql string) (int64, error) {
	c.sent = append(c.sent, sql)
	if err := c.fail[sql]; err != nil {
		return 0, err
	}
	switch {
	case strings.HasPrefix(sql, "DO "):
		c.status = 'E'
		return 0, errors.New("raised")
	case sql == "BEGIN":
		c.status = 'T'
	case sql == "COMMIT", sql == "ROLLBACK":
		c.status = 'I'
	}
	return 0, nil
}

func (c *fakeDB) Query(_ context.Context, sql string, args ...string) ([][]string, error) {
	c.queries = append(c.queries, sql)
	switch sql {
	case sessionQuery:
		return [][]string{{strings.Join(c.existing(), ","), c.identity()}}, nil
	case pathQuery:
		return [][]string{{strings.Join(c.existing(), ",")}}, nil
	case creationQuery:
		if e := c.existing(); len(e) > 0 {
			return [][]string{{e[0]}}, nil
		}
		return [][]string{{""}}, nil
	case schemaQuery:
		if slices.Contains(c.schemaList(), args[0]) {
			return [][]string{{"1"}}, nil
		}
		return [][]string{{"0"}}, nil
	case "SHOW transaction_read_only":
		c.shows++
		return [][]string{{c.txRO}}, nil
	case privilegesQuery:
		if row, ok := c.privs[args[0]]; ok {
			return [][]string{row}, nil
		}
		return nil, nil
	case tempQuery:
		c.tempReads++
		if c.temps == nil {
			return nil, nil
		}
		rows := [][]string{{"pg_temp_3", "", "", ""}}
		if len(c.temps) > 0 {
			rows = nil
		}
		for _, r := range c.temps {
			rows = append(rows, append([]string{"pg_temp_3"}, r...))
		}
		return rows, nil
	}
	return nil, nil
}

// identity is the database's sequence.DatabaseID: db, or a fixed one.
func (c *fakeDB) identity() string {
	if c.db != "" {
		return c.db
	}
	return "7000000000000000001/16384/fake"
}

func (c *fakeDB) schemaList() []string {
	if c.schemas == nil {
		return []string{"public"}
	}
	return c.schemas
}

// existing is the path's schemas that exist (quoted as quote_ident would
// not matter here: the tests' names need no quotes).
func (c *fakeDB) existing() []string {
	path := c.path
	if path == "" {
		path = `"$user", public`
	}
	var out []string
	for _, s := range pathSchemas(path, c.user) {
		if slices.Contains(c.schemaList(), s) {
			out = append(out, s)
		}
	}
	return out
}

// pathReads counts the reads of the search_path.
func (c *fakeDB) pathReads() int {
	n := 0
	for _, q := range c.queries {
		if q == pathQuery {
			n++
		}
	}
	return n
}
