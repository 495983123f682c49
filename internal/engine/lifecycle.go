// One lifecycle per statement, whatever the front end: the text and
// arguments are handed over once ([Session.Run]); the answer comes back, or
// what to send; after sending, the outcome is reported once
// ([Session.Finish]). Everything between — held DDL and the commit
// protocol, the search_path and read-only bookkeeping, error translation,
// transaction abort — happens here.

package engine

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"runtime/debug"
	"strconv"
	"strings"

	"github.com/seqshim/seqshim/rewrite"
	"github.com/seqshim/seqshim/sequence"
)

// Step is what a front end does for one execution of a statement, as
// [Session.Run] decided it.
type Step struct {
	// SQL is the text to send, "" when the statement was answered without
	// the front end sending anything (RowsAffected, Rows).
	SQL string
	// AsIs: SQL is the text the front end gave, to be sent with the
	// caller's arguments only (a prepared statement of the database's may
	// be used for it).
	AsIs bool
	// Values are the values of the statement's sequence calls. When Bound,
	// the front end binds Values[i] as parameter NumParams+1+i, after the
	// caller's arguments; otherwise they are written into SQL. They are
	// the session's scratch space: valid until its next Run.
	Values []int64
	Bound  bool
	// Rows are a Query's answer when it is seqshim's: the rows of a
	// statement answered here, or Rows without columns for one that has
	// none (sequence DDL; nil too when SQL is "", as for a COMMIT the
	// session ran). With SQL set, Rows are the first statement's result,
	// answered here or a command's, and SQL is sent as a command; nil: the
	// database's answer is the Query's.
	Rows *Rows
	// RowsAffected is an Exec's answer when SQL is "", or when Affected.
	RowsAffected int64
	// Affected: RowsAffected is an Exec's answer although SQL is sent, as
	// the last statement of the string was answered here (pgx's Exec
	// returns a string's last command tag).
	Affected bool

	st *Statement
	// later: the front end may still be reading the database's rows when
	// it calls Finish, so Finish leaves what needs the database session
	// (the store sequences of dropped owning columns) to the session's
	// next statement with sequence work.
	later bool
	// hot: Run took one of its hot paths (a statement without sequence
	// work, an INSERT leaving its id to a store default), which Finish
	// finishes without reading the Statement or the engine.
	hot bool
}

// Request is how a front end sends a text and which of the database's
// answers it returns, as its API does (pgx: Exec or Query, and the
// QueryExecMode), so that what seqshim answers itself, wholly or in part,
// has the shape PostgreSQL's answer would have. The zero Request is an
// Exec by the simple protocol (database/sql's Exec without arguments).
type Request struct {
	// Rows: the front end returns the first statement's columns and rows,
	// as pgx's Query does (by the simple protocol, the first statement's of
	// a string); otherwise the rows affected of the last statement, as its
	// Exec does.
	Rows bool
	// Extended: the text goes by the extended query protocol (pgx's Query
	// in every mode but QueryExecModeSimpleProtocol, its Exec with
	// arguments, a prepared statement), which takes one statement: a text
	// of several fails with PostgreSQL's 42601 before any of it runs.
	Extended bool
}

// NumParams is the number of parameters of the statement as written: bound
// Values are parameters NumParams+1, ….
func (s *Step) NumParams() int { return s.st.NumParams() }

