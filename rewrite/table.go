package rewrite

import (
	"strconv"

	"github.com/seqshim/seqshim/sequence"
)

// Table DDL: CREATE TABLE, ALTER TABLE and DROP TABLE, parsed so that the
// engine can serve the columns whose default draws from a sequence (serial,
// GENERATED … AS IDENTITY, DEFAULT nextval('s')) from the store, and send
// the database the statement without those defaults ([TableDDL.AppendSQL]).
//
// Such a statement is a [CatalogDDL] statement whose Table is set. Its
// Catalog keeps what it may do to store sequences as relations (DROP TABLE
// and ALTER TABLE … DROP may drop owning columns: DropsOwners; ALTER TABLE
// RENAME TO and SET SCHEMA may address a sequence: AlterTable); a statement
// that is neither has Op [ColumnDefaults].

// TableOp is the operation of a [TableDDL].
type TableOp uint8

// Table operations.
const (
	TableCreate   TableOp = iota + 1 // CREATE [UNLOGGED] TABLE
	TableAlter                       // ALTER TABLE
	TableDrop                        // DROP TABLE
	TableTruncate                    // TRUNCATE … RESTART IDENTITY
)

// String returns the SQL command.
func (o TableOp) String() string {
	switch o {
	case TableCreate:
		return "CREATE TABLE"
	case TableAlter:
		return "ALTER TABLE"
	case TableDrop:
		return "DROP TABLE"
	case TableTruncate:
		return "TRUNCATE"
	}
	return "TableOp(" + strconv.Itoa(int(o)) + ")"
}

// TableAction is what one ALTER TABLE subcommand does.
type TableAction uint8

// ALTER TABLE subcommands. COLUMN is optional wherever PostgreSQL allows
// it to be left out.
const (
	// OtherCmd is any other subcommand (ADD CONSTRAINT, OWNER TO, …),
	// kept as written.
	OtherCmd TableAction = iota
	// AddColumn: ADD [COLUMN] [IF NOT EXISTS] column definition (Def).
	AddColumn
	// SetDefault: ALTER [COLUMN] c SET DEFAULT expr. Default is set when
	// expr is nextval('s'), nil for any other expression.
	SetDefault
	// DropDefault: ALTER [COLUMN] c DROP DEFAULT.
	DropDefault
	// AddIdentity: ALTER [COLUMN] c ADD GENERATED {ALWAYS | BY DEFAULT} AS
	// IDENTITY [(options)] (Default).
	AddIdentity
	// SetIdentity: ALTER [COLUMN] c followed by one or more of SET
	// GENERATED {ALWAYS | BY DEFAULT} (Generated), SET sequence option and
	// RESTART [[WITH] n] (Clauses).
	SetIdentity
	// DropIdentity: ALTER [COLUMN] c DROP IDENTITY [IF EXISTS].
	DropIdentity
	// AlterType: ALTER [COLUMN] c [SET DATA] TYPE t [COLLATE …] [USING …]
	// (TypeText, Type, TypeErr). An identity column's sequence follows the
	// column's type.
	AlterType
	// DropColumn: DROP [COLUMN] [IF EXISTS] c [CASCADE | RESTRICT].
	DropColumn
	// RenameColumn: RENAME [COLUMN] c TO NewName, the whole statement.
	RenameColumn
	// RenameTable: RENAME TO NewName, the whole statement.
	RenameTable
	// SetSchema: SET SCHEMA NewName, the whole statement.
	SetSchema
	// DropNotNull: ALTER [COLUMN] c DROP NOT NULL, which an identity
	// column refuses.
	DropNotNull
	// SetNotNull: ALTER [COLUMN] c SET NOT NULL, which ADD GENERATED later
	// in the statement relies on.
	SetNotNull
)

var tableActionNames = [...]string{
	OtherCmd: "other", AddColumn: "ADD COLUMN", SetDefault: "SET DEFAULT", DropDefault: "DROP DEFAULT",
	AddIdentity: "ADD GENERATED", SetIdentity: "SET GENERATED/RESTART", DropIdentity: "DROP IDENTITY",
	AlterType: "TYPE", DropColumn: "DROP COLUMN", RenameColumn: "RENAME COLUMN", RenameTable: "RENAME TO",
	SetSchema: "SET SCHEMA", DropNotNull: "DROP NOT NULL", SetNotNull: "SET NOT NULL",
}

// String returns the subcommand's SQL words.
func (a TableAction) String() string {
	if int(a) < len(tableActionNames) {
		return tableActionNames[a]
	}
	return "TableAction(" + strconv.Itoa(int(a)) + ")"
}

