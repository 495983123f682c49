package sequence

import (
	"strings"
	"unicode/utf8"
)

// DefaultSchema is the schema an unqualified name belongs to, as with
// PostgreSQL's default search_path.
const DefaultSchema = "public"

// maxIdentifierLength is PostgreSQL's NAMEDATALEN-1: longer identifiers are
// truncated, as the server does.
const maxIdentifierLength = 63

// ParseName turns a sequence name, written as PostgreSQL's regclass input
// accepts it, into its canonical form: the text PostgreSQL prints for
// 'name'::regclass::text with the default search_path.
//
// Unquoted identifiers fold to lower case, "quoted" ones keep their case and may
// contain any character ("" is a quote), the schema public is implied and
// dropped, and identifiers longer than 63 bytes are truncated. So orders_seq,
// ORDERS_SEQ, "orders_seq" and public.orders_seq are all "orders_seq", while
// "Orders_Seq" is `"Orders_Seq"` and app.orders_seq is "app.orders_seq".
func ParseName(text string) (string, error) {
	name, _, err := ParseRelation(text)
	return name, err
}

// ParseRelation is [ParseName] that also reports whether text names a
// schema. An unqualified name is canonicalised as in schema public, but
// PostgreSQL resolves it through the session's search_path: orders_seq
// gives ("orders_seq", false), public.orders_seq ("orders_seq", true).
// A text that is not UTF-8, or has a NUL byte, is PostgreSQL's 22021 (it
// refuses such a text before it reads it as a name).
func ParseRelation(text string) (name string, qualified bool, err error) {
	if !utf8.ValidString(text) || strings.IndexByte(text, 0) >= 0 {
		return "", false, InvalidEncodingError(text)
	}
	parts, ok := splitIdentifiers(text)
	if !ok {
		return "", false, newError(ErrInvalid, CodeInvalidName, "invalid name syntax")
	}
	switch len(parts) {
	case 1:
		return FormatName(DefaultSchema, parts[0]), false, nil
	case 2:
		return FormatName(parts[0], parts[1]), true, nil
	case 3:
		return "", false, newError(ErrInvalid, CodeFeatureNotSupported, "cross-database references are not implemented: %s", text)
	default:
		return "", false, newError(ErrInvalid, CodeSyntaxError, "improper relation name (too many dotted names): %s", text)
	}
}

// SplitIdentifiers splits a comma-separated list of identifiers as
// PostgreSQL's SplitIdentifierString does for a search_path setting:
// unquoted identifiers extend to a comma or white space (dots and quotes
// included: a.b is one identifier) and fold to lower case, "quoted" ones
// keep their text ("" is a quote; a lone "" is the empty identifier),
// white space around them is ignored, and each is truncated to 63 bytes.
// ok is false when the list is malformed; an empty or blank list has no
// identifiers.
func SplitIdentifiers(list string) (idents []string, ok bool) {
	return splitIdentifierString(list, ',')
}

// MustParseName is ParseName for names known to be valid; it panics otherwise.
func MustParseName(text string) string {
	name, err := ParseName(text)
	if err != nil {
		panic(err)
	}
	return name
}

// FormatName builds the canonical name of relation rel in schema (both as
// stored, already folded): schema public is omitted, and each part is quoted
// only where PostgreSQL's quote_ident would quote it.
func FormatName(schema, rel string) string {
	if schema == DefaultSchema || schema == "" {
		return QuoteIdent(rel)
	}
	return QuoteIdent(schema) + "." + QuoteIdent(rel)
}

// SplitName returns the schema and relation of a canonical name, unquoted.
func SplitName(canonical string) (schema, rel string) {
	parts, ok := splitIdentifiers(canonical)
	switch {
	case !ok || len(parts) == 0:
		return DefaultSchema, canonical
	case len(parts) == 1:
		return DefaultSchema, parts[0]
	default:
		return parts[len(parts)-2], parts[len(parts)-1]
	}
}

// RelName returns the bare relation name of a canonical name, the way
// PostgreSQL names a sequence in its messages: no schema, no quotes.
func RelName(canonical string) string {
	_, rel := SplitName(canonical)
	return rel
}

// displayName is how PostgreSQL names a missing relation: schema.rel when a
// schema other than the default was given, unquoted.
func displayName(canonical string) string {
	schema, rel := SplitName(canonical)
	if schema == DefaultSchema {
		return rel
	}
	return schema + "." + rel
}

