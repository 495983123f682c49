package engine

import (
	"context"
	"sync/atomic"

	"github.com/seqshim/seqshim/rewrite"
	"github.com/seqshim/seqshim/seqcache"
)

// Args are the bind arguments of one execution, as a front end holds them.
type Args interface {
	// Len is the number of arguments that are SQL parameters (a front end
	// leaves out others, such as pgx's leading query options).
	Len() int
	// Arg returns argument i (0-based) as a plain Go value, nil for NULL,
	// having resolved the front end's own wrappers (driver.Valuer).
	Arg(i int) (any, error)
}

// AnyArgs are arguments held as plain values, as pgx takes them.
type AnyArgs []any

// Len returns len(a).
func (a AnyArgs) Len() int { return len(a) }

// Arg returns a[i].
func (a AnyArgs) Arg(i int) (any, error) { return a[i], nil }

// Session is the engine's side of one physical database session: its
// currval and lastval, its memo of plans, the cache handle it used last and
// scratch space. It is used by one goroutine at a time (as a connection
// is), so it takes no lock.
//
// A is the front end's type of bind arguments. It is a type parameter
// rather than an interface value because a slice held in an interface is
// copied to the heap: with A a slice type such as [AnyArgs], handing the
// arguments over costs no allocation on the hot path.
type Session[A Args] struct {
	// The fields a statement answered in process reads (SELECT
	// nextval('s')) come first, together, then those an INSERT drawing its
	// id reads: between two round trips of the program's, few of them are
	// still in the CPU's caches, and each cache line is a miss.
	eng  *Engine
	db   DB     // nil for the dialects other than postgres
	dbID string // the database's identity (sequence.DatabaseID); "" without db
	tx   *held  // sequence DDL held for the open transaction; nil: none
	// lastQuery and lastPlan are the text of the session's last statement
	// and its Statement: a program running one text over and over (SELECT
	// nextval('s'), an INSERT in a loop) passes the same string, which
	// compares equal by its pointer, without hashing it.
	lastQuery  string
	lastPlan   *Statement
	lastHandle *seqcache.Handle // cache handle of the last nextval
	hereHandle *seqcache.Handle // the last handle found to be the database's (Session.here), at ddlGen hereGen
	hereGen    uint64
	spareRows  *Rows       // local rows closed and ready for reuse; see [Rows.Close]
	seq        state       // currval and lastval
	fast       fastNextval // the resolution of the last nextval call: see Session.nextval

	// Read-only transactions: see readonly.go.
	txMode    txMode // mode of the transaction block, if known
	roDefault txMode // mode a new transaction takes, as last read; modeUnknown: read again
	primary   bool   // the server reported it is not a hot standby: see defaultReadOnly
	roRecheck bool   // read roDefault again after the next round trip: see defaultReadOnly
	// reports counts the server's parameter reports, when the connection
	// was made with CountReports (nil: read them after every round trip);
	// roReports is the count roDefault was read at.
	reports   *atomic.Uint64
	roReports uint64
	planMode  txMode // while evaluating: set by an earlier statement of the string
	// The database's catalog: see catalog.go.
	orphansPending bool    // an owner may have been dropped in a transaction block: see dropOrphans
	nativeAny      bool    // while evaluating: native (below) has anything
	req            Request // how the front end sends the statement running ([Session.Run])
	dmlVerb        string  // while evaluating a Rewrite statement: its rewrite.Statement.Verb
	// What an INSERT drawing its id (Session.drawAlone) reads too.
	served      uint64              // CatalogDDL statements the last Evaluate served: not sent
	scratch     [scratchCalls]int64 // call values of one statement
	defs        *defaults           // the store's column defaults in the database
	temps       temps               // the session's temporary relations: see temp.go
	pendingDrop schemaDrop          // store sequences to drop after the database ran a DROP SCHEMA
	path        searchPath          // the search_path, learned through db
	privs       privileges          // what the session's role may do with the twins: see privileges.go

	// began: the front end began a transaction (Begin), for a session
	// without db; cleared by Commit and Rollback.
	began bool
	// wrapped: the session opened the transaction block it is in itself,
	// to run table DDL as one unit (evaluateTables).
	wrapped bool

	plans      map[string]*Statement    // texts seen here, and what they need
	planBytes  int                      // the length of the texts in plans
	native     rewrite.Natives          // while evaluating: what is left to the database (temporary sequences)
	injected   []*rewrite.TableDefaults // while injecting: the temporary tables' defaults handed out
	viaView    bool                     // while injecting: an INSERT went through a view (views.go)
	tempTarget bool                     // while injecting: an INSERT, UPDATE or COPY target is a temporary table
	sqlBuf     []byte                   // rendering buffer, reused
	shadow     []shadowDraw             // shadow mode: the draws of the statement running

	planChange     string                  // the statement that set planMode
	regclassMisses map[string]regclassMiss // regclass names that are not store sequences': see regclassText
	adopting       bool                    // the store side of a sequence the database has made: see adoptFilled
}

