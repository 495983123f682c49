package conformance

import (
	"context"
	"database/sql"
	"database/sql/driver"
	"errors"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/jackc/pgx/v5/pgconn"
)

// Transcript is what a target answered to each step of a scenario, rendered
// as text: one entry per step, in order.
type Transcript []string

// Run runs the steps of sc on db and returns the transcript. Sessions are
// connections pinned with db.Conn, opened at their first step; Run closes
// them (rolling back open transactions) before it returns. A failing step is
// part of the transcript, not an error: Run returns an error only when ctx
// ends or a session cannot be opened.
func Run(ctx context.Context, db *sql.DB, sc *Scenario) (Transcript, error) {
	return RunOpen(ctx, db, nil, sc)
}

// Opener opens a database handle on the same target with parameters
// added to its DSN (a URL query: a step's dsn=).
type Opener func(params string) (*sql.DB, error)

// RunOpen is [Run] for scenarios with dsn= steps: a session whose first
// step has dsn= opens on a handle of its own from open, closed by RunOpen.
func RunOpen(ctx context.Context, db *sql.DB, open Opener, sc *Scenario) (Transcript, error) {
	r := newRunner()
	r.handles[DefaultDB] = db
	r.open = open
	return r.run(ctx, sc)
}

// Databases are the databases of a scenario run by [RunDatabases]: every
// db= name is a database of its own, empty at its first use.
type Databases interface {
	// Open opens a handle on the database name, with params (a URL query,
	// a step's dsn=; "" for none) added to its DSN. The runner closes it.
	Open(name, params string) (*sql.DB, error)
	// Recreate drops the database name (WITH (FORCE)) and creates it again,
	// empty. The runner has closed every handle it opened on it.
	Recreate(ctx context.Context, name string) error
}

// RunDatabases is [Run] for scenarios on several databases (db= steps,
// recreate): each session opens on a handle of its database from dbs, and
// the runner closes them all before it returns.
func RunDatabases(ctx context.Context, dbs Databases, sc *Scenario) (Transcript, error) {
	r := newRunner()
	r.dbs = dbs
	return r.run(ctx, sc)
}

type runner struct {
	dbs      Databases          // RunDatabases'; nil for RunOpen, which has database a only
	open     Opener             // RunOpen's, for dsn= sessions
	handles  map[string]*sql.DB // a database's handle for its sessions without dsn=
	owned    []handle           // handles the runner opened, closed by it
	sessions map[string]*session
	order    []*session
}

// handle is a database handle the runner opened, and the database it is on.
type handle struct {
	db  string
	sql *sql.DB
}

type session struct {
	name  string
	db    string // the database it is on
	conn  *sql.Conn
	tx    *sql.Tx
	stmts map[string]*sql.Stmt
}

func newRunner() *runner {
	return &runner{handles: map[string]*sql.DB{}, sessions: map[string]*session{}}
}

func (r *runner) run(ctx context.Context, sc *Scenario) (Transcript, error) {
	defer r.close()
	return runSteps(ctx, r, sc)
}

// do runs st on s: a database/sql step never stops the run.
func (r *runner) do(ctx context.Context, s *session, st *Step) (string, error) {
	return s.do(ctx, st), nil
}

// stepRunner is what runSteps runs a scenario's steps on, S being its
// sessions: database/sql's runner, or a [ConnTarget]'s.
type stepRunner[S any] interface {
	// session returns st's session, opening it at its first step (with
	// st's dsn=, on st's database).
	session(ctx context.Context, st *Step) (S, error)
	// do runs st on s and returns its transcript, a failing step's too.
	// An error means the runner cannot run the step, and ends the run.
	do(ctx context.Context, s S, st *Step) (string, error)
	// recreate closes the sessions on database db (rolling back their
	// transactions) and has it dropped and created again.
	recreate(ctx context.Context, db string) error
	// disconnect ends session name (rolling back its transaction); its
	// next step opens it anew.
	disconnect(ctx context.Context, name string) error
}

