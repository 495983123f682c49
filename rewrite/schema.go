package rewrite

import "strings"

// SchemaDrop is a DROP SCHEMA statement: PostgreSQL drops the sequences of
// the schemas with them (CASCADE) or refuses while there are any. With
// Rename, it is ALTER SCHEMA … RENAME TO instead, which moves them.
type SchemaDrop struct {
	Schemas  []string // as stored: unquoted identifiers folded to lower case
	IfExists bool
	Cascade  bool
	Rename   bool // ALTER SCHEMA Schemas[0] RENAME TO …
}

// SchemaDrops returns the DROP SCHEMA and ALTER SCHEMA … RENAME statements
// of sql and the number of statements of sql (postgres dialect only). A
// text in which no statement starts with the word drop or alter costs a
// scan without allocation.
func SchemaDrops(d Dialect, sql string) (drops []SchemaDrop, statements int) {
	if d != Postgres || !mayStartWithWord(sql, isDropOrAlter) {
		return nil, 0
	}
	l := lex(Postgres, sql)
	if l.unreadable() {
		return nil, 0 // the database refuses the text
	}
	spans := split(l)
	for _, sp := range spans {
		toks := l.toks[sp.a:sp.b]
		if len(toks) >= 4 && l.is(toks[0], "alter") && l.is(toks[1], "schema") && l.is(toks[3], "rename") {
			if name, ok := identValue(l, toks[2]); ok {
				drops = append(drops, SchemaDrop{Schemas: []string{name}, Rename: true})
			}
			continue
		}
		if len(toks) < 3 || !l.is(toks[0], "drop") || !l.is(toks[1], "schema") {
			continue
		}
		var sd SchemaDrop
		i := 2
		if i+1 < len(toks) && l.is(toks[i], "if") && l.is(toks[i+1], "exists") {
			sd.IfExists, i = true, i+2
		}
		for i < len(toks) {
			name, ok := identValue(l, toks[i])
			if !ok {
				break
			}
			sd.Schemas = append(sd.Schemas, name)
			i++
			if i < len(toks) && l.punct(toks[i], ',') {
				i++
				continue
			}
			break
		}
		if i < len(toks) && (l.is(toks[i], "cascade") || l.is(toks[i], "restrict")) {
			sd.Cascade = l.is(toks[i], "cascade")
			i++
		}
		if i != len(toks) || len(sd.Schemas) == 0 {
			continue // not DROP SCHEMA as PostgreSQL reads it: it says so
		}
		drops = append(drops, sd)
	}
	return drops, len(spans)
}

// identValue is the value of an identifier token: folded when unquoted.
func identValue(l *lexer, t token) (string, bool) {
	txt := l.text(t)
	switch {
	case t.kind == tIdent:
		return strings.ToLower(txt), true // ASCII folding, as PostgreSQL does
	case t.kind == tQIdent && txt[0] == '"' && len(txt) > 2:
		return strings.ReplaceAll(txt[1:len(txt)-1], `""`, `"`), true
	}
	return "", false
}

func isDropOrAlter(w string) bool {
	return len(w) == 4 && strings.EqualFold(w, "drop") || len(w) == 5 && strings.EqualFold(w, "alter")
}