// TableDDL is a parsed CREATE TABLE, ALTER TABLE or DROP TABLE statement.
// The parser checks the grammar of what it reads and reports the errors
// PostgreSQL reports for sequence defaults (Statement.Err of a Reject);
// sequence option values are validated by [sequence.Clauses.Create] and
// [sequence.Clauses.Alter], and everything else by the database.
type TableDDL struct {
	Op TableOp
	// Names are the tables' canonical names: one for TableCreate and
	// TableAlter, one or more for TableDrop.
	Names []string
	// Unqualified[i] is true when Names[i] was written without a schema
	// (canonicalised as in public; PostgreSQL creates it in the first
	// schema of the search_path, and finds it through the search_path).
	Unqualified []bool

	IfNotExists bool // CREATE TABLE IF NOT EXISTS: nothing happens if the table exists
	IfExists    bool // ALTER / DROP TABLE IF EXISTS
	Unlogged    bool // CREATE UNLOGGED TABLE: PostgreSQL makes its sequences unlogged too
	Only        bool // ALTER TABLE ONLY; TRUNCATE with ONLY before a name
	Cascade     bool // DROP TABLE … CASCADE, TRUNCATE … CASCADE
	// ReadBack is CREATE TABLE … (LIKE source …) or … INHERITS (parent):
	// the database makes the columns the statement copies, merges or
	// declares, with their defaults and identities and the sequences they
	// draw from, as written; the session reads them back once the table
	// exists (they may draw from store sequences' twins, or be new).
	ReadBack bool

	// Columns are CREATE TABLE's column definitions, in order (table
	// constraints are not columns).
	Columns []ColumnDef
	// Cmds are ALTER TABLE's subcommands, in order.
	Cmds []TableCmd

	text string // the statement's text, which byte offsets index
}

// IsUnqualified reports whether Names[i] was written without a schema.
func (t *TableDDL) IsUnqualified(i int) bool { return i < len(t.Unqualified) && t.Unqualified[i] }

// ColumnDef is a column definition of CREATE TABLE or ALTER TABLE … ADD
// COLUMN.
type ColumnDef struct {
	// Name is the column's name as PostgreSQL stores it: folded to lower
	// case unless quoted, unquoted, at most 63 bytes.
	Name string
	// TypeText is the type as written ("bigserial", "character varying(20)",
	// `"MyType"[]`).
	TypeText string
	// NotNull is true when the definition says NOT NULL.
	NotNull bool
	// Default is the column's sequence default, nil when it has none.
	Default *DefaultDef

	// Start and End are the byte offsets of the definition in
	// Statement.Text.
	Start, End int

	typeStart, typeEnd int // the type
	seqType            sequence.Type
	seqTypeErr         error
	anyDefault         bool // a DEFAULT of any expression, a generation or identity clause
	qualAt             int  // where the constraints start: where a NOT NULL is written
	defStart, defEnd   int  // the DEFAULT or GENERATED clause, with the CONSTRAINT name before it
	clauseStart        int  // the clause without its CONSTRAINT name
}

// HasDefault reports whether the definition gives the column a default of
// any kind (DEFAULT expr, serial, GENERATED … AS IDENTITY or a generated
// column's expression): what ADD GENERATED later in the same ALTER TABLE
// refuses (55000).
func (c *ColumnDef) HasDefault() bool { return c.anyDefault || c.Default != nil }

// SeqType returns the column's type as a sequence type, or PostgreSQL's
// error for an identity column of a type that is not smallint, integer or
// bigint (what ADD GENERATED later in the same ALTER TABLE refuses).
func (c *ColumnDef) SeqType() (sequence.Type, error) { return c.seqType, c.seqTypeErr }

// DefaultDef is a column default that draws from a sequence.
type DefaultDef struct {
	// Kind is DefaultNextval for serial and DEFAULT nextval('s'),
	// IdentityAlways or IdentityByDefault for GENERATED … AS IDENTITY.
	Kind sequence.Identity
	// Serial is true for the serial types (smallserial, serial, bigserial,
	// serial2, serial4, serial8): PostgreSQL makes the column smallint,
	// integer or bigint NOT NULL, with a default from a new sequence that
	// the column owns.
	Serial bool
	// Type is the sequence's type, the column's (serial: from the serial
	// type). For ADD GENERATED on an existing column the statement does not
	// say, and Clauses.Type is nil. For DEFAULT nextval('s') it is the
	// column's type when that is an integer type, else bigint, and means
	// nothing for the sequence.
	Type sequence.Type
	// Seq is the sequence's canonical name: of DEFAULT nextval('s'), or an
	// identity's SEQUENCE NAME option; "" when PostgreSQL would choose it
	// (serial, identity without SEQUENCE NAME: see [ImplicitSequenceName]).
	Seq string
	// SeqUnqualified is true when Seq was written without a schema. For
	// nextval('s') PostgreSQL finds it through the search_path; an
	// identity's unqualified SEQUENCE NAME is created in the table's schema.
	SeqUnqualified bool
	// Clauses are the options of a new sequence (serial and identity):
	// Type is the column's type, and an identity's options (START, INCREMENT,
	// …) follow. Zero for DEFAULT nextval('s').
	Clauses sequence.Clauses
}