// runSteps runs the steps of sc on r, group by group (see
// [Scenario.Groups]), and returns the transcript. The caller closes r's
// sessions.
func runSteps[S any](ctx context.Context, r stepRunner[S], sc *Scenario) (Transcript, error) {
	tr := make(Transcript, 0, len(sc.Steps))
	for _, g := range sc.Groups() {
		if err := ctx.Err(); err != nil {
			return tr, err
		}
		steps := sc.Steps[g[0]:g[1]]
		if st := &steps[0]; st.Verb == Recreate {
			if err := r.recreate(ctx, st.DB); err != nil {
				return tr, fmt.Errorf("%s:%d: recreate db=%s: %w", sc.Path, st.Line, st.DB, err)
			}
			tr = append(tr, "ok")
			continue
		}
		if st := &steps[0]; st.Verb == Disconnect {
			if err := r.disconnect(ctx, st.Session); err != nil {
				return tr, fmt.Errorf("%s:%d: disconnect session %s: %w", sc.Path, st.Line, st.Session, err)
			}
			tr = append(tr, "ok")
			continue
		}
		sessions := make([]S, len(steps))
		for k := range steps {
			st := &steps[k]
			s, err := r.session(ctx, st)
			if err != nil {
				return tr, fmt.Errorf("%s:%d: open session %s: %w", sc.Path, st.Line, st.Session, err)
			}
			sessions[k] = s
		}
		var (
			out  []string
			errs []error
		)
		if len(steps) == 1 {
			s, err := r.do(ctx, sessions[0], &steps[0])
			out, errs = []string{s}, []error{err}
		} else {
			out, errs = together(ctx, r, sessions, steps)
		}
		for k, err := range errs {
			if err != nil {
				st := &steps[k]
				return tr, fmt.Errorf("%s:%d: session %s: %w", sc.Path, st.Line, st.Session, err)
			}
		}
		tr = append(tr, out...)
	}
	return tr, nil
}

// together runs steps, each on its session, at the same moment: every
// goroutine is started and waiting before any step begins. It returns each
// step's transcript and error, in order.
func together[S any](ctx context.Context, r stepRunner[S], sessions []S, steps []Step) ([]string, []error) {
	out := make([]string, len(steps))
	errs := make([]error, len(steps))
	start := make(chan struct{})
	var ready, done sync.WaitGroup
	for k := range steps {
		ready.Add(1)
		done.Add(1)
		go func() {
			defer done.Done()
			ready.Done()
			<-start
			out[k], errs[k] = r.do(ctx, sessions[k], &steps[k])
		}()
	}
	ready.Wait()
	close(start)
	done.Wait()
	return out, errs
}

func (r *runner) session(ctx context.Context, st *Step) (*session, error) {
	if s := r.sessions[st.Session]; s != nil {
		if st.DSN != "" {
			return nil, errors.New("dsn= on a step of a session already open")
		}
		return s, nil
	}
	db := r.handles[st.DB]
	if db == nil || st.DSN != "" {
		var err error
		if db, err = r.openHandle(st.DB, st.DSN); err != nil {
			return nil, err
		}
		if st.DSN == "" {
			r.handles[st.DB] = db
		}
	}
	c, err := db.Conn(ctx)
	if err != nil {
		return nil, err
	}
	s := &session{name: st.Session, db: st.DB, conn: c, stmts: map[string]*sql.Stmt{}}
	r.sessions[st.Session] = s
	r.order = append(r.order, s)
	return s, nil
}

// openHandle opens a handle on database name with params, kept to be closed.
func (r *runner) openHandle(name, params string) (*sql.DB, error) {
	var (
		db  *sql.DB
		err error
	)
	switch {
	case r.dbs != nil:
		db, err = r.dbs.Open(name, params)
	case name != DefaultDB:
		return nil, fmt.Errorf("db=%s needs several databases (RunDatabases)", name)
	case r.open == nil:
		return nil, errors.New("dsn= needs an Opener (RunOpen)")
	default:
		db, err = r.open(params)
	}
	if err != nil {
		return nil, err
	}
	r.owned = append(r.owned, handle{db: name, sql: db})
	return db, nil
}