// Run is the first half of a statement's lifecycle: it plans query (once
// per text and session), does its sequence work with args, and returns
// what the front end does next, for a text sent as req says. After
// sending Step.SQL the front end reports the outcome with
// [Session.Finish]; a Step with nothing to send is finished already.
//
// Every error is as the application sees it: for the postgres dialect, a
// *pgconn.PgError with PostgreSQL's SQLSTATE, the database's transaction
// aborted if one is open ([Session.Fail]). A bug of seqshim's that panics
// while reading the text is an error too (XX000, naming the statement,
// logged), never a crashed process.
func (s *Session[A]) Run(ctx context.Context, query string, args A, req Request) (Step, error) {
	if p := s.lastPlan; p == passThrough && query == s.lastQuery && s.tx == nil && s.eng.shadow == nil {
		// The hot path of every statement without sequence work, when
		// it runs again (as below, without planning: no guard needed).
		s.heardFrom()
		return Step{SQL: query, AsIs: true, st: p, hot: true}, nil
	}
	if p := s.lastPlan; p != nil && p.draws && query == s.lastQuery && args.Len() == p.numParams {
		var step Step
		if ok, err := s.drawAgain(ctx, query, p, req, &step); ok || err != nil { // err alone: a panic, recovered
			return step, err
		}
	}
	return s.run(ctx, query, args, req)
}

// drawAgain is Run for the session's last text when it comes again and is
// a draws text of one call (an INSERT leaving its id to a store default),
// in a session where drawAlone and Session.nextval would take their fast
// paths: their checks, their draw and their effects, in one function.
// Between two of the program's round trips few of the CPU's cached lines
// are left, and each function of the general path is more of them. ok is
// false when anything it checks is not the common case, with nothing
// done but the reading of the server's reports that run's read-only
// check would make the same: run then does it all. A panic is recovered
// as in run: an error (with ok false, which is then not to be read).
func (s *Session[A]) drawAgain(ctx context.Context, query string, p *Statement, req Request, step *Step) (ok bool, err error) {
	defer s.guard(ctx, query, &err) // as run's: the column defaults may be read from the store below
	// What statement, run and drawAlone check: the text's Statement is
	// still good, the session is ordinary, the transaction not aborted.
	if len(p.calls) != 1 || p.alone || p.bound == "" || !s.ordinary() ||
		p.injects && !s.sameDefaults(ctx, p) {
		return false, nil
	}
	if s.db != nil && s.db.TxStatus() != 'I' {
		return false, nil // in a block (readOnly asks the database), or aborted (txFailed)
	}
	// What Session.nextval checks: the call's resolution still holds.
	c, f := &p.calls[0], &s.fast
	gen := s.eng.ddlGen.Load()
	if f.call != c || f.h == nil || f.ddlGen != gen || f.path != s.path.changes || f.tempsGen != s.temps.gen || !s.path.known && s.db != nil {
		return false, nil
	}
	// callAllowed and here, in their common cases: a superuser (or no
	// twins to check), the handle known to be the database's.
	if s.twins() && !(s.privs.started && s.privs.super && s.eng.relGen.Load() == s.privs.gen) ||
		s.dbID != "" && (f.h != s.hereHandle || gen != s.hereGen) {
		return false, nil
	}
	// writable, outside a transaction block: not read-only by default.
	// What defaultReadOnly reads of the server's reports it keeps, as
	// run's check would, reading them just the same.
	if s.db != nil && s.defaultReadOnly() {
		return false, nil
	}
	s.req, s.served, s.planMode = req, 0, modeUnknown
	if s.db != nil {
		s.txMode = modeUnknown // readOnly, outside a transaction block
	}
	s.resetNatives()
	s.dmlVerb = p.verb
	v, err := s.draw(ctx, c.Name, f.name, f.name, c.Unqualified, f.h)
	if err != nil || s.seq.lastUsed != f.name {
		f.call = nil
	}
	if err != nil {
		s.heardFrom()
		return true, s.Fail(ctx, err)
	}
	s.dmlVerb = ""
	s.heardFrom() // it reaches the database
	step.st, step.Values, step.hot = p, append(s.scratch[:0], v), true
	step.SQL, step.Bound = p.bound, true
	return true, nil
}

