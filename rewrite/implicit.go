package rewrite

import (
	"strconv"

	"github.com/seqshim/seqshim/sequence"
)

// maxNameBytes is PostgreSQL's NAMEDATALEN-1, the longest identifier.
const maxNameBytes = 63

// ImplicitSequenceName returns the canonical name of the sequence
// PostgreSQL creates for a serial or identity column without SEQUENCE
// NAME: column of table in schema (all three as stored: unquoted, case
// kept). It is PostgreSQL's ChooseRelationName(table, column, "seq",
// schema): table_column_seq, cut to 63 bytes by shortening the longer of
// table and column first and never inside a UTF-8 character; while a
// relation of that name exists (exists is called with the canonical name,
// and must say yes for any relation of the schema: table, index, view,
// sequence), the label becomes seq1, seq2, … and the names are cut again
// to make room.
//
// PostgreSQL chooses the names of all the columns of one statement before
// it creates any: two columns whose names cut to the same one make the
// statement fail (42P07), so exists should not count the names chosen for
// the other columns of the statement.
func ImplicitSequenceName(schema, table, column string, exists func(canonical string) bool) string {
	label := "seq"
	for pass := 0; ; pass++ {
		if pass > 0 {
			label = "seq" + strconv.Itoa(pass)
		}
		name := sequence.FormatName(schema, makeObjectName(table, column, label))
		if exists == nil || !exists(name) {
			return name
		}
	}
}

// makeObjectName is PostgreSQL's makeObjectName: name1_name2_label, where
// name1 and name2 are shortened, the longer one first, so that the whole
// fits in 63 bytes; each is then cut back to a whole number of
// characters.
func makeObjectName(name1, name2, label string) string {
	overhead := 1 + 1 + len(label) // two underscores
	avail := maxNameBytes - overhead
	n1, n2 := len(name1), len(name2)
	for n1+n2 > avail {
		if n1 > n2 {
			n1--
		} else {
			n2--
		}
	}
	return name1[:clipChars(name1, n1)] + "_" + name2[:clipChars(name2, n2)] + "_" + label
}

// clipChars is PostgreSQL's pg_mbcliplen for UTF-8: the length of the
// longest prefix of s of at most limit bytes made of whole characters.
func clipChars(s string, limit int) int {
	n := 0
	for n < len(s) {
		l := utf8Len(s[n])
		if n+l > limit {
			break
		}
		n += l
	}
	return min(n, len(s))
}

// utf8Len is PostgreSQL's pg_utf_mblen: a character's length in bytes
// from its first byte.
func utf8Len(c byte) int {
	switch {
	case c&0x80 == 0:
		return 1
	case c&0xe0 == 0xc0:
		return 2
	case c&0xf0 == 0xe0:
		return 3
	case c&0xf8 == 0xf0:
		return 4
	}
	return 1
}
