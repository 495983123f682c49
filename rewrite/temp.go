package rewrite

import (
	"strings"

	"github.com/seqshim/seqshim/sequence"
)

// Temporary objects live and die with one PostgreSQL session, so the
// database serves them itself: CREATE TEMP SEQUENCE and CREATE TEMP TABLE
// (serial, identity and DEFAULT nextval columns included), and names in a
// temporary schema (pg_temp, pg_temp_N) anywhere, are the database's. A
// call whose name is written in a temporary schema is marked
// ([Call.Temp]); one written without a schema may still name a temporary
// relation, which only the session knows: the plan says which statements
// may create or change temporary relations ([Statement.Temps]).

// TempEffect is what a statement may do to the session's temporary
// relations.
type TempEffect uint8

const (
	// CreatesTemp: the statement may create a temporary relation (CREATE
	// TEMP …, CREATE … pg_temp.x), or sets a search_path naming pg_temp:
	// from then on, the session has temporary relations to look at. (A
	// SELECT … INTO TEMP, which the cheap tests before the lexer do not
	// see, or a function that creates one, does not count.)
	CreatesTemp TempEffect = 1 << iota
	// ChangesTemps: the statement may create, drop or rename relations
	// (CREATE, DROP, ALTER, DISCARD TEMP or ALL): what a
	// session knows of its temporary relations is stale after it. The end
	// of a transaction is [EndsTransaction] and [RollsBackToSavepoint].
	ChangesTemps
)

// IsTempSchema reports whether schema (as stored, unquoted) is a temporary
// schema: pg_temp, which names the session's own, or pg_temp_N.
func IsTempSchema(schema string) bool {
	return schema == "pg_temp" || strings.HasPrefix(schema, "pg_temp_")
}

// IsTempName reports whether a canonical relation name is in a temporary
// schema.
func IsTempName(canonical string) bool {
	if !strings.HasPrefix(canonical, "pg_temp") && !strings.HasPrefix(canonical, `"pg_temp`) {
		return false // the common case, without splitting the name
	}
	schema, _ := sequence.SplitName(canonical)
	return IsTempSchema(schema)
}

// tempEffect is what the tokens of one statement may do to the session's
// temporary relations.
func tempEffect(l *lexer, toks []token) TempEffect {
	var e TempEffect
	word := func(i int, ws ...string) bool { return l.isAt(toks, i, ws...) }
	switch {
	case word(0, "create", "drop", "alter"):
		e |= ChangesTemps
	case word(0, "discard"):
		if word(1, "temp", "temporary", "all") {
			e |= ChangesTemps
		}
	}
	if !word(0, "create", "set") {
		return e
	}
	// CREATE [OR REPLACE] [GLOBAL | LOCAL] {TEMP | TEMPORARY} …
	i := 1
	if word(i, "or") && word(i+1, "replace") {
		i += 2
	}
	if word(i, "global", "local") {
		i++
	}
	if word(0, "create") && word(i, "temp", "temporary") {
		e |= CreatesTemp
	}
	// CREATE TABLE pg_temp.t, SET search_path TO pg_temp, …; in CREATE,
	// also a name in a literal: a view of nextval('pg_temp.s') is a
	// temporary view.
	for _, t := range toks {
		switch {
		case mayBeTempSchema(l, t):
			if name, ok := identValue(l, t); ok && IsTempSchema(name) {
				e |= CreatesTemp
			}
		case t.kind == tString && word(0, "create"):
			if v, ok := l.stringValue(t); ok && strings.Contains(strings.ToLower(v), "pg_temp") {
				e |= CreatesTemp
			}
		}
	}
	return e
}

// mayBeTempSchema is the cheap test before identValue: an identifier that
// may spell pg_temp.
func mayBeTempSchema(l *lexer, t token) bool {
	txt := l.text(t)
	switch t.kind {
	case tIdent:
		return len(txt) >= 7 && strings.EqualFold(txt[:7], "pg_temp")
	case tQIdent:
		return strings.HasPrefix(txt, `"pg_temp`)
	}
	return false
}