// run is Run past its hot path.
func (s *Session[A]) run(ctx context.Context, query string, args A, req Request) (step Step, err error) {
	defer s.guard(ctx, query, &err)
	p, err := s.statement(ctx, query)
	if err != nil {
		return Step{}, err
	}
	if p.alone && s.ordinary() {
		err = s.answerAlone(ctx, p, args, req, &step)
		return step, err
	}
	if p.draws && args.Len() != p.numParams && s.eng.shadow == nil {
		// Arguments that do not match the text's parameters: sent as
		// the program wrote it, pgx or the database refuses it with its
		// own error before any of it runs, and nothing is drawn for it.
		s.heardFrom()
		return Step{SQL: query, AsIs: true, st: p}, nil
	}
	if p == passThrough && s.tx == nil || s.eng.shadow != nil {
		// The hot path: nothing to do but send it. In shadow mode, the
		// database answers every statement as it would without seqshim,
		// and its nextval calls are counted once it succeeded.
		s.heardFrom()
		if s.eng.shadow != nil {
			s.shadowCount(p.plan, args)
			return Step{SQL: query, AsIs: true, st: p}, nil
		}
		return Step{SQL: query, AsIs: true, st: p, hot: true}, nil
	}
	if p.draws && s.ordinary() {
		err = s.drawAlone(ctx, p, args, req, &step)
		return step, err
	}
	if err := s.oneCommand(p, req); err != nil {
		return Step{}, s.Fail(ctx, err)
	}
	s.req = req
	if p.plan == nil || p.plan.PassThrough() {
		return s.passThroughStep(ctx, query, p)
	}
	err = s.planned(ctx, p, args, &step)
	return step, err
}

// ordinary reports whether nothing of the session's state bears on a
// lone Local statement (Statement.alone) but what Session.call reads: no
// sequence DDL held, no temporary relations, no store sequences left to
// drop, not in shadow mode.
func (s *Session[A]) ordinary() bool {
	return s.tx == nil && !s.temps.maybe && !s.orphansPending && s.pendingDrop.query == "" && s.eng.shadow == nil
}

// answerAlone is Run for a lone Local statement in an ordinary session:
// what Session.planned does for it, without the steps that cannot apply.
// SELECT nextval('s') is the hot path of a program that draws its ids
// itself.
// It fills in step, Run's result: a Step made here and returned would be
// copied once more on the way.
func (s *Session[A]) answerAlone(ctx context.Context, p *Statement, args A, req Request, step *Step) error {
	if err := s.txFailed(); err != nil {
		return err
	}
	s.req, s.planMode, s.dmlVerb = req, modeUnknown, ""
	var rows *Rows
	if c := p.nextval; c != nil {
		v, err := s.nextval(ctx, c, args)
		if err != nil {
			return s.Fail(ctx, err)
		}
		rows = s.newRows(p.plan.Statements[0].Columns)
		rows.values = append(rows.small[:0], v)
	} else {
		var err error
		if rows, err = s.local(ctx, &p.plan.Statements[0], args); err != nil {
			return s.Fail(ctx, err)
		}
	}
	step.st, step.RowsAffected = p, int64(rows.NumRows())
	if req.Rows {
		step.Rows = rows
	} else {
		rows.Close()
	}
	return nil
}

// drawAlone is Run for a Statement.draws text in an ordinary session: what
// Session.planned does for it, without the steps that cannot apply (no
// statement of several, none answered here, no temporary relation, no
// effect on the session), in the same order. An INSERT leaving its id to
// a store default is the hot path of the programs that leave their ids to
// the database. Session.drawAgain does what it does, in its common case,
// when the text comes again: a change here is a change there
// (TestDrawAlone compares both with the whole lifecycle).
func (s *Session[A]) drawAlone(ctx context.Context, p *Statement, args A, req Request, step *Step) error {
	if err := s.txFailed(); err != nil {
		return err
	}
	s.req, s.served, s.planMode = req, 0, modeUnknown
	s.resetNatives()
	s.dmlVerb = p.verb
	values := s.scratch[:0]
	for i := range p.calls {
		v, err := s.nextval(ctx, &p.calls[i], args)
		if err != nil {
			s.heardFrom()
			return s.Fail(ctx, err)
		}
		values = append(values, v)
	}
	s.dmlVerb = ""
	s.heardFrom() // it reaches the database
	step.st, step.Values, step.hot = p, values, true
	step.SQL, step.Bound = s.render(p, values)
	return nil
}