// NewSession returns a session of e on a database session, through which
// the session sends and reads everything it needs of the database (see
// [DB]): the postgres dialect needs one, and NewSession reads the
// session's search_path and its database's identity through it (one
// query). Other dialects take nil.
func NewSession[A Args](ctx context.Context, e *Engine, db DB) (*Session[A], error) {
	if e.dialect != rewrite.Postgres {
		db = nil // nothing of PostgreSQL's session to follow
	} else if db == nil {
		return nil, errNoDB
	}
	s := &Session[A]{eng: e, db: db}
	if c, ok := db.(pgConn); ok {
		s.reports = reports(c.pc)
	}
	if db != nil {
		// One query now, so that no sequence call pays for it.
		if err := s.learnSession(ctx); err != nil {
			return nil, err
		}
	}
	s.defs = e.defaultsOf(s.dbID)
	return s, nil
}

// Engine returns the session's engine.
func (s *Session[A]) Engine() *Engine { return s.eng }

// Statement is a SQL text as one session runs it: its plan, what it may do
// to the session, and, once rendered with bound values, the text sent to
// the database (which then depends on the plan only). It belongs to its
// session.
type Statement struct {
	// The fields read at each use come first, together (see Session).
	plan  *rewrite.Plan
	bound string // "" until rendered, and when values are inlined
	// alone: the text is one Local statement that depends on nothing but
	// its calls (SELECT nextval('s'), …): in an ordinary session it is
	// answered without the rest of the lifecycle (Session.answerAlone).
	alone bool
	// draws: the text is one statement sent to the database with its calls
	// bound or written in, all of them fastCalls, and depends on nothing
	// else of the session's (an INSERT leaving its id to a store default,
	// INSERT … VALUES (nextval('s'), …)): in an ordinary session it is
	// evaluated without the rest of the lifecycle (Session.drawAlone).
	draws bool
	// calls and verb: for a draws text, its statement's Calls and Verb,
	// which drawAlone reads here rather than through the plan: for an
	// INSERT leaving its id to a store default, two cache lines fewer
	// between two of the program's round trips.
	calls     []rewrite.Call
	verb      string
	numParams int  // plan.NumParams
	injects   bool // the plan may insert: its text is made again when column defaults change
	// For an injecting text: text was made with version of the store's
	// column defaults, the session's path generation pathGen and its
	// temporary relations' generation tempGen; memo is false when it was
	// made inside a transaction with column DDL of its own, and then made
	// again at every use.
	memo    bool
	version uint64
	pathGen uint64
	tempGen uint64
	// nextval: the text is SELECT nextval('s') and alike, alone, one call
	// of a sequence named in the text (fastCall).
	nextval *rewrite.Call

	query   string             // the text given
	text    string             // the text planned: query, or query with its column defaults written out
	path    rewrite.PathEffect // what its pass-through statements may do to the search_path
	pathErr error              // an unqualified name after a change of the search_path
	session bool               // the plan has effects on the session: SET search_path, DROP SCHEMA, COMMIT, …
	local   bool               // only Local statements: nothing reaches the database
	// drawsTemp: it leaves a default of a temporary table to the database
	// (lastval may be the database's after it); mayDraw: it may, or not
	// (INSERT … SELECT without a column list); tempTarget: an INSERT,
	// UPDATE or COPY of it is into a temporary table (which a read-only
	// transaction allows).
	drawsTemp, mayDraw, tempTarget bool
	temp                           tempOrder // how its statements depend on temporary relations the string changes
}

// NumParams is the number of parameters of the SQL as written, -1 when the
// session did not count them (a text it sends as it is): parameters added
// for bound call values are not counted.
func (p *Statement) NumParams() int {
	if p.plan == nil {
		return -1
	}
	return p.numParams
}

// sessionStatement notes a text that may change the search_path or drop a
// schema holding store sequences (SET search_path, DROP SCHEMA, …).
func (s *Session[A]) sessionStatement(ctx context.Context, p *Statement) error {
	s.notePath(p.plan.Path)
	if err := s.beforeSchemaDrop(ctx, p); err != nil {
		return s.Fail(ctx, err)
	}
	return nil
}

// A session's memo of texts holds at most maxPlans texts of maxPlanBytes
// in all, none longer than maxPlanText: a text seen once (a batch INSERT
// with its values written in) must not keep megabytes alive, and one
// longer than maxPlanText is prepared at each use, as the first time.
const (
	maxPlans     = 1024
	maxPlanBytes = 1 << 20
	maxPlanText  = 64 << 10
)

