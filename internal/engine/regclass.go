package engine

import (
	"context"
	"errors"
	"strings"

	"github.com/seqshim/seqshim/rewrite"
	"github.com/seqshim/seqshim/sequence"
)

// Regclass values of store sequences ('s'::regclass as a value): the
// database has no relation, so no OID, for a store sequence, and refuses
// the cast. A statement made only of such values (a Local statement that
// falls back, see rewrite.Statement.Fallback) is answered here when every
// name is a store sequence this session sees, with the text PostgreSQL
// prints for a relation (regclassout): its name, qualified only when the
// search_path does not find it first, each identifier quoted as
// quote_ident quotes it. Otherwise the statement goes to the database as
// it is, which answers for its own relations.

// regclassTypes are the database type names of a regclass value and of the
// text types it may be cast to, as pgx's database/sql driver reports them:
// pgx's type map has no regclass, so that driver names it by its OID.
var regclassTypes = map[string]string{"regclass": "2205", "text": "TEXT", "varchar": "VARCHAR", "name": "NAME"}

// regclassRows answers a Local statement of regclass values: one row of
// text columns, or nil when a name is not a store sequence this session
// sees (the database answers the statement then).
func (s *Session[A]) regclassRows(ctx context.Context, st *rewrite.Statement, args A) (*Rows, error) {
	r := s.newRows(st.Columns)
	r.types = make([]string, len(st.Calls))
	for j := range st.Calls {
		c := &st.Calls[j]
		r.types[j] = regclassTypes[c.Type]
		text, null, ok, err := s.regclassText(ctx, c, args)
		if err != nil || !ok {
			r.Close()
			return nil, err
		}
		r.addText(text, null)
	}
	return r, nil
}

// regclassText returns the text PostgreSQL prints for regclass value c:
// ok is false when its name is not a store sequence this session sees
// (an OID, a name the store does not have for this database, one the open
// transaction dropped); null is true for a NULL argument.
func (s *Session[A]) regclassText(ctx context.Context, c *rewrite.Call, args A) (text string, null, ok bool, err error) {
	name, unqualified := c.Name, c.Unqualified
	if c.NameArg >= 0 {
		arg, null, err := argText(args, c.NameArg)
		if err != nil || null {
			return "", null, err == nil, err
		}
		var qualified bool
		if rewrite.IsOIDText(arg) {
			return "", false, false, nil
		}
		if name, qualified, err = sequence.ParseRelation(arg); err != nil {
			return "", false, false, nil // the database's error
		}
		unqualified = !qualified
	}
	key, at := name, regclassMiss{gen: s.eng.ddlGen.Load()}
	if unqualified {
		key += "\x00" // through the path
		at.changes = s.path.changes
	}
	if m, seen := s.regclassMisses[key]; seen && m == at && s.tx == nil && (!unqualified || s.path.known) {
		return "", false, false, nil
	}
	if unqualified {
		r, err := s.resolve(ctx, name)
		switch {
		case err == nil:
			name = r
		case !errors.Is(err, sequence.ErrNotFound):
			return "", false, false, err
		case s.tx == nil:
			s.missed(key, at)
			return "", false, false, nil
		}
		// Not found in the store: perhaps one this transaction created,
		// which call resolves in public too.
	}
	if found, err := s.sees(ctx, name); err != nil || !found {
		if err == nil && s.tx == nil {
			s.missed(key, at)
		}
		return "", false, false, err
	}
	if unqualified {
		return quoteIdentifier(sequence.RelName(name)), false, true, nil // found first on the path
	}
	schema, rel := sequence.SplitName(name)
	bare := sequence.FormatName(sequence.DefaultSchema, rel)
	first, err := s.resolve(ctx, bare)
	switch {
	case errors.Is(err, sequence.ErrNotFound) && s.tx != nil:
		if found, _ := s.sees(ctx, bare); found {
			first, err = bare, nil
		}
	case err != nil && !errors.Is(err, sequence.ErrNotFound):
		return "", false, false, err
	}
	if err == nil && first == name {
		return quoteIdentifier(rel), false, true, nil
	}
	return quoteIdentifier(schema) + "." + quoteIdentifier(rel), false, true, nil
}

// regclassMiss is when a regclass value's name was found not to be a
// store sequence: at the engine's DDL generation and, for a name resolved
// through the search_path, the session's count of path changes. Until
// either moves, the name goes to the database without a store read, as
// the session keeps its resolutions of sequence names (see searchpath.go).
type regclassMiss struct{ gen, changes uint64 }

// maxRegclassMisses bounds a session's memo of names that are not store
// sequences' (bind arguments may bring any number).
const maxRegclassMisses = 256

// missed notes that key, a regclass name, was not a store sequence's at.
// The path may have been learned meanwhile: the miss counts for the path
// as it is now.
func (s *Session[A]) missed(key string, at regclassMiss) {
	if strings.HasSuffix(key, "\x00") {
		at.changes = s.path.changes
	}
	if s.regclassMisses == nil || len(s.regclassMisses) >= maxRegclassMisses {
		s.regclassMisses = make(map[string]regclassMiss)
	}
	s.regclassMisses[key] = at
}

// quoteIdentifier quotes an identifier as PostgreSQL 15's quote_ident
// does: unless it is ASCII lower-case letters, digits and underscores not
// starting with a digit, and no keyword but an unreserved one.
// (sequence.QuoteIdent makes the store's canonical names, and differs on
// dollar signs and some keywords; stored names keep it.)
func quoteIdentifier(ident string) string {
	safe := ident != "" && (ident[0] >= 'a' && ident[0] <= 'z' || ident[0] == '_')
	for i := 0; safe && i < len(ident); i++ {
		c := ident[i]
		safe = c >= 'a' && c <= 'z' || c >= '0' && c <= '9' || c == '_'
	}
	if safe && !pgKeywords[ident] {
		return ident
	}
	return `"` + strings.ReplaceAll(ident, `"`, `""`) + `"`
}

// pgKeywords are PostgreSQL 15's keywords that quote_ident quotes: all
// but the unreserved ones (SELECT word FROM pg_get_keywords() WHERE
// catcode <> 'U', on PostgreSQL 15).
var pgKeywords = func() map[string]bool {
	m := make(map[string]bool)
	for _, k := range strings.Fields(`all analyse analyze and any array as asc asymmetric authorization
	between bigint binary bit boolean both case cast char character check coalesce collate collation
	column concurrently constraint create cross current_catalog current_date current_role
	current_schema current_time current_timestamp current_user dec decimal default deferrable desc
	distinct do else end except exists extract false fetch float for foreign freeze from full grant
	greatest group grouping having ilike in initially inner inout int integer intersect interval
	into is isnull join lateral leading least left like limit localtime localtimestamp national
	natural nchar none normalize not notnull null nullif numeric offset on only or order out outer
	overlaps overlay placing position precision primary real references returning right row select
	session_user setof similar smallint some substring symmetric table tablesample then time
	timestamp to trailing treat trim true union unique user using values varchar variadic verbose
	when where window with xmlattributes xmlconcat xmlelement xmlexists xmlforest xmlnamespaces
	xmlparse xmlpi xmlroot xmlserialize xmltable`) {
		m[k] = true
	}
	return m
}()