// errMultipleCommands is PostgreSQL's error for a text of several
// statements sent by the extended protocol.
var errMultipleCommands = &sequence.Error{Code: sequence.CodeSyntaxError, Kind: sequence.ErrInvalid,
	Message: "cannot insert multiple commands into a prepared statement"}

// oneCommand returns PostgreSQL's error for a text of several statements
// that goes by the extended protocol (req.Extended), or nil: PostgreSQL
// refuses it whole when it parses it, after its syntax errors (the
// plan's own, then) and before anything runs, so seqshim draws and
// applies nothing of it either.
func (s *Session[A]) oneCommand(p *Statement, req Request) error {
	if !req.Extended || p.plan == nil || len(p.plan.Statements) < 2 || s.eng.dialect != rewrite.Postgres {
		return nil
	}
	if e := (*sequence.Error)(nil); errors.As(p.plan.Err, &e) && (e.Code == sequence.CodeSyntaxError || e.Code == sequence.CodeCharacterNotInRepertoire) {
		return nil // PostgreSQL's own error comes first: the plan's
	}
	return errMultipleCommands
}

// Prepare is what a front end's prepared statement does once, when the
// program prepares query: its plan is made, a statement seqshim refuses
// fails now, as a statement the database cannot parse would; and when the
// text may go to the database as it is, prepare (the front end's own
// preparation in the database) is called, its error translated as
// [Session.Finish] does. Each execution then goes through [Session.Run]
// with the same text.
func (s *Session[A]) Prepare(ctx context.Context, query string, prepare func(context.Context) error) (st *Statement, err error) {
	defer s.guard(ctx, query, &err)
	p, err := s.statement(ctx, query)
	if err != nil {
		return nil, err
	}
	if s.eng.shadow == nil && p.plan != nil {
		if err := s.oneCommand(p, Request{Extended: true}); err != nil { // a prepared statement takes one
			return nil, s.Fail(ctx, err)
		}
		if p.plan.Err != nil && !s.mayRescue(p.plan) {
			return nil, s.Fail(ctx, s.typeError(ctx, p.plan.Err))
		}
		if p.pathErr != nil {
			return nil, s.Fail(ctx, p.pathErr)
		}
	}
	if p.plan == nil || p.plan.PassThrough() || s.eng.shadow != nil {
		if err := prepare(ctx); err != nil {
			return nil, s.DatabaseError(ctx, err)
		}
	}
	return p, nil
}

// statement returns what the session keeps for query: a text seen before
// costs a map lookup, or a comparison of pointers for the text of the
// session's last statement (and, for one that may insert, a look at the
// version of the store's column defaults); others are planned (prepare).
func (s *Session[A]) statement(ctx context.Context, query string) (p *Statement, err error) {
	if p = s.lastPlan; p == nil || query != s.lastQuery {
		p = s.plans[query]
	}
	if p == nil || p.injects && !s.sameDefaults(ctx, p) {
		if p, err = s.prepare(ctx, query, p); err != nil {
			return nil, err
		}
	}
	if len(query) <= maxPlanText {
		s.lastQuery, s.lastPlan = query, p
	}
	return p, nil
}