// recreate closes the sessions and handles on database name, then has it
// dropped and created again. Later steps of its sessions open them anew.
func (r *runner) recreate(ctx context.Context, name string) error {
	if r.dbs == nil {
		return errors.New("recreate needs several databases (RunDatabases)")
	}
	var errs []error
	r.order = slices.DeleteFunc(r.order, func(s *session) bool {
		if s.db != name {
			return false
		}
		errs = append(errs, s.close())
		delete(r.sessions, s.name)
		return true
	})
	r.owned = slices.DeleteFunc(r.owned, func(h handle) bool {
		if h.db != name {
			return false
		}
		errs = append(errs, h.sql.Close())
		return true
	})
	delete(r.handles, name)
	if err := errors.Join(errs...); err != nil {
		return fmt.Errorf("close: %w", err)
	}
	return r.dbs.Recreate(ctx, name)
}

// disconnect ends session name's connection for good (database/sql
// discards a connection whose Raw call says driver.ErrBadConn): its
// database session ends. Its next step opens a new one.
func (r *runner) disconnect(_ context.Context, name string) error {
	s := r.sessions[name]
	if s == nil {
		return nil
	}
	delete(r.sessions, name)
	r.order = slices.DeleteFunc(r.order, func(o *session) bool { return o == s })
	errs := s.release()
	if err := s.conn.Raw(func(any) error { return driver.ErrBadConn }); !errors.Is(err, driver.ErrBadConn) {
		errs = append(errs, fmt.Errorf("the connection was not discarded: %v", err))
	}
	return errors.Join(errs...)
}

func (r *runner) close() {
	for _, s := range r.order {
		_ = s.close()
	}
	for _, h := range r.owned {
		_ = h.sql.Close()
	}
}

// close rolls back the session's transaction and closes its statements and
// connection.
func (s *session) close() error {
	return errors.Join(append(s.release(), s.conn.Close())...)
}

// release rolls back the session's transaction and closes its statements,
// before its connection is closed or discarded.
func (s *session) release() []error {
	var errs []error
	if s.tx != nil {
		if err := s.tx.Rollback(); err != nil && !errors.Is(err, sql.ErrTxDone) {
			errs = append(errs, err)
		}
		s.tx = nil
	}
	for _, st := range s.stmts {
		errs = append(errs, st.Close())
	}
	return errs
}

// execer is what a session runs statements on: its connection, or its
// transaction while one is open.
type execer interface {
	ExecContext(ctx context.Context, query string, args ...any) (sql.Result, error)
	QueryContext(ctx context.Context, query string, args ...any) (*sql.Rows, error)
	PrepareContext(ctx context.Context, query string) (*sql.Stmt, error)
}

func (s *session) on() execer {
	if s.tx != nil {
		return s.tx
	}
	return s.conn
}

func (s *session) do(ctx context.Context, st *Step) string {
	switch st.Verb {
	case Begin:
		if s.tx != nil {
			return "ERROR: the session is already in a transaction"
		}
		var opts *sql.TxOptions
		if st.ReadOnly {
			opts = &sql.TxOptions{ReadOnly: true}
		}
		tx, err := s.conn.BeginTx(ctx, opts)
		if err != nil {
			return renderError(err)
		}
		s.tx = tx
		return "ok"
	case Commit, Rollback:
		if s.tx == nil {
			return "ERROR: no transaction on the session"
		}
		tx := s.tx
		s.tx = nil
		var err error
		if st.Verb == Commit {
			err = tx.Commit()
		} else {
			err = tx.Rollback()
		}
		if err != nil {
			return renderError(err)
		}
		return "ok"
	case Prepare:
		if old := s.stmts[st.Stmt]; old != nil {
			_ = old.Close()
			delete(s.stmts, st.Stmt)
		}
		stmt, err := s.conn.PrepareContext(ctx, st.SQL)
		if err != nil {
			return renderError(err)
		}
		s.stmts[st.Stmt] = stmt
		return "ok"
	}

	args := st.Args
	if st.Mode != "" {
		args = append([]any{execModes[st.Mode]}, args...)
	}
	var (
		res  sql.Result
		rows *sql.Rows
		err  error
	)
	if st.Stmt != "" {
		stmt := s.stmts[st.Stmt]
		if stmt == nil {
			return fmt.Sprintf("ERROR: no prepared statement %q on session %s", st.Stmt, st.Session)
		}
		if s.tx != nil {
			stmt = s.tx.StmtContext(ctx, stmt)
			defer stmt.Close()
		}
		if st.Verb == Exec {
			res, err = stmt.ExecContext(ctx, args...)
		} else {
			rows, err = stmt.QueryContext(ctx, args...)
		}
	} else if st.Verb == Exec {
		res, err = s.on().ExecContext(ctx, st.SQL, args...)
	} else {
		rows, err = s.on().QueryContext(ctx, st.SQL, args...)
	}
	if err != nil {
		return renderError(err)
	}
	if st.Verb == Exec {
		n, err := res.RowsAffected()
		if err != nil {
			return "ok ?"
		}
		return "ok " + strconv.FormatInt(n, 10)
	}
	return renderRows(rows)
}

