// Package fakedriver is an in-memory database/sql driver for seqshim's
// tests: a connection that implements every optional interface pgx's does
// (and Validator), answers every query with one row of one int8 column (but
// seqshim's catalog queries of the search_path and schemas, answered from
// the Connector's settings), and records what reached it.
package fakedriver

import (
	"context"
	"database/sql/driver"
	"io"
	"reflect"
	"slices"
	"strings"
	"sync"
)

// Calls counts the calls that reached a connection, per method.
type Calls struct {
	Prepare, Begin, Exec, Query, Ping, Check, Reset, IsValid, Close int
	StmtExec, StmtQuery, Commit, Rollback                           int
}

// Recorder is shared by the connections of a Connector: what reached them.
type Recorder struct {
	mu      sync.Mutex
	calls   Calls
	queries []string // SQL of Exec, Query and Prepare, in order
	args    [][]driver.NamedValue
	dsns    []string // DSNs given to Driver.Open and Driver.OpenConnector

	// Record keeps every query and its arguments (off in benchmarks).
	Record bool
}

func (r *Recorder) count(f func(*Calls)) {
	r.mu.Lock()
	f(&r.calls)
	r.mu.Unlock()
}

func (r *Recorder) query(q string, args []driver.NamedValue) {
	if !r.Record {
		return
	}
	r.mu.Lock()
	r.queries = append(r.queries, q)
	r.args = append(r.args, append([]driver.NamedValue(nil), args...))
	r.mu.Unlock()
}

// Calls returns the counts so far.
func (r *Recorder) Calls() Calls {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.calls
}

// Queries returns the SQL texts recorded so far.
func (r *Recorder) Queries() []string {
	r.mu.Lock()
	defer r.mu.Unlock()
	return append([]string(nil), r.queries...)
}

// DSNs returns the DSNs the driver was opened with.
func (r *Recorder) DSNs() []string {
	r.mu.Lock()
	defer r.mu.Unlock()
	return append([]string(nil), r.dsns...)
}

func (r *Recorder) dsn(name string) {
	r.mu.Lock()
	r.dsns = append(r.dsns, name)
	r.mu.Unlock()
}

// Args returns the arguments recorded with each query.
func (r *Recorder) Args() [][]driver.NamedValue {
	r.mu.Lock()
	defer r.mu.Unlock()
	return append([][]driver.NamedValue(nil), r.args...)
}

// Connector makes fake connections that report to Rec.
type Connector struct {
	Rec Recorder

	mu         sync.Mutex // protects the fields below
	last       *Conn      // the connection made last
	searchPath string     // "" is "$user", public
	schemas    []string   // nil is public only
}

// SetSearchPath sets what the connections answer to seqshim's query of
// the search_path setting (its default is "$user", public, the user being
// fake), and the schemas that exist (public when none are given).
func (c *Connector) SetSearchPath(path string, schemas ...string) {
	c.mu.Lock()
	c.searchPath, c.schemas = path, schemas
	c.mu.Unlock()
}

// catalog answers seqshim's catalog queries (internal/engine's
// searchpath.go), nil for other queries.
func (c *Connector) catalog(query string, args []driver.NamedValue) *catalogRows {
	if !strings.Contains(query, "pg_catalog.") {
		return nil
	}
	c.mu.Lock()
	path, schemas := c.searchPath, c.schemas
	c.mu.Unlock()
	if path == "" {
		path = `"$user", public`
	}
	if schemas == nil {
		schemas = []string{"public"}
	}
	const user = "fake"
	switch {
	case strings.Contains(query, "current_schemas(false)"):
		var existing []string
		for _, s := range strings.Split(path, ",") {
			s = strings.Trim(strings.TrimSpace(s), `"`)
			if s == "$user" {
				s = user
			}
			if slices.Contains(schemas, s) {
				existing = append(existing, s)
			}
		}
		if strings.Contains(query, "pg_control_system") { // the path and the database's identity
			return &catalogRows{cols: []string{"path", "db"}, vals: []driver.Value{strings.Join(existing, ","), FakeDatabaseID}}
		}
		if strings.Contains(query, "string_agg") { // the effective path
			return &catalogRows{cols: []string{"coalesce"}, vals: []driver.Value{strings.Join(existing, ",")}}
		}
		first := "" // the schema to create in
		if len(existing) > 0 {
			first = existing[0]
		}
		return &catalogRows{cols: []string{"coalesce"}, vals: []driver.Value{first}}
	case strings.Contains(query, "pg_namespace") && len(args) == 1:
		n := "0"
		if slices.Contains(schemas, args[0].Value.(string)) {
			n = "1"
		}
		return &catalogRows{cols: []string{"count"}, vals: []driver.Value{n}}
	}
	return nil
}