// Finish is the second half of a statement's lifecycle: the front end sent
// step.SQL and err is what the database answered. It returns the error as
// the application sees it (a 42P01 about a sequence of the store becomes a
// 0A000 saying why, see [Session.DatabaseError]) and, on success, keeps the
// session in step with what ran: DISCARD, a transaction that ended, the
// store sequences of a dropped schema or column.
func (s *Session[A]) Finish(ctx context.Context, step *Step, err error) error {
	p := step.st
	if err == nil && (step.hot || s.eng.shadow == nil && (p == passThrough || p.draws)) {
		// The hot paths first, without reading a plan (nor, when Run
		// took one of them, the Statement or the engine): a statement
		// without sequence work, an INSERT leaving its id to a store
		// default. Neither has effects, drops or redefines anything.
		s.afterSent(nil)
		return nil
	}
	if err != nil {
		s.shadow = s.shadow[:0]
		if p.plan != nil && p.plan.Temps != 0 {
			// A string may fail after a statement of it changed the
			// temporary relations (one after a COMMIT in it).
			s.noteTemps(p.plan.Temps)
		}
		return s.DatabaseError(ctx, err)
	}
	if p.plan != nil && p.plan.Redefines {
		s.eng.relGen.Add(1) // what views.go read may have changed
	}
	switch {
	case s.eng.shadow != nil:
		s.shadowCounted()
		s.heardFrom()
		return nil
	case step.AsIs:
		s.afterSent(p.plan)
		return s.afterDatabase(ctx, step.SQL)
	}
	return s.afterStatements(ctx, p, step.later)
}

// planned is Run for a text with sequence work: it fills in step.
func (s *Session[A]) planned(ctx context.Context, p *Statement, args A, step *Step) error {
	if p.session || s.orphansPending || p.plan.Err != nil || p.pathErr != nil || s.pendingDrop.query != "" {
		if err := s.beforePlanned(ctx, p, step); err != nil || step.st != nil {
			return err
		}
	}
	ev, err := s.evaluatePlan(ctx, p, args)
	if err != nil {
		return err
	}
	switch {
	case p.temp.draws:
		s.seq.from = lastUnclear
	case p.drawsTemp:
		s.drewTemp(ev.drew)
	}
	step.st, step.Rows, step.RowsAffected = p, ev.First, ev.RowsAffected
	if ev.Send {
		step.SQL, step.Bound = s.render(p, ev.Values)
		step.Values = ev.Values
		step.Affected = ev.Last
		if ev.Drops && s.req.Rows && step.Rows == nil {
			// Finish drops the store sequences of the columns dropped,
			// with a catalog query on the session, which must not wait on
			// the Query's rows. A first statement without rows is sent as
			// a command, as its answer is no columns; one that may return
			// rows (SELECT …; DROP TABLE t) leaves the drop for later.
			if p.plan.Statements[0].Rows {
				step.later = true
			} else {
				step.Rows = s.newRows(nil)
			}
		}
	}
	return nil
}

// beforePlanned is what planned does before the sequence work, seldom:
// a text that changes the search_path or drops a schema too (DROP is a
// trigger word: OWNED BY), store sequences whose owning columns went, a
// plan refused. A statement it runs itself fills in step.
func (s *Session[A]) beforePlanned(ctx context.Context, p *Statement, step *Step) error {
	if p.session {
		if err := s.sessionStatement(ctx, p); err != nil {
			return err
		}
	}
	if s.orphansPending && s.db != nil && s.db.TxStatus() == 'I' {
		if err := s.dropOrphans(ctx); err != nil {
			return s.Fail(ctx, err)
		}
	}
	if p.plan.Err != nil && !s.mayRescue(p.plan) {
		return s.Fail(ctx, s.typeError(ctx, p.plan.Err))
	}
	if p.pathErr != nil {
		return s.Fail(ctx, p.pathErr)
	}
	if s.dropsSchema(p.query) {
		var err error
		*step, err = s.runHere(ctx, p.query, p) // a statement of its own: nothing else to do
		return err
	}
	return nil
}