// renderRows renders every result set as a header ("name TYPE | …"), one
// line per row ("v | v") and a row count. An error at any point, even after
// some rows, makes the whole step that error: the statement failed.
func renderRows(rows *sql.Rows) string {
	defer rows.Close()
	var b strings.Builder
	for set := 0; ; set++ {
		cols, err := rows.ColumnTypes()
		if err != nil {
			return renderError(err)
		}
		if set > 0 {
			b.WriteByte('\n')
		}
		names, types := make([]string, len(cols)), make([]string, len(cols))
		for i, c := range cols {
			names[i], types[i] = c.Name(), c.DatabaseTypeName()
		}
		writeHeader(&b, names, types)
		vals := make([]any, len(cols))
		ptrs := make([]any, len(cols))
		for i := range vals {
			ptrs[i] = &vals[i]
		}
		n := 0
		for rows.Next() {
			if err := rows.Scan(ptrs...); err != nil {
				return renderError(err)
			}
			cells := make([]string, len(vals))
			for i, v := range vals {
				cells[i] = renderValue(v)
			}
			b.WriteByte('\n')
			b.WriteString(strings.Join(cells, " | "))
			n++
		}
		if err := rows.Err(); err != nil {
			return renderError(err)
		}
		if n == 1 {
			b.WriteString("\n(1 row)")
		} else {
			fmt.Fprintf(&b, "\n(%d rows)", n)
		}
		if !rows.NextResultSet() {
			if err := rows.Err(); err != nil {
				return renderError(err)
			}
			return b.String()
		}
	}
}

// renderValue renders one value as PostgreSQL's text output would for the
// types scenarios use; a string that could be mistaken for another value or
// for the layout is quoted.
func renderValue(v any) string {
	switch v := v.(type) {
	case nil:
		return "NULL"
	case int64:
		return strconv.FormatInt(v, 10)
	case float64:
		return strconv.FormatFloat(v, 'g', -1, 64)
	case bool:
		if v {
			return "t"
		}
		return "f"
	case []byte:
		return renderString(string(v))
	case string:
		return renderString(v)
	case time.Time:
		return v.UTC().Format(time.RFC3339Nano)
	}
	return fmt.Sprintf("%v", v)
}

func renderString(s string) string {
	if s == "" || s == "NULL" || strings.ContainsAny(s, "|\n\r\"") || strings.TrimSpace(s) != s {
		return strconv.Quote(s)
	}
	return s
}

// renderError renders a PostgreSQL error as "ERROR SQLSTATE: message" and
// any other error as "ERROR: message".
func renderError(err error) string {
	var pg *pgconn.PgError
	if errors.As(err, &pg) {
		return "ERROR " + pg.Code + ": " + pg.Message
	}
	return "ERROR: " + err.Error()
}

// Conn is a session of a front end other than database/sql, on which
// [RunConnTarget] runs a scenario's steps: a statement, with its bind
// arguments, run for its rows affected or for its first result's rows, and
// the transaction begun and ended through the front end's own API. A
// [StmtConn] prepares statements too. The runner uses a Conn from one
// goroutine at a time.
type Conn interface {
	// Exec runs sql with args and returns the rows it affected. With
	// [ConnTarget.PgxArgs], args may begin with a pgx.QueryExecMode; sql
	// may be the name of a statement [StmtConn.Prepare] prepared.
	Exec(ctx context.Context, sql string, args []any) (rowsAffected int64, err error)
	// Query runs sql with args (as Exec takes them) and returns its first
	// result, non-nil when err is nil.
	Query(ctx context.Context, sql string, args []any) (*Result, error)
	// Begin begins a transaction, read-only for "begin readonly".
	Begin(ctx context.Context, readOnly bool) error
	// Commit commits the transaction Begin began; a COMMIT that rolled
	// back (a failed transaction) is an error, as pgx's Tx.Commit says.
	Commit(ctx context.Context) error
	// Rollback rolls back the transaction Begin began.
	Rollback(ctx context.Context) error
	// Close ends the session: its database session ends.
	Close(ctx context.Context) error
}

