package conformance

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"strconv"
	"strings"
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
	r := &runner{db: db, open: open, sessions: map[string]*session{}}
	defer r.close()
	var tr Transcript
	for i := range sc.Steps {
		if err := ctx.Err(); err != nil {
			return tr, err
		}
		st := &sc.Steps[i]
		s, err := r.session(ctx, st.Session, st.DSN)
		if err != nil {
			return tr, fmt.Errorf("%s:%d: open session %s: %w", sc.Path, st.Line, st.Session, err)
		}
		tr = append(tr, s.do(ctx, st))
	}
	return tr, nil
}

type runner struct {
	db       *sql.DB
	open     Opener
	sessions map[string]*session
	order    []*session
	dbs      []*sql.DB // opened for dsn= sessions
}

type session struct {
	conn  *sql.Conn
	tx    *sql.Tx
	stmts map[string]*sql.Stmt
}

func (r *runner) session(ctx context.Context, name, dsn string) (*session, error) {
	if s := r.sessions[name]; s != nil {
		if dsn != "" {
			return nil, errors.New("dsn= on a step of a session already open")
		}
		return s, nil
	}
	db := r.db
	if dsn != "" {
		if r.open == nil {
			return nil, errors.New("dsn= needs an Opener (RunOpen)")
		}
		var err error
		if db, err = r.open(dsn); err != nil {
			return nil, err
		}
		r.dbs = append(r.dbs, db)
	}
	c, err := db.Conn(ctx)
	if err != nil {
		return nil, err
	}
	s := &session{conn: c, stmts: map[string]*sql.Stmt{}}
	r.sessions[name] = s
	r.order = append(r.order, s)
	return s, nil
}

func (r *runner) close() {
	for _, s := range r.order {
		if s.tx != nil {
			_ = s.tx.Rollback()
		}
		for _, st := range s.stmts {
			_ = st.Close()
		}
		_ = s.conn.Close()
	}
	for _, db := range r.dbs {
		_ = db.Close()
	}
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
		hdr := make([]string, len(cols))
		for i, c := range cols {
			hdr[i] = c.Name()
			if tn := c.DatabaseTypeName(); tn != "" {
				hdr[i] += " " + tn
			}
		}
		b.WriteString(strings.Join(hdr, " | "))
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