// TableCmd is one ALTER TABLE subcommand.
type TableCmd struct {
	Action TableAction
	// Column is the column's name as stored (AddColumn: Def.Name); for
	// OtherCmd the column of ALTER [COLUMN] c …, else "".
	Column string
	// NewName is, for RenameColumn, the new column name as stored; for
	// RenameTable the table's new canonical name, in the schema of Names[0];
	// for SetSchema the schema's name as stored.
	NewName string
	// Def is AddColumn's column definition.
	Def *ColumnDef
	// Default is the sequence default SetDefault (nextval('s')) or
	// AddIdentity gives the column.
	Default *DefaultDef
	// Generated is SetIdentity's SET GENERATED kind (IdentityAlways or
	// IdentityByDefault), or DefaultNextval (the zero value) when the
	// subcommand does not set it.
	Generated sequence.Identity
	// Clauses are SetIdentity's sequence options (SET INCREMENT …, RESTART
	// [WITH n]), for [sequence.Clauses.Alter].
	Clauses sequence.Clauses
	// TypeText is AlterType's new type as written; Type is that type as a
	// sequence type, and TypeErr PostgreSQL's error if the column is an
	// identity column and the type is not smallint, integer or bigint
	// (nil when it is).
	TypeText string
	Type     sequence.Type
	TypeErr  error

	// Err is AddColumn's error after the syntax (parse analysis, the
	// sequence's options, the type's), which PostgreSQL reports once it
	// found that the column is new: when it exists, the database reports
	// that, or IF NOT EXISTS skips it. Nil when there is none.
	Err error

	IfExists    bool // DROP [COLUMN] IF EXISTS, DROP IDENTITY IF EXISTS
	IfNotExists bool // ADD [COLUMN] IF NOT EXISTS
	Cascade     bool // DROP COLUMN … CASCADE

	// Start and End are the byte offsets of the subcommand in
	// Statement.Text.
	Start, End int
}

// Rendering says how [TableDDL.AppendSQL] writes a column definition or
// a subcommand.
type Rendering uint8

const (
	// Strip writes it for a database that does not serve its sequence
	// default: a serial type becomes smallint, integer or bigint with NOT
	// NULL (unless written), an identity clause becomes NOT NULL (left out
	// when NOT NULL is written), DEFAULT nextval('s') is left out, and so
	// are the subcommands that only give a column such a default
	// (SetDefault with Default, AddIdentity). Any other subcommand is
	// written as it is.
	Strip Rendering = iota
	// Omit leaves an ALTER TABLE subcommand out (for CREATE TABLE columns it
	// is Strip): the engine served it (SET GENERATED, RESTART, DROP IDENTITY
	// of a column whose identity lives in the store).
	Omit
	// AsWritten writes it as it is: the database serves the default.
	AsWritten
)

// AppendSQL appends to buf the text the database receives for the
// statement: how(i) says how CREATE TABLE's column i (Columns[i]) or ALTER
// TABLE's subcommand i (Cmds[i]) is written; a nil how is Strip for all.
// DROP TABLE is written as it is. empty is true when nothing is left to
// send (every subcommand omitted); buf is then returned as it was. Bytes
// outside the rewritten clauses never change, except that each subcommand
// left out takes with it the separator before it (the comma, and the white
// space and comments around it), and the first one written the separator
// before it too.
func (t *TableDDL) AppendSQL(buf []byte, how func(i int) Rendering) (out []byte, empty bool) {
	render := func(i int) Rendering {
		if how == nil {
			return Strip
		}
		return how(i)
	}
	switch t.Op {
	case TableCreate:
		var e edits
		for i := range t.Columns {
			if c := &t.Columns[i]; c.Default != nil && render(i) != AsWritten {
				e = c.strip(t.text, e)
			}
		}
		return e.apply(buf, t.text, 0, len(t.text)), false
	case TableAlter:
		first := true
		for i := range t.Cmds {
			c := &t.Cmds[i]
			r := render(i)
			if r == Omit || r == Strip && (c.Action == SetDefault && c.Default != nil || c.Action == AddIdentity) {
				continue
			}
			if first {
				buf = append(buf, t.text[:t.Cmds[0].Start]...)
			} else {
				buf = append(buf, t.text[t.Cmds[i-1].End:c.Start]...)
			}
			first = false
			var e edits
			if r == Strip && c.Def != nil && c.Def.Default != nil {
				e = c.Def.strip(t.text, e)
			}
			buf = e.apply(buf, t.text, c.Start, c.End)
		}
		if first {
			return buf, true
		}
		return append(buf, t.text[t.Cmds[len(t.Cmds)-1].End:]...), false
	}
	return append(buf, t.text...), false
}