// StmtConn is a Conn that prepares statements as pgx does: Prepare names a
// statement on the session; Exec and Query with the name as sql run it.
//
// A prepare step calls Prepare with a name of the runner's (the step's
// stmt= label, "_" and the step's line: "ins_12"), a new one at every
// prepare step, so that preparing a label again, with another statement,
// never reuses a name (pgx refuses that, and a Conn has no Deallocate): the
// label names the latest statement prepared under it, the earlier ones stay
// prepared, unused, until the session ends. "exec stmt=LABEL" and "query
// stmt=LABEL" call Exec and Query with that name as sql, inside the
// session's transaction when one is open.
type StmtConn interface {
	Conn
	Prepare(ctx context.Context, name, sql string) error
}

// Result is a query's rows as a [Conn] gives them: the columns' names and
// database type names (as database/sql's DatabaseTypeName: "INT8",
// "TEXT"), and the values as pgx's database/sql driver scans them into an
// any (int64, float64, bool, string, []byte, time.Time, nil).
type Result struct {
	Columns, Types []string
	Rows           [][]any
}

// ConnTarget opens the sessions of a front end other than database/sql,
// on which [RunConnTarget] runs scenarios.
type ConnTarget struct {
	// Open opens a session on database db (DefaultDB, or a db= name) with
	// params (a URL query from the session's first step's dsn=; "" for none).
	// Every db= name is a database of its own, empty at its first use. A
	// front end that has one database only, or takes no parameters,
	// returns an error for the others, which ends the run: [RunConns]
	// picks the scenarios that need neither.
	Open func(ctx context.Context, db, params string) (Conn, error)
	// Recreate, if set, drops database db (WITH (FORCE)) and creates it
	// again, empty; the runner has closed every session on it first.
	// Scenarios with recreate steps need it.
	Recreate func(ctx context.Context, db string) error
	// PgxArgs: the Conn's Exec and Query take pgx's query options as leading
	// arguments, as pgx's own methods do: steps with mode= run, with the
	// mode's pgx.QueryExecMode prepended to the arguments (as Run does for
	// database/sql). Scenarios with mode= need it.
	PgxArgs bool
}

// Runs reports whether tgt can run sc as far as tgt says: steps with mode=
// need PgxArgs, recreate steps need Recreate. What the sessions Open gives
// can do is known only once they are open: prepare steps need them to be
// [StmtConn]s (RunConnTarget fails at a prepare step on one that is not),
// and db= and dsn= need an Open that opens such sessions. [RunConns] tells
// the scenarios that need none of this.
func (tgt ConnTarget) Runs(sc *Scenario) bool {
	return tgt.refuse(sc) == nil
}

// refuse says why tgt cannot run sc, or returns nil: see Runs.
func (tgt ConnTarget) refuse(sc *Scenario) error {
	for i := range sc.Steps {
		st := &sc.Steps[i]
		switch {
		case st.Mode != "" && !tgt.PgxArgs:
			return fmt.Errorf("%s:%d: mode=%s needs a ConnTarget with PgxArgs", sc.Path, st.Line, st.Mode)
		case st.Verb == Recreate && tgt.Recreate == nil:
			return fmt.Errorf("%s:%d: recreate needs a ConnTarget with Recreate", sc.Path, st.Line)
		}
	}
	return nil
}

