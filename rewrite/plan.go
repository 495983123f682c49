package rewrite

import (
	"errors"
	"math"
	"strconv"

	"github.com/seqshim/seqshim/sequence"
)

// Dialect selects the lexical rules and the parameter style of the SQL text.
type Dialect uint8

const (
	// Postgres: '…' with '', E'…', U&'…', $tag$…$tag$, "identifiers",
	// nested /* */ comments and $N parameters.
	Postgres Dialect = iota
	// MySQL: '…' and "…" strings with backslash escapes, `identifiers`,
	// # and "-- " comments and ? parameters.
	MySQL
	// SQLite: '…' strings, "identifiers", `identifiers`, [identifiers],
	// -- and /* */ comments, ? and ?NNN parameters.
	SQLite
)

// String returns the dialect's name.
func (d Dialect) String() string {
	switch d {
	case Postgres:
		return "postgres"
	case MySQL:
		return "mysql"
	case SQLite:
		return "sqlite"
	}
	return "Dialect(" + strconv.Itoa(int(d)) + ")"
}

// Kind says what the driver does with one statement.
type Kind uint8

const (
	// PassThrough: nothing to do, send the statement as it is.
	PassThrough Kind = iota
	// Local: the statement is only sequence calls (SELECT nextval('s'),
	// setval('t', 5) AS x), answered in process without the database: one row
	// (or Series rows) of len(Calls) int8 columns named Columns, each row
	// evaluating Calls in order. Or it is only regclass values of names
	// (SELECT 's'::regclass, 'app.s'::regclass::text AS r; Calls of
	// [Regclass]): one row of text columns, answered in process when every
	// name is a store sequence, sent as it is otherwise ([Statement.Fallback]).
	Local
	// Rewrite: send [Statement.AppendSQL]'s text, in which every call site
	// is replaced by its value.
	Rewrite
	// SequenceDDL: CREATE, ALTER or DROP SEQUENCE, described by Statement.DDL,
	// performed on the store instead of the database.
	SequenceDDL
	// Reject: the statement must not run; Statement.Err says why.
	Reject
	// CatalogDDL: a statement about relations that may be about store
	// sequences (Statement.Catalog says how): the front end decides when
	// it runs, and sends the text as it is unless it served it. A table
	// statement with sequence defaults (Statement.Table) is sent as
	// [TableDDL.AppendSQL] writes it.
	CatalogDDL
)

// String returns the kind's name.
func (k Kind) String() string {
	switch k {
	case PassThrough:
		return "PassThrough"
	case Local:
		return "Local"
	case Rewrite:
		return "Rewrite"
	case SequenceDDL:
		return "SequenceDDL"
	case Reject:
		return "Reject"
	case CatalogDDL:
		return "CatalogDDL"
	}
	return "Kind(" + strconv.Itoa(int(k)) + ")"
}

// Func is a sequence function.
type Func uint8

// The sequence functions. x.NEXTVAL, NEXT VALUE FOR x and
// getNextSequenceValue(x) are Nextval; x.CURRVAL is Currval.
const (
	Nextval Func = iota + 1
	Currval
	Lastval
	Setval
	// Regclass is not a function: a name cast to regclass as a value
	// ('s'::regclass, $1::regclass::text), of type Call.Type, which a store
	// sequence has no OID in the database for.
	Regclass
)

// String returns the function's PostgreSQL name, which is also the column
// name PostgreSQL gives an unaliased call.
func (f Func) String() string {
	switch f {
	case Nextval:
		return "nextval"
	case Currval:
		return "currval"
	case Lastval:
		return "lastval"
	case Setval:
		return "setval"
	case Regclass:
		return "regclass"
	}
	return "Func(" + strconv.Itoa(int(f)) + ")"
}

// Operand is a call argument: a constant or a bind argument.
type Operand struct {
	// Arg is the 0-based index of the bind argument holding the value
	// ($N is N-1; the i-th ? is i-1), or -1 for a constant.
	Arg int
	// Value is the constant when Arg is -1. For is_called, 1 is true and 0
	// is false.
	Value int64
}

// Const returns a constant operand.
func Const(v int64) Operand { return Operand{Arg: -1, Value: v} }

// Call is one sequence call site.
type Call struct {
	Func Func
	// Name is the sequence's canonical name (see [sequence.ParseName]), or ""
	// for lastval and for a name passed as a bind argument (NameArg >= 0).
	Name string
	// NameArg is the 0-based index of the bind argument holding the name as
	// regclass text (canonicalise it with sequence.ParseName), or -1.
	NameArg int
	// Unqualified is true when Name was written without a schema: PostgreSQL
	// resolves it through the session's search_path, while Name is
	// canonicalised as in schema public. For a bind argument, see
	// sequence.ParseRelation.
	Unqualified bool
	// Value and IsCalled are setval's second and third arguments; IsCalled
	// is Const(1) when not written.
	Value, IsCalled Operand
	// Temp is true when Name was written in a temporary schema (pg_temp.s,
	// pg_temp_3.s): the sequence is the session's own, in the database,
	// which evaluates the call itself (left as written, also where it is
	// evaluated once per row).
	Temp bool
	// Type is the type of a Regclass value: "regclass", or the type it is
	// cast to next, "text", "varchar" or "name".
	Type string
	// Null is true when an argument is a NULL literal (NULL, NULL::regclass):
	// these functions are strict, so the call returns NULL and changes
	// nothing; a literal Name is still looked up, as PostgreSQL resolves it
	// when it parses the statement.
	Null bool

	// Start and End are the byte offsets of the call site in Statement.Text:
	// the bytes a rewrite replaces.
	Start, End int
	// alias is the column name a rewritten select item keeps (PostgreSQL
	// would otherwise name (42) "?column?" and (42)::int "int4"), written
	// after the item, which ends at aliasAt (End, or the end of the casts
	// and parentheses around the call).
	alias   string
	aliasAt int
}