// passThrough is what the session keeps for a text that goes to the
// database as it is, needs no column defaults written out and has no
// effect on the session: one value shared by all of them, without a plan.
var passThrough = &Statement{}

// prepare makes what [Session.Run] keeps for query: its plan (the
// statements' sequence work and effects, from one lexing pass), its text
// with the store's column defaults written out when it may insert, planned
// again then. old is what was kept before, reused when the text came out
// the same.
func (s *Session[A]) prepare(ctx context.Context, query string, old *Statement) (*Statement, error) {
	pl, _ := s.eng.planner.Plan(query) // a rejected statement: the plan's Err, when it runs
	text := query                      // what is planned: query with its column defaults written out
	injects := s.eng.shadow == nil && pl.Inserts
	var version uint64
	memo := true
	s.injected, s.tempTarget = s.injected[:0], false
	if injects {
		var err error
		if text, version, memo, err = s.inject(ctx, query); err != nil {
			return nil, s.Fail(ctx, err)
		}
		if text != query {
			pl, _ = s.eng.planner.Plan(text)
		}
	}
	drawsTemp, mayDraw, tempTarget := false, false, false
	if injects {
		for _, t := range s.injected {
			drawsTemp, mayDraw = drawsTemp || t.Drawn, mayDraw || t.MayDraw
		}
		tempTarget = s.tempTarget
	}
	if old != nil && old.text == text && old.drawsTemp == drawsTemp && old.mayDraw == mayDraw && old.tempTarget == tempTarget {
		if memo {
			old.memo, old.version, old.pathGen, old.tempGen = true, version, s.path.changes, s.temps.gen
		}
		return old, nil
	}
	var p *Statement
	if pl.PassThrough() && !pl.Effects() && !injects && !pl.Redefines {
		p = passThrough
	} else {
		p = &Statement{plan: pl, numParams: pl.NumParams, local: allLocal(pl), query: query, text: text, injects: injects,
			session: s.db != nil && s.eng.shadow == nil && pl.Effects(),
			memo:    memo, version: version, pathGen: s.path.changes, tempGen: s.temps.gen,
			drawsTemp: drawsTemp, mayDraw: mayDraw, tempTarget: tempTarget}
		if s.db != nil {
			p.path, p.pathErr = pathBefore(pl)
			if pl.Temps != 0 || pl.Path&(rewrite.EndsTransaction|rewrite.RollsBackToSavepoint) != 0 {
				p.temp = tempOrderOf(pl, text != query || tempTarget)
			}
			p.temp.draws = p.temp.draws || mayDraw
		}
		p.alone = aloneLocal(pl) && !p.session && p.path == 0 && p.pathErr == nil &&
			p.temp == tempOrder{} && !drawsTemp && !tempTarget
		if st := &pl.Statements[0]; p.alone && st.Series == nil && len(st.Calls) == 1 {
			if c := &st.Calls[0]; fastCall(c) {
				p.nextval = c
			}
		}
		p.draws = drawsAlone(pl) && !p.session && p.path == 0 && p.pathErr == nil &&
			p.temp == tempOrder{} && !drawsTemp && !mayDraw && !tempTarget
		if p.draws {
			p.calls, p.verb = pl.Statements[0].Calls, pl.Statements[0].Verb
		}
	}
	if len(query) > maxPlanText {
		return p, nil
	}
	if len(s.plans) >= maxPlans || s.planBytes+len(query) > maxPlanBytes {
		clear(s.plans)
		s.planBytes = 0
		s.lastQuery, s.lastPlan = "", nil
	}
	if s.plans == nil {
		s.plans = make(map[string]*Statement)
	}
	s.plans[query] = p
	s.planBytes += len(query)
	return p, nil
}

// allLocal reports whether every statement of pl is answered in process.
func allLocal(pl *rewrite.Plan) bool {
	for i := range pl.Statements {
		if pl.Statements[i].Kind != rewrite.Local {
			return false
		}
	}
	return len(pl.Statements) > 0
}

// scratchCalls is how many call values of a statement the session keeps
// room for (more are allocated).
const scratchCalls = 4

// drawsAlone reports whether pl is one statement sent to the database with
// its calls' values, every one a fastCall, nothing else to it: no effect
// on the session or the catalog, no temporary relation, no error.
func drawsAlone(pl *rewrite.Plan) bool {
	if len(pl.Statements) != 1 || pl.Err != nil || pl.Effects() || pl.Redefines || pl.Temps != 0 {
		return false
	}
	st := &pl.Statements[0]
	if st.Kind != rewrite.Rewrite || st.Table != nil || st.Series != nil || st.Mode != rewrite.ModeNone ||
		st.Discards || st.Temps != 0 || len(st.Calls) == 0 || len(st.Calls) > scratchCalls {
		return false
	}
	for i := range st.Calls {
		if c := &st.Calls[i]; !fastCall(c) || c.Temp {
			return false
		}
	}
	return true
}