// RunConns reports whether sc runs on the sessions of any [ConnTarget]:
// plain [Conn]s (no prepared statements), on one database (no db= but
// DefaultDB, no recreate), opened without parameters (no dsn=), and no
// pgx query modes (no mode=). Together and disconnect steps are fine.
func RunConns(sc *Scenario) bool {
	for i := range sc.Steps {
		if st := &sc.Steps[i]; st.Verb == Prepare || st.Stmt != "" || st.Mode != "" || st.DSN != "" ||
			st.Verb == Recreate || st.DB != DefaultDB {
			return false
		}
	}
	return true
}

// RunConnTarget runs the steps of sc on sessions tgt opens and returns the
// transcript, rendered as [Run] renders database/sql's, so that the two
// compare. It runs every kind of step as Run, [RunOpen] and [RunDatabases]
// do: a session opens at its first step with Open (its database, its
// first step's dsn=) and runs its steps through its Conn's methods
// (transactions with Begin, Commit and Rollback; prepared statements as
// [StmtConn] says; mode= as [ConnTarget.PgxArgs] says); together steps run
// at the same moment, each in a goroutine, every one started and waiting
// before any begins; disconnect rolls back the session's transaction, if
// it has one, and closes it (Close), its next step opening it anew;
// recreate does so for every session on the database, then calls Recreate.
// Every session is closed so before it returns.
//
// A failing step is part of the transcript, not an error: RunConnTarget
// returns an error when ctx ends, when tgt cannot run sc ([ConnTarget.Runs]),
// when a session cannot be opened or closed, a database recreated, or a
// statement prepared on a session that is not a StmtConn.
func RunConnTarget(ctx context.Context, tgt ConnTarget, sc *Scenario) (Transcript, error) {
	if tgt.Open == nil {
		return nil, errors.New("conformance: a ConnTarget without Open")
	}
	if err := tgt.refuse(sc); err != nil {
		return nil, err
	}
	r := &connRunner{tgt: tgt, sessions: map[string]*connSession{}}
	defer r.close(context.WithoutCancel(ctx))
	return runSteps(ctx, r, sc)
}

// connRunner is RunConnTarget's stepRunner.
type connRunner struct {
	tgt      ConnTarget
	sessions map[string]*connSession
	order    []*connSession // the open sessions, in order of opening
}

// connSession is a session of a connRunner.
type connSession struct {
	name  string
	db    string // the database it is on
	conn  Conn
	inTx  bool              // between a Begin and its Commit or Rollback
	stmts map[string]string // stmt= label → the name it is prepared under
}

func (r *connRunner) session(ctx context.Context, st *Step) (*connSession, error) {
	if s := r.sessions[st.Session]; s != nil {
		if st.DSN != "" {
			return nil, errors.New("dsn= on a step of a session already open")
		}
		return s, nil
	}
	c, err := r.tgt.Open(ctx, st.DB, st.DSN)
	if err != nil {
		return nil, err
	}
	if c == nil {
		return nil, errors.New("the ConnTarget's Open returned no Conn and no error")
	}
	s := &connSession{name: st.Session, db: st.DB, conn: c, stmts: map[string]string{}}
	r.sessions[st.Session] = s
	r.order = append(r.order, s)
	return s, nil
}

func (r *connRunner) recreate(ctx context.Context, db string) error {
	if r.tgt.Recreate == nil {
		return errors.New("recreate needs a ConnTarget with Recreate")
	}
	var errs []error
	r.order = slices.DeleteFunc(r.order, func(s *connSession) bool {
		if s.db != db {
			return false
		}
		errs = append(errs, s.close(ctx))
		delete(r.sessions, s.name)
		return true
	})
	if err := errors.Join(errs...); err != nil {
		return fmt.Errorf("close: %w", err)
	}
	return r.tgt.Recreate(ctx, db)
}

func (r *connRunner) disconnect(ctx context.Context, name string) error {
	s := r.sessions[name]
	if s == nil {
		return nil
	}
	delete(r.sessions, name)
	r.order = slices.DeleteFunc(r.order, func(o *connSession) bool { return o == s })
	return s.close(ctx)
}

// close closes every session left, errors ignored: the run is over.
func (r *connRunner) close(ctx context.Context) {
	for _, s := range r.order {
		_ = s.close(ctx)
	}
	r.order = nil
	clear(r.sessions)
}