// passThroughStep is Run for a text without sequence work that the session
// must look at: it may change the search_path, drop a schema holding store
// sequences, or control the transaction while DDL is held.
func (s *Session[A]) passThroughStep(ctx context.Context, query string, p *Statement) (Step, error) {
	s.heardFrom()
	switch {
	case p.temp.draws:
		s.seq.from = lastUnclear
	case p.drawsTemp:
		s.drewTemp(false)
	}
	if p.session {
		if err := s.sessionStatement(ctx, p); err != nil {
			return Step{}, err
		}
	}
	if p.plan != nil && s.orphansPending && s.db != nil && s.db.TxStatus() == 'I' {
		if err := s.dropOrphans(ctx); err != nil {
			return Step{}, s.Fail(ctx, err)
		}
	}
	if s.tx != nil {
		return s.heldPassThrough(ctx, query, p)
	}
	if s.dropsSchema(query) {
		return s.runHere(ctx, query, p)
	}
	return Step{SQL: query, AsIs: true, st: p}, nil
}

// runHere sends query, a statement p the session must see complete before
// it goes on (DROP SCHEMA … CASCADE: the store's sequences of the schema go
// only once the database dropped it), and finishes it: the front end is
// handed the result.
func (s *Session[A]) runHere(ctx context.Context, query string, p *Statement) (Step, error) {
	n, err := s.db.Exec(ctx, query)
	sent := Step{SQL: query, AsIs: p.plan == nil || p.plan.PassThrough(), st: p}
	if err := s.Finish(ctx, &sent, err); err != nil {
		return Step{}, err
	}
	return Step{RowsAffected: n, st: p}, nil
}

// heldPassThrough is Run for a text without sequence work while the session
// holds sequence DDL for its transaction: COMMIT runs the commit protocol
// (the store first, then the COMMIT, sent here), ROLLBACK drops what is
// held, and savepoints keep a copy of it, each sent here whichever way the
// front end was given it (Exec, Query, a prepared statement). A text that
// mixes transaction control with other statements is refused (0A000): send
// COMMIT or ROLLBACK on its own.
func (s *Session[A]) heldPassThrough(ctx context.Context, query string, p *Statement) (Step, error) {
	var ctl rewrite.TxControl
	if p.plan != nil {
		var mixed bool
		if ctl, mixed = p.plan.Control(); mixed {
			return Step{}, s.Fail(ctx, errMixedControl)
		}
	}
	send := func(sql string) func(context.Context) error {
		return func(ctx context.Context) error {
			_, err := s.db.Exec(ctx, sql)
			return err
		}
	}
	done := Step{st: p}
	switch ctl.Op {
	case rewrite.TxNone, rewrite.TxBegin:
		return Step{SQL: query, AsIs: true, st: p}, nil
	case rewrite.TxCommit:
		return done, s.Commit(ctx, send(query), send("ROLLBACK"))
	case rewrite.TxRollback:
		return done, s.Rollback(ctx, send(query))
	case rewrite.TxPrepare:
		return Step{}, s.Fail(ctx, &sequence.Error{Code: sequence.CodeFeatureNotSupported, Kind: sequence.ErrInvalid,
			Message: "seqshim: PREPARE TRANSACTION after sequence DDL in the transaction is not supported: the store cannot hold the DDL for a later COMMIT PREPARED; commit the sequence DDL in a transaction of its own"})
	}
	if err := send(query)(ctx); err != nil {
		return Step{}, s.DatabaseError(ctx, err)
	}
	switch ctl.Op {
	case rewrite.TxSavepoint:
		s.savepoint(ctl.Savepoint)
	case rewrite.TxRollbackTo:
		s.rollbackTo(ctl.Savepoint)
	case rewrite.TxRelease:
		s.release(ctl.Savepoint)
	}
	if p.plan != nil && p.plan.Redefines {
		s.eng.relGen.Add(1)
	}
	s.afterSent(p.plan)
	return done, nil
}

// codeInternalError is PostgreSQL's internal_error.
const codeInternalError = "XX000"

// maxQuoted bounds how much of a statement an internal error quotes.
const maxQuoted = 200