// aloneLocal reports whether pl is one Local statement whose answer
// depends on its calls alone: no regclass name to print with the
// database's search_path, no call the database may have to evaluate (of a
// temporary sequence, or lastval, which may be the database's), no error.
func aloneLocal(pl *rewrite.Plan) bool {
	if len(pl.Statements) != 1 || pl.Err != nil || pl.Effects() {
		return false
	}
	st := &pl.Statements[0]
	if st.Kind != rewrite.Local || st.Fallback() || st.Table != nil {
		return false
	}
	for i := range st.Calls {
		if c := &st.Calls[i]; c.Temp || c.Func == rewrite.Lastval {
			return false
		}
	}
	return true
}

// maxSQLBuf is the largest rendering buffer a session keeps between
// statements.
const maxSQLBuf = 4 << 10

// render returns the text to send to the database for p after its sequence
// work returned values, rendered by rewrite's [rewrite.Plan.AppendSQL] with
// the engine's DDL mode, and whether the values are bound as parameters:
// then the front end binds values[i] as parameter NumParams+1+i after the
// caller's arguments, and the text is kept with p, as it depends on the
// plan only. Otherwise they are inlined.
func (s *Session[A]) render(p *Statement, values []int64) (sql string, bound bool) {
	if p.bound != "" && s.served == 0 && !s.nativeAny {
		return p.bound, true
	}
	buf, bound := s.appendPlan(s.sqlBuf[:0], p.plan, values)
	sql = string(buf)
	if cap(buf) <= maxSQLBuf {
		s.sqlBuf = buf[:0]
	}
	if bound && s.served == 0 && !s.nativeAny {
		p.bound = sql
	}
	return sql, bound
}

// appendPlan renders pl after its evaluation returned values, with what the
// evaluation served itself left out and what it left to the database
// (temporary sequences) as written.
func (s *Session[A]) appendPlan(dst []byte, pl *rewrite.Plan, values []int64) ([]byte, bool) {
	if s.nativeAny {
		return pl.AppendSQLNative(dst, values, s.eng.ddlToDB, s.served, &s.native)
	}
	return pl.AppendSQLServed(dst, values, s.eng.ddlToDB, s.served)
}

// afterSent updates the session after the database ran p as it is (nil: a
// text without effects): DISCARD SEQUENCES and DISCARD ALL clear currval
// and lastval; a transaction that ended without a COMMIT the session saw
// drops what it held; the transaction's read-only mode may have changed.
func (s *Session[A]) afterSent(p *rewrite.Plan) {
	s.heardFrom()
	if s.tx != nil && s.db != nil && s.db.TxStatus() == 'I' {
		// The transaction ended without a COMMIT seqshim saw (a
		// procedure's own COMMIT, …): what it held did not commit.
		s.revert(nil)
	}
	if s.temps.txChanged && s.db.TxStatus() == 'I' {
		s.tempsTxEnd(true) // likewise: its temporary relations may have changed
	}
	if p == nil || !p.Effects() {
		return
	}
	for i := range p.Statements {
		st := &p.Statements[i]
		s.noteTemps(st.Temps) // the temporary relations of this session (temp.go)
		if st.Kind == rewrite.PassThrough {
			s.afterStatement(st)
		}
	}
}

// afterStatement is afterSent for one statement.
func (s *Session[A]) afterStatement(st *rewrite.Statement) {
	if st.Discards {
		s.seq.reset() // the database's lastval goes too
	}
	if st.Mode != rewrite.ModeNone {
		s.txMode = modeUnknown
	}
}

// afterStatements updates the session after the database ran the
// statements of p that [Session.render] rendered. When one of them may have
// dropped a column owning store sequences (OWNED BY), it drops those
// sequences, as PostgreSQL drops them with the column (later: at the
// session's next statement with sequence work, see [Step]); an error is
// the store's, and the statements themselves have run.
func (s *Session[A]) afterStatements(ctx context.Context, p *Statement, later bool) error {
	s.afterSent(p.plan)
	drops := false
	for i := range p.plan.Statements {
		if st := &p.plan.Statements[i]; st.Kind == rewrite.CatalogDDL {
			drops = drops || st.Catalog.Op == rewrite.DropsOwners
		}
	}
	if err := s.afterDatabase(ctx, p.query); err != nil { // DROP SCHEMA … CASCADE
		return err
	}
	switch {
	case drops && later:
		s.orphansPending = true
	case drops:
		return s.dropOrphans(ctx)
	}
	return nil
}
