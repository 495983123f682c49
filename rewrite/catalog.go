package rewrite

import (
	"strings"

	"github.com/seqshim/seqshim/sequence"
)

// Statements about relations that may be store sequences: PostgreSQL
// accepts ALTER TABLE, COMMENT, GRANT and REVOKE on a sequence, and drops a
// sequence with the column that owns it. Whether a name is a store sequence
// is known only when the statement runs, so these are [CatalogDDL]
// statements: the engine decides then, and sends the text to the database
// as it is unless it served the statement itself.

// CatalogOp is what a [CatalogDDL] statement may do to store sequences.
type CatalogOp uint8

const (
	// DropsOwners: DROP TABLE, VIEW, SCHEMA, …, or ALTER TABLE … DROP: it
	// may drop a column that owns store sequences (OWNED BY), which are
	// then dropped too, once the statement succeeded.
	DropsOwners CatalogOp = iota + 1
	// AlterTable: ALTER TABLE [IF EXISTS] name RENAME TO / SET SCHEMA /
	// SET LOGGED / SET UNLOGGED / OWNER TO, which PostgreSQL applies to a
	// sequence too (each as the statement's one subcommand; a malformed
	// one is the database's syntax error).
	AlterTable
	// OnSequence: COMMENT ON SEQUENCE name, GRANT or REVOKE … ON SEQUENCE
	// names.
	OnSequence
	// ColumnDefaults: CREATE TABLE with columns whose default draws from a
	// sequence (serial, identity, DEFAULT nextval('s')), or ALTER TABLE
	// with subcommands about such defaults, or about columns and names that
	// may have them (SET/DROP DEFAULT, identity, TYPE, RENAME).
	// Statement.Table describes it, as it does the DropsOwners and
	// AlterTable statements DROP TABLE and ALTER TABLE.
	ColumnDefaults
)

// Catalog describes a [CatalogDDL] statement.
type Catalog struct {
	Op CatalogOp
	// Names are the canonical names the statement is about (AlterTable:
	// one; OnSequence: one or more); none for DropsOwners.
	Names []string
	// Unqualified is true when the AlterTable name was written without a
	// schema (resolved through the search_path).
	Unqualified bool
	// IfExists is ALTER TABLE IF EXISTS.
	IfExists bool
	// Action is the command as PostgreSQL's messages name it: "RENAME TO",
	// "SET SCHEMA", "SET LOGGED", "SET UNLOGGED", "OWNER TO" (AlterTable),
	// "COMMENT", "GRANT", "REVOKE" (OnSequence).
	Action string
	// RenameTo is the new canonical name of RENAME TO, in the schema of
	// Names[0], and of SET SCHEMA, in the new schema.
	RenameTo string
	// Sequence is true for ALTER SEQUENCE … OWNER TO, which is read as
	// the AlterTable it is in PostgreSQL (its sequence form is the same
	// subcommand).
	Sequence bool
}

// catalogWord reports whether a statement starts at byte i of s (after
// white space and comments) with a word that may make it a CatalogDDL
// statement (or table DDL with sequence defaults): ALTER, CREATE, DROP,
// COMMENT, GRANT, REVOKE or TRUNCATE. Part of the trigger scan: it looks at the first
// statement and after each ';' only, so it adds one vectorised search for
// ';' to a statement without one of these words.
func catalogWord(s string) bool {
	for i := 0; ; {
		if catalogWordAt(s, i) {
			return true
		}
		j := strings.IndexByte(s[i:], ';')
		if j < 0 {
			return false
		}
		i += j + 1
	}
}