// edit replaces text[start:end) by repl.
type edit struct {
	start, end int
	repl       string
}

// edits are in text order and do not overlap.
type edits []edit

// apply appends text[from:to) with the edits in it applied.
func (e edits) apply(buf []byte, text string, from, to int) []byte {
	for _, x := range e {
		buf = append(buf, text[from:x.start]...)
		buf = append(buf, x.repl...)
		from = x.end
	}
	return append(buf, text[from:to]...)
}

// strip adds the edits that leave the column's sequence default out.
func (c *ColumnDef) strip(text string, e edits) edits {
	d := c.Default
	switch {
	case d.Serial:
		e = append(e, edit{c.typeStart, c.typeEnd, d.Type.String()})
		if !c.NotNull {
			e = append(e, edit{c.qualAt, c.qualAt, " NOT NULL"})
		}
	case d.Kind.IsIdentity() && !c.NotNull:
		e = append(e, edit{c.clauseStart, c.defEnd, "NOT NULL" + gap(text, c.defEnd)})
	default: // DEFAULT nextval('s'), or an identity of a NOT NULL column
		e = append(e, edit{spaceBefore(text, c.defStart), c.defEnd, gap(text, c.defEnd)})
	}
	return e
}

// gap returns the space that keeps what was written before offset i apart
// from the text at i, when that starts a word: "nextval('s')NOT NULL".
func gap(text string, i int) string {
	if i < len(text) && (isIdentCont(text[i]) || text[i] == '"') {
		return " "
	}
	return ""
}

// spaceBefore returns the offset of the white space that ends at i.
func spaceBefore(text string, i int) int {
	for i > 0 {
		switch text[i-1] {
		case ' ', '\t', '\n', '\r', '\f', '\v':
			i--
			continue
		}
		break
	}
	return i
}

// identOpts is the context of an identity column's option list, parsed by
// parseOptions on a statement of the list's tokens.
type identOpts struct {
	// create: the options of a new identity sequence (CREATE TABLE, ADD
	// COLUMN, ADD GENERATED), where PostgreSQL accepts SEQUENCE NAME,
	// LOGGED and UNLOGGED and gives the sequence the column's type
	// (typeKnown, typ and typeErr).
	create    bool
	typeKnown bool
	typ       sequence.Type
	typeErr   error
	// end is the token after the list, for a syntax error at its end.
	end string
	// seq and unqualified are SEQUENCE NAME's canonical name.
	seq         string
	unqualified bool
}

// named records SEQUENCE NAME parts (token indexes of s).
func (o *identOpts) named(s *stmt, parts []int) error {
	switch {
	case len(parts) > 3:
		return syntaxErr("improper relation name (too many dotted names): %s", s.plainName(parts))
	case len(parts) == 3:
		parts = parts[1:] // PostgreSQL reads catalog.schema.name and ignores the catalog
	}
	name, unqualified, err := s.identName(parts)
	o.seq, o.unqualified = name, unqualified
	return err
}

// The phases of PostgreSQL's errors for a table statement, in the order it
// reports them: the parser's syntax errors; then parse analysis, column by
// column (conflicting defaults, NULL and NOT NULL); then the creation of
// each column's sequence (its options); then the table's creation.
const (
	phaseSyntax = iota
	phaseAnalysis
	phaseSequence
	phaseTable
	phases
)

// tableErrs keeps the first error of each phase.
type tableErrs [phases]error

func (e *tableErrs) note(phase int, err error) {
	if err != nil && e[phase] == nil {
		e[phase] = err
	}
}

// first returns the error PostgreSQL reports, if any.
func (e *tableErrs) first() error {
	for _, err := range e {
		if err != nil {
			return err
		}
	}
	return nil
}