// FakeDatabaseID is the identity (sequence.DatabaseID) of every fake
// connection's database.
const FakeDatabaseID = "7000000000000000001/16384/fake"

var _ driver.Connector = (*Connector)(nil)

// Connect returns a new fake connection.
func (c *Connector) Connect(context.Context) (driver.Conn, error) {
	cn := &Conn{rec: &c.Rec, conn: c}
	c.mu.Lock()
	c.last = cn
	c.mu.Unlock()
	return cn, nil
}

// Last returns the connection made last.
func (c *Connector) Last() *Conn {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.last
}

// Driver returns a Driver whose connections report to the same recorder.
func (c *Connector) Driver() driver.Driver { return Driver{c} }

// Driver opens connections of a Connector.
type Driver struct{ c *Connector }

var _ driver.DriverContext = Driver{}

// Open returns a new connection.
func (d Driver) Open(name string) (driver.Conn, error) {
	d.c.Rec.dsn(name)
	return d.c.Connect(context.Background())
}

// OpenConnector returns the Connector.
func (d Driver) OpenConnector(name string) (driver.Connector, error) {
	d.c.Rec.dsn(name)
	return d.c, nil
}

// Conn is a fake connection. It is also the engine's way to its session
// (seqshim's internal/engine.DB): a transaction status that follows the
// transactions begun through it and the BEGIN, COMMIT and ROLLBACK it is
// sent, no server parameters, and the catalog answers of its Connector.
type Conn struct {
	rec    *Recorder
	conn   *Connector
	status byte // 'I' or 'T'; 0 is 'I'
	// LastRows is the Rows returned last, so tests can check identity.
	LastRows *Rows
	// LastTx is the Tx returned last.
	LastTx *Tx
	// LastStmt is the Stmt returned last.
	LastStmt *Stmt
	// LastResult is the Result returned last.
	LastResult *Result
}

var (
	_ driver.Conn               = (*Conn)(nil)
	_ driver.ConnPrepareContext = (*Conn)(nil)
	_ driver.ConnBeginTx        = (*Conn)(nil)
	_ driver.ExecerContext      = (*Conn)(nil)
	_ driver.QueryerContext     = (*Conn)(nil)
	_ driver.Pinger             = (*Conn)(nil)
	_ driver.NamedValueChecker  = (*Conn)(nil)
	_ driver.SessionResetter    = (*Conn)(nil)
	_ driver.Validator          = (*Conn)(nil)
)

func (c *Conn) Prepare(query string) (driver.Stmt, error) {
	return c.PrepareContext(context.Background(), query)
}

func (c *Conn) PrepareContext(_ context.Context, query string) (driver.Stmt, error) {
	c.rec.count(func(k *Calls) { k.Prepare++ })
	c.rec.query(query, nil)
	c.LastStmt = &Stmt{c: c, query: query}
	return c.LastStmt, nil
}

func (c *Conn) Close() error {
	c.rec.count(func(k *Calls) { k.Close++ })
	return nil
}

func (c *Conn) Begin() (driver.Tx, error) { return c.BeginTx(context.Background(), driver.TxOptions{}) }