// catalogWordAt is firstWordIs specialised for the trigger scan, which
// every statement pays: a switch on the first letter rather than a call
// per word.
func catalogWordAt(s string, i int) bool {
	for i < len(s) {
		switch c := s[i]; {
		case c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\f' || c == '(':
			i++
		case c == '-' && i+1 < len(s) && s[i+1] == '-':
			j := strings.IndexByte(s[i:], '\n')
			if j < 0 {
				return false
			}
			i += j + 1
		case c == '/' && i+1 < len(s) && s[i+1] == '*':
			// Not nested: a comment that nests before the word only costs
			// a missed trigger on a statement seqshim then passes through.
			j := strings.Index(s[i+2:], "*/")
			if j < 0 {
				return false
			}
			i += j + 4
		default:
			switch c | 0x20 {
			case 'a':
				return wordAt(s, i, "alter")
			case 'd':
				return wordAt(s, i, "drop")
			case 'c':
				return wordAt(s, i, "comment") || wordAt(s, i, "create")
			case 'g':
				return wordAt(s, i, "grant")
			case 'r':
				return wordAt(s, i, "revoke")
			case 't':
				return wordAt(s, i, "truncate")
			}
			return false
		}
	}
	return false
}

// wordAt reports whether s has the lower-case word w at i, in any case and
// not followed by an identifier character.
func wordAt(s string, i int, w string) bool {
	if len(s)-i < len(w) {
		return false
	}
	for k := 0; k < len(w); k++ {
		if s[i+k]|0x20 != w[k] {
			return false
		}
	}
	if j := i + len(w); j < len(s) {
		c := s[j] | 0x20
		return !(c >= 'a' && c <= 'z' || s[j] >= '0' && s[j] <= '9' || s[j] == '_' || s[j] == '$' || s[j] >= 0x80)
	}
	return true
}

// catalog classifies a statement without sequence calls (Postgres only).
func (s *stmt) catalog() *Catalog {
	switch {
	case s.is(0, "drop"):
		if s.isAny(1, "table", "view", "schema", "owned", "type", "domain", "extension") ||
			s.is(1, "materialized") || s.is(1, "foreign") && s.is(2, "table") {
			return &Catalog{Op: DropsOwners}
		}
	case s.is(0, "alter") && s.is(1, "table"):
		return s.alterTable()
	case s.is(0, "comment") && s.is(1, "on") && s.is(2, "sequence"):
		parts := s.chain(3)
		if parts == nil || len(parts) > 2 {
			return nil
		}
		name, _, err := s.identName(parts)
		if err != nil {
			return nil
		}
		return &Catalog{Op: OnSequence, Action: "COMMENT", Names: []string{name}}
	case s.isAny(0, "grant", "revoke"):
		return s.grant()
	}
	return nil
}

// alterTable reads ALTER TABLE [IF EXISTS] [ONLY] name …: RENAME TO, SET
// SCHEMA, SET LOGGED, SET UNLOGGED and OWNER TO may be about a store
// sequence; a DROP anywhere may drop an owning column.
func (s *stmt) alterTable() *Catalog {
	i := 2
	c := &Catalog{Op: AlterTable}
	if s.is(i, "if") && s.is(i+1, "exists") {
		c.IfExists, i = true, i+2
	}
	if s.is(i, "only") {
		i++
	}
	parts := s.chain(i)
	if parts != nil && len(parts) <= 2 {
		j := parts[len(parts)-1] + 1
		if s.punct(j, '*') {
			j++
		}
		name, unqualified, err := s.identName(parts)
		c.Names, c.Unqualified = []string{name}, unqualified
		switch {
		case err != nil:
		case s.is(j, "rename") && s.is(j+1, "to") && s.isName(j+2) && j+3 == len(s.toks):
			to, _, err := s.identName([]int{j + 2})
			if err == nil {
				c.Action, c.RenameTo = "RENAME TO", renamed(name, to)
				return c
			}
		case s.is(j, "set") && s.is(j+1, "schema") && s.isName(j+2) && j+3 == len(s.toks):
			schema, _, err := s.identName([]int{j + 2})
			if err == nil {
				_, rel := sequence.SplitName(name)
				c.Action, c.RenameTo = "SET SCHEMA", sequence.FormatName(sequence.RelName(schema), rel)
				return c
			}
		case s.is(j, "set") && s.isAny(j+1, "logged", "unlogged") && j+2 == len(s.toks):
			c.Action = strings.ToUpper(s.word(j) + " " + s.word(j+1))
			return c
		case s.is(j, "owner") && s.is(j+1, "to"):
			c.Action = "OWNER TO"
			return c
		}
	}
	for k := i; k < len(s.toks); k++ {
		if s.is(k, "drop") {
			return &Catalog{Op: DropsOwners}
		}
	}
	return nil
}

// grant reads GRANT … ON SEQUENCE names TO … and REVOKE … ON SEQUENCE
// names FROM ….
func (s *stmt) grant() *Catalog {
	action := strings.ToUpper(s.word(0))
	for i := 1; i < len(s.toks); i++ {
		if !s.is(i, "on") {
			continue
		}
		if !s.is(i+1, "sequence") {
			return nil
		}
		c := &Catalog{Op: OnSequence, Action: action}
		for j := i + 2; ; {
			parts := s.chain(j)
			if parts == nil || len(parts) > 2 {
				return nil
			}
			name, _, err := s.identName(parts)
			if err != nil {
				return nil
			}
			c.Names = append(c.Names, name)
			j = parts[len(parts)-1] + 1
			if !s.punct(j, ',') {
				return c
			}
			j++
		}
	}
	return nil
}

// renamed is the canonical name of RENAME TO to in the schema of name.
func renamed(name, to string) string {
	schema, _ := sequence.SplitName(name)
	_, rel := sequence.SplitName(to)
	return sequence.FormatName(schema, rel)
}
