package rewrite

import (
	"errors"
	"testing"

	"github.com/seqshim/seqshim/sequence"
)

// TestMalformedRefused: texts the database refuses whole, before it runs
// any statement, never have a call served. PostgreSQL refuses a text that
// is not UTF-8 with 22021 (seqshim says so itself, with PostgreSQL's
// message), and a control character outside literals and comments with
// 42601 (before version 16 for a vertical tab, which seqshim refuses
// whatever the version: a later one would run the call itself); MySQL and
// SQLite get 42601 for a NUL byte, which PostgreSQL refuses at the protocol
// level (the text passes through).
func TestMalformedRefused(t *testing.T) {
	for _, tc := range []struct {
		d         Dialect
		sql       string
		code, msg string // "pass": passed through; "": read, not refused
	}{
		{Postgres, "SELECT nextval('s'), '\xff'", "22021", `invalid byte sequence for encoding "UTF8": 0xff`},
		{Postgres, "SELECT nextval('s') AS \"\xc3\"", "22021", `invalid byte sequence for encoding "UTF8": 0xc3 0x22`},
		{Postgres, "SELECT nextval('s'), 'é\xe2\x82'", "22021", `invalid byte sequence for encoding "UTF8": 0xe2 0x82 0x27`},
		{Postgres, "SELECT nextval('s'), '\xf0\x9f\x98'", "22021", `invalid byte sequence for encoding "UTF8": 0xf0 0x9f 0x98 0x27`},
		{Postgres, "SELECT nextval('s'), '\xed\xa0\x80'", "22021", `invalid byte sequence for encoding "UTF8": 0xed 0xa0 0x80`},
		{Postgres, "SELECT\vnextval('s')", "42601", "syntax error at or near \"\v\""},
		{Postgres, "SELECT nextval('s')\x01", "42601", "syntax error at or near \"\x01\""},
		{Postgres, "SELECT nextval('s')\x7f", "42601", "syntax error at or near \"\x7f\""},
		{Postgres, "SELECT nextval('s'), '\x01\v' /* \x02 */ -- \x03", "", ""}, // inside literals and comments
		{Postgres, "SELECT nextval('s')\x01, (", "pass", ""},                   // unbalanced: the database's error
		{Postgres, "SELECT nextval('s'); SELECT 1\x00", "pass", ""},
		{MySQL, "SELECT nextval(s); SELECT 1\x00", "42601", "seqshim: syntax error: a NUL byte at offset 27; nothing of the text was run"},
		{SQLite, "SELECT 1\x00; SELECT nextval('s')", "42601", "seqshim: syntax error: a NUL byte at offset 8; nothing of the text was run"},
		{MySQL, "SELECT nextval(s), '\xff'\v", "", ""}, // read as it is
	} {
		p := Build(tc.d, tc.sql)
		switch tc.code {
		case "pass":
			if !p.PassThrough() {
				t.Errorf("%s %q: not passed through: %+v", tc.d, tc.sql, p.Statements)
			}
			continue
		case "":
			if p.Err != nil || p.NumCalls() != 1 {
				t.Errorf("%s %q: %v, %d calls; want one call read", tc.d, tc.sql, p.Err, p.NumCalls())
			}
			continue
		}
		var se *sequence.Error
		if !errors.As(p.Err, &se) || se.Code != tc.code || se.Message != tc.msg || len(p.Statements) != 1 || p.Statements[0].Kind != Reject {
			t.Errorf("%s %q: %v (%+v), want %s %s", tc.d, tc.sql, p.Err, p.Statements, tc.code, tc.msg)
		}
	}
}