// Series is generate_series(Start, End) of the Local idiom
// SELECT nextval('s') FROM generate_series(1, n): the statement returns one
// row per value of the series, each row evaluating the calls anew.
type Series struct {
	Start, End Operand
}

// Rows returns the number of rows of a series from start to end (the
// values of Start and End), at most math.MaxInt64.
func (s Series) Rows(start, end int64) int64 {
	if end < start {
		return 0
	}
	d := uint64(end) - uint64(start) // exact even when end-start overflows int64
	if d >= math.MaxInt64 {
		return math.MaxInt64
	}
	return int64(d) + 1
}

// DDLOp is the operation of a sequence DDL statement.
type DDLOp uint8

// Sequence DDL operations.
const (
	Create DDLOp = iota + 1 // CREATE SEQUENCE
	Alter                   // ALTER SEQUENCE with options (may be none, e.g. only OWNED BY)
	Rename                  // ALTER SEQUENCE … RENAME TO
	Drop                    // DROP SEQUENCE
	// Move is ALTER SEQUENCE … SET SCHEMA: RenameTo is the sequence's
	// canonical name in the new schema.
	Move
	// SetLogged is ALTER SEQUENCE … SET LOGGED, or SET UNLOGGED
	// (DDL.Unlogged): the persistence of the database's relation, which a
	// store sequence does not have (the store is durable either way).
	SetLogged
)

// String returns the SQL command.
func (o DDLOp) String() string {
	switch o {
	case Create:
		return "CREATE SEQUENCE"
	case Alter, Rename, Move, SetLogged:
		return "ALTER SEQUENCE"
	case Drop:
		return "DROP SEQUENCE"
	}
	return "DDLOp(" + strconv.Itoa(int(o)) + ")"
}

// DDL is a parsed CREATE, ALTER or DROP SEQUENCE statement. The parser only
// checks the grammar: option values are validated by [sequence.Clauses.Create]
// and [sequence.Clauses.Alter], which give PostgreSQL's messages.
type DDL struct {
	Op DDLOp
	// Names are canonical names: one for CREATE and ALTER, one or more for DROP.
	Names []string
	// Unqualified[i] is true when Names[i] was written without a schema
	// (canonicalised as in public, resolved through the search_path).
	Unqualified []bool
	// Clauses are the options of CREATE and ALTER.
	Clauses sequence.Clauses

	IfNotExists bool // CREATE … IF NOT EXISTS
	IfExists    bool // ALTER / DROP … IF EXISTS
	Unlogged    bool // CREATE UNLOGGED SEQUENCE, ALTER SEQUENCE … SET UNLOGGED
	Cascade     bool // DROP … CASCADE

	// RenameTo is the new canonical name of Rename, in the schema of
	// Names[0], and of Move, in the schema SET SCHEMA names.
	RenameTo string
	// OwnedBy is OWNED BY as written and canonicalised like a name
	// (table.column or schema.table.column), "none" for OWNED BY NONE, or "".
	OwnedBy string
}

// Fallback reports whether the statement is Local and answered in process
// only when every name it has is a store sequence's, and sent to the
// database as it is otherwise: regclass values.
func (s *Statement) Fallback() bool {
	return s.Kind == Local && len(s.Calls) > 0 && s.Calls[0].Func == Regclass
}

// IsUnqualified reports whether Names[i] was written without a schema.
func (d *DDL) IsUnqualified(i int) bool { return i < len(d.Unqualified) && d.Unqualified[i] }