// guard is the boundary where text enters the core: a panic while reading
// or running a statement — a bug of seqshim's — becomes an error naming
// the statement, logged with its stack, and the database's transaction is
// aborted as for any other failed statement. The process goes on.
func (s *Session[A]) guard(ctx context.Context, query string, err *error) {
	r := recover()
	if r == nil {
		return
	}
	quoted := query
	if len(quoted) > maxQuoted {
		quoted = quoted[:maxQuoted] + "…"
	}
	logger := s.eng.cache.Options().Logger
	if logger == nil {
		logger = slog.Default()
	}
	logger.ErrorContext(ctx, "seqshim: internal error: a statement failed on a bug of seqshim's; please report it",
		"statement", quoted, "panic", fmt.Sprint(r), "stack", string(debug.Stack()))
	if s.wrapped {
		// A transaction block the session opened itself goes with the
		// statement: the front end never opened it and would not end it.
		s.wrapped = false
		_ = s.Rollback(context.WithoutCancel(ctx), func(ctx context.Context) error {
			_, err := s.db.Exec(ctx, "ROLLBACK")
			return err
		})
	}
	*err = s.Fail(ctx, &sequence.Error{Code: codeInternalError, Kind: sequence.ErrInvalid, Message: fmt.Sprintf(
		"seqshim: internal error on the statement %q: %v (a bug of seqshim's, logged with its stack; the statement did not run)", quoted, r)})
}

// Tag is the command tag PostgreSQL gives the last statement of a step
// answered without the front end sending anything (Step.SQL ""), or whose
// RowsAffected is the answer (Step.Affected), for a front end whose API
// returns tags (pgx's Exec): "SELECT n" for a query answered here,
// "INSERT 0 n", "UPDATE n" … with RowsAffected, otherwise the statement's
// command, as PostgreSQL names it ("CREATE SEQUENCE", "ALTER TABLE",
// "COMMIT", …). It is "" for a step of nothing.
func (s *Step) Tag() string {
	if s.st == nil || s.st.plan == nil || len(s.st.plan.Statements) == 0 {
		return ""
	}
	st := &s.st.plan.Statements[len(s.st.plan.Statements)-1]
	n := strconv.FormatInt(s.RowsAffected, 10)
	switch {
	case st.Kind == rewrite.Local:
		return "SELECT " + n
	case st.Verb == "INSERT":
		return "INSERT 0 " + n
	case st.Verb != "": // UPDATE, DELETE, MERGE, also after WITH
		return st.Verb + " " + n
	}
	tag := commandTag(st.Text)
	switch tag {
	case "SELECT", "COPY", "FETCH", "MOVE":
		return tag + " " + n
	}
	return tag
}

// commandTag is the tag of a statement by its leading keywords: CREATE,
// ALTER and DROP name the kind of object (CREATE UNLOGGED SEQUENCE:
// CREATE SEQUENCE), TRUNCATE is TRUNCATE TABLE, START TRANSACTION is
// itself, ROLLBACK TO SAVEPOINT is ROLLBACK, END is COMMIT, ABORT is
// ROLLBACK, others their first keyword.
func commandTag(text string) string {
	words := strings.Fields(strings.ToUpper(text))
	for len(words) > 0 && strings.HasPrefix(words[0], "--") {
		words = words[1:]
	}
	if len(words) == 0 {
		return ""
	}
	first := strings.TrimRight(words[0], ";")
	switch first {
	case "CREATE", "ALTER", "DROP":
		for _, w := range words[1:] {
			switch w {
			case "UNLOGGED", "OR", "REPLACE", "TEMP", "TEMPORARY", "GLOBAL", "LOCAL":
				continue
			}
			return first + " " + strings.TrimRight(w, ";")
		}
	case "TRUNCATE":
		return "TRUNCATE TABLE"
	case "START":
		return "START TRANSACTION"
	case "END":
		return "COMMIT"
	case "ABORT":
		return "ROLLBACK"
	}
	return first
}