// QuoteIdent quotes an identifier if PostgreSQL would have to: anything but
// lower-case letters, digits, underscores and dollar signs not starting with a
// digit or dollar, or a reserved keyword.
func QuoteIdent(ident string) string {
	safe := ident != "" && !(ident[0] >= '0' && ident[0] <= '9') && ident[0] != '$'
	for i := 0; safe && i < len(ident); i++ {
		c := ident[i]
		safe = c >= 'a' && c <= 'z' || c >= '0' && c <= '9' || c == '_' || c == '$'
	}
	if safe && !reservedKeywords[ident] {
		return ident
	}
	return `"` + strings.ReplaceAll(ident, `"`, `""`) + `"`
}

// splitIdentifiers reads a name as PostgreSQL's regclass input does
// (SplitIdentifierString with '.' as the separator, see
// splitIdentifierString), refusing an empty part: a name of at least one
// part, each non-empty.
func splitIdentifiers(s string) ([]string, bool) {
	parts, ok := splitIdentifierString(s, '.')
	if !ok || len(parts) == 0 {
		return nil, false
	}
	for _, p := range parts {
		if p == "" {
			return nil, false
		}
	}
	return parts, true
}

// splitIdentifierString is PostgreSQL's SplitIdentifierString (varlena.c):
// identifiers separated by sep, white space around them ignored; a quoted
// one keeps its text with "" meaning " (and may be empty), an unquoted one
// extends to sep or white space and folds to lower case; each is truncated
// to 63 bytes. A blank string is the empty list.
func splitIdentifierString(s string, sep byte) ([]string, bool) {
	i := skipSpace(s, 0)
	if i == len(s) {
		return nil, true
	}
	var parts []string
	for {
		var part string
		switch {
		case i == len(s):
			return nil, false // a separator with no identifier after it
		case s[i] == '"':
			var b strings.Builder
			i++
			for {
				end := strings.IndexByte(s[i:], '"')
				if end < 0 {
					return nil, false // unterminated quote
				}
				b.WriteString(s[i : i+end])
				i += end + 1
				if i < len(s) && s[i] == '"' {
					b.WriteByte('"')
					i++
					continue
				}
				break
			}
			part = b.String()
		default:
			start := i
			for i < len(s) && s[i] != sep && !isSpace(s[i]) {
				i++
			}
			if start == i {
				return nil, false
			}
			part = foldIdent(s[start:i])
		}
		parts = append(parts, truncateIdent(part))
		i = skipSpace(s, i)
		if i == len(s) {
			return parts, true
		}
		if s[i] != sep {
			return nil, false
		}
		i = skipSpace(s, i+1)
	}
}

// foldIdent lower-cases ASCII letters only, as PostgreSQL does with a UTF-8
// database encoding.
func foldIdent(s string) string {
	for i := 0; i < len(s); i++ {
		if c := s[i]; c >= 'A' && c <= 'Z' {
			b := []byte(s)
			for j := i; j < len(b); j++ {
				if b[j] >= 'A' && b[j] <= 'Z' {
					b[j] += 'a' - 'A'
				}
			}
			return string(b)
		}
	}
	return s
}

// truncateIdent cuts an identifier to 63 bytes without splitting a UTF-8
// character.
func truncateIdent(s string) string {
	if len(s) <= maxIdentifierLength {
		return s
	}
	n := maxIdentifierLength
	for n > 0 && !utf8.RuneStart(s[n]) {
		n--
	}
	return s[:n]
}

func skipSpace(s string, i int) int {
	for i < len(s) && isSpace(s[i]) {
		i++
	}
	return i
}

// isSpace is PostgreSQL's scanner_isspace: its SQL lexer's white space,
// without the vertical tab (version 16 added it).
func isSpace(c byte) bool {
	return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\f'
}

// reservedKeywords are PostgreSQL's reserved keywords (and those reserved as
// function or type names) that quote_ident quotes.
var reservedKeywords = func() map[string]bool {
	m := make(map[string]bool)
	for _, k := range strings.Fields(`all analyse analyze and any array as asc asymmetric authorization
	binary both case cast check collate collation column concurrently constraint create cross
	current_catalog current_date current_role current_schema current_time current_timestamp
	current_user default deferrable desc distinct do else end except false fetch for foreign
	freeze from full grant group having ilike in initially inner intersect into is isnull join
	lateral leading left like limit localtime localtimestamp natural not notnull null offset on
	only or order outer overlaps placing primary references returning right select session_user
	similar some symmetric system_user table tablesample then to trailing true union unique user
	using variadic verbose when where window with`) {
		m[k] = true
	}
	return m
}()