func (c *Conn) BeginTx(context.Context, driver.TxOptions) (driver.Tx, error) {
	c.rec.count(func(k *Calls) { k.Begin++ })
	c.LastTx = &Tx{rec: c.rec, c: c}
	c.status = 'T'
	return c.LastTx, nil
}

func (c *Conn) ExecContext(_ context.Context, query string, args []driver.NamedValue) (driver.Result, error) {
	c.rec.count(func(k *Calls) { k.Exec++ })
	c.rec.query(query, args)
	c.follow(query)
	c.LastResult = &Result{}
	return c.LastResult, nil
}

func (c *Conn) QueryContext(_ context.Context, query string, args []driver.NamedValue) (driver.Rows, error) {
	c.rec.count(func(k *Calls) { k.Query++ })
	c.rec.query(query, args)
	c.follow(query)
	if r := c.conn.catalog(query, args); r != nil {
		return r, nil
	}
	c.LastRows = &Rows{}
	return c.LastRows, nil
}

// follow keeps the transaction status in step with a text that begins or
// ends a transaction block: its first word decides.
func (c *Conn) follow(query string) {
	i := 0
	for i < len(query) && (query[i] == ' ' || query[i] == '\t' || query[i] == '\n') {
		i++
	}
	j := i
	for j < len(query) && (query[j]|0x20 >= 'a' && query[j]|0x20 <= 'z') {
		j++
	}
	w := query[i:j]
	if len(w) < 3 || len(w) > 8 || !strings.ContainsRune("bBsScCeErRaA", rune(w[0])) {
		return // not a word that begins or ends a transaction block
	}
	switch {
	case strings.EqualFold(w, "begin"), strings.EqualFold(w, "start"):
		c.status = 'T'
	case strings.EqualFold(w, "commit"), strings.EqualFold(w, "end"), strings.EqualFold(w, "rollback"), strings.EqualFold(w, "abort"):
		c.status = 'I'
	}
}

// TxStatus is the transaction status: 'T' in a transaction block, 'I'
// otherwise.
func (c *Conn) TxStatus() byte {
	if c.status == 0 {
		return 'I'
	}
	return c.status
}

// ParameterStatus reports is_superuser on (the session of a superuser, as
// the test cluster's postgres: no privilege checks) and no other server
// parameter.
func (c *Conn) ParameterStatus(key string) string {
	if key == "is_superuser" {
		return "on"
	}
	return ""
}

// IsClosed reports false: a fake connection never breaks.
func (c *Conn) IsClosed() bool { return false }

// Exec is the engine's way to send a statement of its own: counted and
// recorded as an ExecContext.
func (c *Conn) Exec(ctx context.Context, query string) (int64, error) {
	if _, err := c.ExecContext(ctx, query, nil); err != nil {
		return 0, err
	}
	return 1, nil
}

// Query is the engine's way to run a catalog query: counted and recorded
// as a QueryContext, answered from the Connector's settings, with no row
// for other queries.
func (c *Conn) Query(_ context.Context, query string, args ...string) ([][]string, error) {
	named := make([]driver.NamedValue, len(args))
	for i, a := range args {
		named[i] = driver.NamedValue{Ordinal: i + 1, Value: a}
	}
	c.rec.count(func(k *Calls) { k.Query++ })
	c.rec.query(query, named)
	r := c.conn.catalog(query, named)
	if r == nil {
		return nil, nil
	}
	row := make([]string, len(r.vals))
	for i, v := range r.vals {
		row[i] = v.(string)
	}
	return [][]string{row}, nil
}

func (c *Conn) Ping(context.Context) error {
	c.rec.count(func(k *Calls) { k.Ping++ })
	return nil
}

// CheckNamedValue accepts any value, as pgx's does.
func (c *Conn) CheckNamedValue(*driver.NamedValue) error {
	c.rec.count(func(k *Calls) { k.Check++ })
	return nil
}

func (c *Conn) ResetSession(context.Context) error {
	c.rec.count(func(k *Calls) { k.Reset++ })
	return nil
}