// Statement is one statement of a SQL string.
type Statement struct {
	Kind Kind
	// Text is the statement's original text, without its terminating ';'.
	Text string
	// Calls are the sequence calls in evaluation order (Local and Rewrite).
	Calls []Call
	// Columns are, for Local, the result column names as the database
	// would name them: the alias, else in PostgreSQL the function name
	// (nextval, currval, lastval, setval) and in MySQL and SQLite the
	// expression's text.
	Columns []string
	// Series is set for the Local generate_series idiom, nil otherwise.
	Series *Series
	// DDL is set for SequenceDDL.
	DDL *DDL
	// Catalog is set for CatalogDDL.
	Catalog *Catalog
	// Table is set for a CatalogDDL statement that is CREATE TABLE with
	// sequence defaults, ALTER TABLE with subcommands about them (or about
	// columns and names that may have them), or DROP TABLE: its parse, and
	// the text the database receives ([TableDDL.AppendSQL]).
	Table *TableDDL
	// Err is set for Reject: a *sequence.Error with PostgreSQL's SQLSTATE
	// and message. 0A000 wrapping ErrUnsupported is a call seqshim cannot
	// serve where it is written; 42601 is a syntax error in sequence DDL;
	// others are PostgreSQL's errors for a bad name (42602, from
	// sequence.ParseName) or a bad DDL option value (22P02, 22003, 22023).
	Err error
	// NativeOnly are, for a Reject statement refused because the database
	// would evaluate its calls once per row or later (a definition), the
	// calls when each may name a session's temporary sequence (a name
	// without a schema or in pg_temp, or a bind argument), nil otherwise:
	// a session whose temporary sequences they all name sends the
	// statement as written, the database evaluating them ([Natives]).
	NativeOnly []Call

	// What the statement does to the session (postgres dialect), decided
	// in the pass that planned it (see effects.go).
	Tx         TxControl   // transaction control; Op TxNone when it is none
	Path       PathEffect  // what it may do to the search_path
	Mode       ModeEffect  // what it may do to the transaction's read-only mode
	Discards   bool        // DISCARD SEQUENCES or DISCARD ALL: currval and lastval go
	Temps      TempEffect  // what it may do to the session's temporary relations (temp.go)
	SchemaDrop *SchemaDrop // DROP SCHEMA or ALTER SCHEMA … RENAME, nil for others
	// Verb is the command of an INSERT, UPDATE, DELETE or MERGE (also
	// after WITH), which PostgreSQL refuses in a read-only transaction
	// before it evaluates anything; "" for other statements.
	Verb string
	// Rows: the statement may return rows, a result with columns (a
	// query, SHOW, EXPLAIN, … RETURNING); false for commands.
	Rows bool

	dialect    Dialect
	params     int // the plan's NumParams: new parameters are numbered after it
	firstParam int // the $N of this statement's first call when values are bound
}

// ErrUnsupported is the kind of a *sequence.Error with SQLSTATE 0A000:
// a sequence call seqshim cannot serve correctly where it is written.
var ErrUnsupported = errors.New("rewrite: unsupported sequence call")

// Plan is what to do with one SQL string. Plans are shared and immutable:
// never modify one.
type Plan struct {
	// Statements are the statements in order; white space and comments
	// between them are not statements. A plan with nothing to do (no
	// trigger word, no statement with an effect on the session, or only
	// pass-through statements without one) is one shared plan without
	// statements: PassThrough is true and the front end sends the SQL as it
	// is.
	Statements []Statement
	// NumParams is the number of bind parameters the SQL text uses: the
	// largest $N for Postgres, the number (or largest ?NNN) of ? for the
	// other dialects. Parameters a rewrite adds are numbered after it, so
	// the driver must bind exactly NumParams user arguments first (with
	// pgx, after removing its leading option arguments such as
	// pgx.QueryExecMode, which are not SQL parameters).
	NumParams int
	// Err is the error of the first Reject statement, if any: the whole
	// string must not run, as PostgreSQL runs none of a string it cannot
	// parse.
	Err error
	// Path is the union of the statements' effects on the search_path.
	Path PathEffect
	// Temps is the union of the statements' effects on the session's
	// temporary relations.
	Temps TempEffect
	// Inserts is true when a statement starts with INSERT, UPDATE, MERGE,
	// COPY or WITH: one that may insert into a table whose column defaults the
	// store serves (see [InjectDefaults]).
	Inserts bool
	// Redefines is true when a statement starts with CREATE, ALTER, DROP,
	// GRANT, REVOKE or REASSIGN: it may change what a relation is (a
	// view's definition, say) or who may use it.
	Redefines bool

	passThrough bool // no statement has sequence work
	hasEffects  bool // a statement has an effect on the session: see effects.go
}

// passThroughPlan is shared by every SQL string with nothing to do.
var passThroughPlan = &Plan{passThrough: true}

// PassThrough reports whether no statement has sequence work: the front
// end sends the original SQL untouched (its statements may still have
// effects on the session, [Plan.Effects]).
func (p *Plan) PassThrough() bool { return p.passThrough }

// NativeOnly reports whether the plan is rejected (Err) only for
// statements a session may send as written ([Statement.NativeOnly]).
func (p *Plan) NativeOnly() bool {
	if p.Err == nil {
		return false
	}
	for i := range p.Statements {
		if st := &p.Statements[i]; st.Kind == Reject && st.NativeOnly == nil {
			return false
		}
	}
	return true
}

// NumCalls returns the number of call sites of Rewrite statements: the
// number of values [Plan.AppendSQL] takes.
func (p *Plan) NumCalls() int {
	n := 0
	for i := range p.Statements {
		if p.Statements[i].Kind == Rewrite {
			n += len(p.Statements[i].Calls)
		}
	}
	return n
}

// HasTables reports whether a statement of p is table DDL (Statement.Table).
func (p *Plan) HasTables() bool {
	for i := range p.Statements {
		if p.Statements[i].Table != nil {
			return true
		}
	}
	return false
}