// close rolls back the session's transaction, if it has one, and closes
// its Conn; its prepared statements go with it (a session opened again
// has none).
func (s *connSession) close(ctx context.Context) error {
	var errs []error
	if s.inTx {
		s.inTx = false
		errs = append(errs, s.conn.Rollback(ctx))
	}
	errs = append(errs, s.conn.Close(ctx))
	return errors.Join(errs...)
}

// do is session.do for a Conn: the same transcripts for the same outcomes.
func (r *connRunner) do(ctx context.Context, s *connSession, st *Step) (string, error) {
	var err error
	switch st.Verb {
	case Begin:
		if s.inTx {
			return "ERROR: the session is already in a transaction", nil
		}
		if err = s.conn.Begin(ctx, st.ReadOnly); err == nil {
			s.inTx = true
		}
	case Commit, Rollback:
		if !s.inTx {
			return "ERROR: no transaction on the session", nil
		}
		s.inTx = false
		if st.Verb == Commit {
			err = s.conn.Commit(ctx)
		} else {
			err = s.conn.Rollback(ctx)
		}
	case Prepare:
		sc, ok := s.conn.(StmtConn)
		if !ok {
			return "", fmt.Errorf("stmt=%s: the session's Conn (%T) is not a StmtConn: it cannot prepare statements", st.Stmt, s.conn)
		}
		// As database/sql's runner closes the label's statement first: a
		// failing prepare leaves the label without one.
		delete(s.stmts, st.Stmt)
		name := st.Stmt + "_" + strconv.Itoa(st.Line)
		if err = sc.Prepare(ctx, name, st.SQL); err == nil {
			s.stmts[st.Stmt] = name
		}
	case Exec, Query:
		return r.run(ctx, s, st)
	default:
		return "", fmt.Errorf("%s is not a step of a session", st.Verb)
	}
	if err != nil {
		return renderError(err), nil
	}
	return "ok", nil
}

// run runs an exec or query step on s.
func (r *connRunner) run(ctx context.Context, s *connSession, st *Step) (string, error) {
	args := st.Args
	if st.Mode != "" {
		if !r.tgt.PgxArgs {
			return "", fmt.Errorf("mode=%s needs a ConnTarget with PgxArgs", st.Mode)
		}
		args = append([]any{execModes[st.Mode]}, args...)
	}
	sql := st.SQL
	if st.Stmt != "" {
		name, ok := s.stmts[st.Stmt]
		if !ok {
			return fmt.Sprintf("ERROR: no prepared statement %q on session %s", st.Stmt, st.Session), nil
		}
		sql = name
	}
	if st.Verb == Exec {
		n, err := s.conn.Exec(ctx, sql, args)
		if err != nil {
			return renderError(err), nil
		}
		return "ok " + strconv.FormatInt(n, 10), nil
	}
	res, err := s.conn.Query(ctx, sql, args)
	if err != nil {
		return renderError(err), nil
	}
	if res == nil {
		return "", errors.New("the Conn's Query returned neither a Result nor an error")
	}
	return renderResult(res), nil
}

// renderResult renders a Result as renderRows renders database/sql's rows.
func renderResult(res *Result) string {
	var b strings.Builder
	writeHeader(&b, res.Columns, res.Types)
	for _, row := range res.Rows {
		cells := make([]string, len(row))
		for i, v := range row {
			cells[i] = renderValue(v)
		}
		b.WriteByte('\n')
		b.WriteString(strings.Join(cells, " | "))
	}
	if len(res.Rows) == 1 {
		b.WriteString("\n(1 row)")
	} else {
		fmt.Fprintf(&b, "\n(%d rows)", len(res.Rows))
	}
	return b.String()
}

// noColumns is the header of a result without columns (the result of a
// command through Query): an empty line would end the transcript.
const noColumns = "(no columns)"

// writeHeader writes a result's header: "name TYPE | …", or noColumns.
func writeHeader(b *strings.Builder, names, types []string) {
	if len(names) == 0 {
		b.WriteString(noColumns)
		return
	}
	for i, name := range names {
		if i > 0 {
			b.WriteString(" | ")
		}
		b.WriteString(name)
		if i < len(types) && types[i] != "" {
			b.WriteString(" " + types[i])
		}
	}
}