func (c *Conn) IsValid() bool {
	c.rec.count(func(k *Calls) { k.IsValid++ })
	return true
}

// Stmt is a fake prepared statement.
type Stmt struct {
	c     *Conn
	query string
}

var (
	_ driver.StmtExecContext  = (*Stmt)(nil)
	_ driver.StmtQueryContext = (*Stmt)(nil)
)

func (s *Stmt) Close() error  { return nil }
func (s *Stmt) NumInput() int { return -1 }

func (s *Stmt) Exec(args []driver.Value) (driver.Result, error) {
	return s.ExecContext(context.Background(), nil)
}

func (s *Stmt) Query(args []driver.Value) (driver.Rows, error) {
	return s.QueryContext(context.Background(), nil)
}

func (s *Stmt) ExecContext(_ context.Context, args []driver.NamedValue) (driver.Result, error) {
	s.c.rec.count(func(k *Calls) { k.StmtExec++ })
	s.c.rec.query(s.query, args)
	return &Result{}, nil
}

func (s *Stmt) QueryContext(_ context.Context, args []driver.NamedValue) (driver.Rows, error) {
	s.c.rec.count(func(k *Calls) { k.StmtQuery++ })
	s.c.rec.query(s.query, args)
	if r := s.c.conn.catalog(s.query, args); r != nil {
		return r, nil
	}
	return &Rows{}, nil
}

// Tx is a fake transaction.
type Tx struct {
	rec *Recorder
	c   *Conn
}

func (t *Tx) Commit() error {
	t.rec.count(func(k *Calls) { k.Commit++ })
	t.c.status = 'I'
	return nil
}

func (t *Tx) Rollback() error {
	t.rec.count(func(k *Calls) { k.Rollback++ })
	t.c.status = 'I'
	return nil
}

// Result is a fake result: one row affected.
type Result struct{}

func (*Result) LastInsertId() (int64, error) { return 0, nil }
func (*Result) RowsAffected() (int64, error) { return 1, nil }

// catalogRows is the one row of text values answering a catalog query.
type catalogRows struct {
	done bool
	cols []string
	vals []driver.Value
}

func (r *catalogRows) Columns() []string { return r.cols }
func (r *catalogRows) Close() error      { return nil }

func (r *catalogRows) Next(dest []driver.Value) error {
	if r.done {
		return io.EOF
	}
	r.done = true
	copy(dest, r.vals)
	return nil
}

// Rows is one row with one int8 column "fake" holding 1.
type Rows struct{ done bool }

var (
	_ driver.RowsColumnTypeDatabaseTypeName = (*Rows)(nil)
	_ driver.RowsColumnTypeLength           = (*Rows)(nil)
	_ driver.RowsColumnTypePrecisionScale   = (*Rows)(nil)
	_ driver.RowsColumnTypeScanType         = (*Rows)(nil)
	_ driver.RowsColumnTypeNullable         = (*Rows)(nil)
	_ driver.RowsNextResultSet              = (*Rows)(nil)
)

var columns = []string{"fake"}

func (r *Rows) Columns() []string { return columns }
func (r *Rows) Close() error      { return nil }

func (r *Rows) Next(dest []driver.Value) error {
	if r.done {
		return io.EOF
	}
	r.done = true
	dest[0] = int64(1)
	return nil
}

func (r *Rows) ColumnTypeDatabaseTypeName(int) string             { return "FAKE8" }
func (r *Rows) ColumnTypeLength(int) (int64, bool)                { return 8, true }
func (r *Rows) ColumnTypePrecisionScale(int) (int64, int64, bool) { return 19, 0, true }
func (r *Rows) ColumnTypeScanType(int) reflect.Type               { return reflect.TypeFor[int64]() }
func (r *Rows) ColumnTypeNullable(int) (bool, bool)               { return false, true }
func (r *Rows) HasNextResultSet() bool                            { return false }
func (r *Rows) NextResultSet() error                              { return io.EOF }
