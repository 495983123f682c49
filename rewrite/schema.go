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
