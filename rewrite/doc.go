// Package rewrite finds sequence calls and sequence DDL in SQL text and
// tells the seqshim driver what to do with each statement.
//
// # Basics
//
// A [Planner] turns a SQL string into a [Plan], once per distinct string:
//
//	p := rewrite.NewPlanner(rewrite.Postgres, 0)
//	plan, err := p.Plan("INSERT INTO t VALUES (nextval('orders_seq'), $1)")
//	// err != nil: a statement is rejected (a *sequence.Error with SQLSTATE
//	// 0A000 or 42601); run nothing.
//	// plan.PassThrough(): send the SQL untouched.
//
// Each [Statement] of a plan has a [Kind]:
//
//   - [PassThrough]: send as it is.
//   - [Local]: only sequence calls (SELECT nextval('s'), setval('s', 5) AS v,
//     SELECT nextval('s') FROM generate_series(1, $1)): answer in process.
//     Or only regclass values of names (SELECT 's'::regclass,
//     $1::regclass::text AS r; [Regclass] calls): answer in process when
//     every name is a store sequence, else send as it is
//     ([Statement.Fallback]).
//   - [Rewrite]: draw a value for each [Call] in order and send
//     [Statement.AppendSQL]'s text, where each call site is replaced by its
//     value: a new parameter ($3::int8) when the SQL has bind parameters, an
//     inlined literal ((42)) otherwise.
//   - [SequenceDDL]: CREATE, ALTER or DROP SEQUENCE, parsed into a [DDL]
//     whose [sequence.Clauses] give the spec.
//   - [Reject]: Statement.Err says why.
//   - [CatalogDDL]: ALTER TABLE, COMMENT, GRANT, REVOKE or DROP that may be
//     about store sequences ([Catalog] says how): decided when it runs,
//     sent as written unless the front end served it. CREATE TABLE with
//     sequence defaults, ALTER TABLE about them and DROP TABLE are
//     CatalogDDL statements with a [TableDDL] too (see Table DDL below).
//
// Recognised calls: nextval(x), currval(x), lastval(), setval(x, v
// [, is_called]) in any case and optionally pg_catalog-qualified;
// getNextSequenceValue(x); x.NEXTVAL and x.CURRVAL; NEXT VALUE FOR x. The
// name x is a string literal (optionally ::regclass or ::text) or a bind
// parameter, or in MySQL and SQLite also an identifier. Names are
// canonicalised with [sequence.ParseName].
//
// # Guarantees
//
//   - A real lexer per [Dialect] (literals, quoted identifiers, comments,
//     dollar quotes): a call written inside a literal or a comment is never
//     touched, and bytes outside a rewritten call site never change.
//     MySQL's /*! … */ is read as the SQL MySQL runs.
//   - A call that the database would evaluate once per row (UPDATE,
//     DELETE, INSERT … SELECT … FROM, a select list over FROM or next to a
//     set-returning function, RETURNING of a multi-row INSERT) is rejected
//     with SQLSTATE 0A000 rather than given one value for many rows. The
//     check errs on the side of rejecting. A call that is the only item of
//     a parenthesised SELECT without FROM, (SELECT nextval('s')), is an
//     uncorrelated scalar subquery, evaluated once per statement (an
//     InitPlan), and is served wherever it is used as a value. A subquery
//     without a FROM of its own that is the only item of a FROM,
//     SELECT q.x FROM (SELECT nextval('s') AS x) q, is scanned once; next
//     to another FROM item or in a join it may be scanned again for every
//     row of the other, and is rejected.
//   - A call that is a select item, alone or inside parentheses and casts,
//     keeps the column name PostgreSQL gives it (nextval('s')::int is
//     nextval).
//   - A column default DEFAULT nextval('s') of CREATE TABLE or ALTER TABLE
//     is read as a [TableDDL] column default; other calls in definitions
//     (an expression around nextval, CHECK, views, BEGIN ATOMIC bodies)
//     are rejected with 0A000: the database would evaluate them from its
//     own sequence, whose values collide with the store's. Function bodies
//     in dollar quotes are literals, and pass through unread.
//   - A string without a trigger word (nor a statement starting with
//     ALTER, CREATE, DROP, COMMENT, GRANT or REVOKE) costs one
//     allocation-free scan and never enters the cache; other strings are
//     planned once, then a cache lookup. Plans are immutable and shared.
//
// # Table DDL
//
// Columns that draw their default from a sequence — serial types,
// GENERATED {ALWAYS | BY DEFAULT} AS IDENTITY [(options)] and DEFAULT
// nextval('s') — are served from the store: the database must receive
// the table without those defaults, so that a writer that bypasses
// seqshim fails (NOT NULL) rather than collides. CREATE [UNLOGGED] TABLE
// with such columns, ALTER TABLE with subcommands about them or about
// columns and names that may have them, and DROP TABLE are CatalogDDL
// statements whose Statement.Table is their [TableDDL]: columns
// ([ColumnDef], [DefaultDef]) and subcommands ([TableCmd]) as PostgreSQL
// stores them, with PostgreSQL's errors for what it would refuse.
// [TableDDL.AppendSQL] writes the text the database receives (serial as
// smallint, integer or bigint NOT NULL, identity as NOT NULL, DEFAULT
// nextval left out, and the subcommands the front end served left out),
// and [ImplicitSequenceName] is the name PostgreSQL would give a serial or
// identity column's sequence. A table statement without sequence defaults
// passes through.
//
// Such a column in a table created with OF type or PARTITION OF is refused
// with 0A000. CREATE TABLE … (LIKE …) and … INHERITS (…) are table DDL
// marked [TableDDL.ReadBack]: the database makes them as written and the
// front end reads back the defaults and sequences it made.
//
// Temporary objects are the database's (temp.go): CREATE TEMPORARY
// SEQUENCE and TABLE, and sequence DDL, table DDL and calls naming pg_temp,
// pass through ([Call.Temp] marks such a call; [Statement.Temps] says what
// a statement may do to the session's temporary relations). A name without
// a schema may be a temporary relation's too, which only the session
// knows: [Natives] renders a plan with the calls and DDL a session found
// to be about its temporary sequences left as written, and a statement
// refused for calling a sequence once per row or in a definition keeps
// its calls ([Statement.NativeOnly]) for a session to send as written when
// they all are.
//
// MySQL and SQLite have no temporary sequences of the database's: CREATE
// TEMPORARY SEQUENCE is refused there (0A000).
//
// [InjectDefaults] writes the store's column defaults into the INSERTs that
// leave them to the database ([TableLookup] says which tables have them),
// and checks UPDATE, COPY and MERGE against them: a form PostgreSQL would
// draw per row is refused (0A000), a value for a GENERATED ALWAYS column is
// 428C9. An INSERT through an automatically updatable view gets the base
// table's defaults under the view's names for the columns
// ([TableDefaults.View]): [ParseView] reads a view's definition as
// pg_get_viewdef prints it. [Plan.Redefines] marks a text whose CREATE,
// ALTER or DROP may change what a relation is.
//
// # Caveats
//
//   - PostgreSQL strings are read with standard_conforming_strings on
//     (backslash is literal in '…'), MySQL's "…" as strings (ANSI_QUOTES
//     off).
//   - A string the lexer cannot read is never planned: with an unterminated
//     literal or comment, parentheses that do not pair up or a NUL byte it
//     passes through whole for PostgreSQL, which refuses it before it runs
//     any of it (42601, 08P01); a string that is not UTF-8 (22021) or has a
//     control character outside literals and comments (42601: PostgreSQL 16
//     reads a vertical tab as white space, earlier versions do not) is
//     refused with PostgreSQL's error. So is a string whose tokens show a
//     syntax error (a statement that starts with no statement's keyword,
//     or ends with a comma, an operator or AS, FROM, WHERE; a ';' inside
//     parentheses) and a sequence call, sequence DDL or an INSERT seqshim
//     may fill: PostgreSQL refuses the whole string, so no statement of it
//     may draw a value (without those, the string passes through for
//     PostgreSQL to refuse with its own error). MySQL and SQLite run the statements of a
//     string one by one: there an unreadable string is refused with 42601.
//   - Other syntax errors are the database's to find: a statement of the
//     string that seqshim reads still draws its values (or applies its
//     sequence DDL) before the database refuses the string, a gap like that
//     of a statement that fails when it runs.
//   - NEXT VALUE FOR with a comment between its words is not recognised.
//   - Every distinct SQL text with a trigger word is planned once (a few
//     microseconds) and takes a cache entry: texts that inline varying
//     values instead of using bind parameters each pay that.
//   - Table DDL is read as far as sequence defaults need: the parts that
//     pass through as written (types, other constraints and expressions,
//     other subcommands) are the database's to check, so their errors come
//     from it, after the front end acted on the store.
//   - Only sequence DDL of the forms PostgreSQL documents is parsed. ALTER
//     SEQUENCE … OWNER TO is read as the catalog statement it is
//     ([Catalog.Sequence]); ALTER SEQUENCE with several subcommands (SET
//     LOGGED, SET UNLOGGED: PostgreSQL's answer depends on a persistence a
//     store sequence does not have) is rejected with 0A000. A temporary sequence is the
//     database's (it belongs to one session: nothing to share).
//   - SELECT … INTO TEMP and a function that creates a temporary relation
//     have no [TempEffect]: a session learns of such a relation only at
//     the next statement that may create or drop one.
package rewrite
