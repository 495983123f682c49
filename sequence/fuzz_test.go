package sequence

import (
	"errors"
	"slices"
	"strings"
	"testing"
	"unicode/utf8"
)

// FuzzParseName checks, for any text read as a regclass name: ParseRelation
// does not panic; its error is an *Error with one of PostgreSQL's
// SQLSTATEs for a bad name; a name it returns is canonical (it parses to
// itself, unqualified), formats back from its parts (SplitName,
// FormatName) and parses to itself written with its schema (qualified).
// The seed corpus is in testdata/fuzz/FuzzParseName.
func FuzzParseName(f *testing.F) {
	for _, s := range []string{
		"orders_seq", "ORDERS_SEQ", `"Orders_Seq"`, "public.orders_seq", ` Public . "orders_seq" `, `"a.b"`,
		`"a""b"`, `a"b`, "a.", ".a", "a..b", "a.b.c", "a.b.c.d", `""`, `x.""`, `"open`, "\xff", "a\x00b", "s\v",
		strings.Repeat("x", 70), strings.Repeat("é", 40), `"select"`, "1abc", "$x", "user",
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, text string) {
		name, qualified, err := ParseRelation(text)
		if err != nil {
			var e *Error
			if !errors.As(err, &e) || !slices.Contains([]string{CodeInvalidName, CodeFeatureNotSupported, CodeSyntaxError, CodeCharacterNotInRepertoire}, e.Code) {
				t.Fatalf("ParseRelation(%q): %T %v", text, err, err)
			}
			if !errors.Is(err, ErrInvalid) {
				t.Fatalf("ParseRelation(%q): %v is not ErrInvalid", text, err)
			}
			return
		}
		if name == "" || !utf8.ValidString(name) {
			t.Fatalf("ParseRelation(%q) = %q", text, name)
		}
		// Canonical: public is left out, any other schema written.
		again, q, err := ParseRelation(name)
		if err != nil || again != name || q != splitsQualified(name) {
			t.Fatalf("ParseRelation(%q) = %q; again: %q, %v, %v", text, name, again, q, err)
		}
		schema, rel := SplitName(name)
		if FormatName(schema, rel) != name || len(rel) > maxIdentifierLength || len(schema) > maxIdentifierLength {
			t.Fatalf("%q splits into %q . %q, which format to %q", name, schema, rel, FormatName(schema, rel))
		}
		full := QuoteIdent(schema) + "." + QuoteIdent(rel)
		if got, q, err := ParseRelation(full); err != nil || got != name || !q {
			t.Fatalf("%q written with its schema, %q, parses to %q, %v, %v", name, full, got, q, err)
		}
		if !qualified && schema != DefaultSchema {
			t.Fatalf("%q from unqualified %q is in schema %q", name, text, schema)
		}
	})
}

// splitsQualified reports whether a canonical name has a schema.
func splitsQualified(name string) bool {
	parts, ok := splitIdentifiers(name)
	return ok && len(parts) == 2
}

// FuzzSplitIdentifiers checks, for any search_path setting: SplitIdentifiers
// does not panic; the identifiers of a list it reads are at most 63 bytes,
// and written back as a list (quoted where PostgreSQL would quote them, or
// always quoted) read as the same identifiers; a list it refuses has an
// unterminated quote, an empty element, or text after a quoted identifier.
// The seed corpus is in testdata/fuzz/FuzzSplitIdentifiers.
func FuzzSplitIdentifiers(f *testing.F) {
	for _, s := range []string{
		`"$user", public`, "tenant_7, public", `"T7", "My Schema",Public`, `"a,b", "x""y"`, `""`, `a, "" `, "", "  ",
		"a,,b", "a,", "a b", "a.b", `"open`, `a"b, c`, `"a"b`, "a\vb", strings.Repeat("s", 80) + ",x",
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, list string) {
		idents, ok := SplitIdentifiers(list)
		if !ok {
			if idents != nil {
				t.Fatalf("SplitIdentifiers(%q) refused, with %q", list, idents)
			}
			return
		}
		if strings.TrimLeft(list, " \t\n\r\f") == "" != (len(idents) == 0) {
			t.Fatalf("SplitIdentifiers(%q) = %q", list, idents)
		}
		quoted, always := make([]string, len(idents)), make([]string, len(idents))
		for i, id := range idents {
			if len(id) > maxIdentifierLength && utf8.ValidString(id) {
				t.Fatalf("SplitIdentifiers(%q): %q is longer than %d bytes", list, id, maxIdentifierLength)
			}
			quoted[i] = QuoteIdent(id)
			always[i] = `"` + strings.ReplaceAll(id, `"`, `""`) + `"`
		}
		for _, written := range []string{strings.Join(quoted, ", "), strings.Join(always, ",")} {
			if again, ok := SplitIdentifiers(written); !ok || !slices.Equal(again, idents) {
				t.Fatalf("SplitIdentifiers(%q) = %q, written back as %q: %q, %v", list, idents, written, again, ok)
			}
		}
	})
}

// FuzzColumnDefault checks, for any text: ParseColumnDefault does not
// panic, and a column it reads writes (String) and parses back to itself,
// and survives the stores' encoding (EncodeDefaults, DecodeDefaults). The
// seed corpus is in testdata/fuzz/FuzzColumnDefault.
func FuzzColumnDefault(f *testing.F) {
	for _, s := range []string{
		"orders.id", "shop.orders.id:always", `shop."Items"."No" (by-default)`, `t."a:b"`, `"a (b)".c (default)`,
		"t.c:nope", "t", "a.b.c.d", `t."x"" (always)"`, "T.C : ALWAYS",
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, text string) {
		d, err := ParseColumnDefault(text)
		if err != nil {
			return
		}
		again, err := ParseColumnDefault(d.String())
		if err != nil || again != d {
			t.Fatalf("ParseColumnDefault(%q) = %+v, written %q, parses to %+v, %v", text, d, d.String(), again, err)
		}
		if back, err := DecodeDefaults(EncodeDefaults([]ColumnDefault{d})); err != nil || len(back) != 1 || back[0] != d {
			t.Fatalf("%+v encoded and decoded: %+v, %v", d, back, err)
		}
	})
}

// FuzzDecodeDefaults checks, for any stored text: DecodeDefaults does not
// panic, and what it reads encodes to a text it reads the same (the
// stores' encoding is a fixed point after one round; none is nil, however
// written). The seed corpus is
// in testdata/fuzz/FuzzDecodeDefaults.
func FuzzDecodeDefaults(f *testing.F) {
	f.Add(EncodeDefaults([]ColumnDefault{{Table: "orders", Column: "id", Kind: IdentityAlways}, {Table: `shop."Items"`, Column: "No"}}))
	for _, s := range []string{"", "[]", "null", "orders.id", `[{"table":"t","column":"c","kind":"sometimes"}]`, `[{"table":"","column":"c","kind":"default"}]`, `[{}]`, `{"table":"t"}`} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, text string) {
		defs, err := DecodeDefaults(text)
		if err != nil {
			return
		}
		enc := EncodeDefaults(defs)
		again, err := DecodeDefaults(enc)
		if err != nil || !slices.Equal(again, defs) || (again == nil) != (defs == nil) || EncodeDefaults(again) != enc {
			t.Fatalf("DecodeDefaults(%q) = %+v, encoded %q, decoded %+v, %v", text, defs, enc, again, err)
		}
		for _, d := range defs {
			if d.Table == "" || d.Column == "" || int(d.Kind) >= len(identityNames) {
				t.Fatalf("DecodeDefaults(%q) gives %+v", text, d)
			}
		}
	})
}

// FuzzParseType checks that a type name ParseType reads writes back
// (String) to a name it reads as the same type.
func FuzzParseType(f *testing.F) {
	for _, s := range []string{"smallint", "INT2", "integer", "int", "int4", "bigint", "Int8", "numeric", ""} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		typ, err := ParseType(s)
		if err != nil {
			return
		}
		if again, err := ParseType(typ.String()); err != nil || again != typ {
			t.Fatalf("ParseType(%q) = %v, then %v, %v", s, typ, again, err)
		}
	})
}

// FuzzDecodeMembers checks, for any stored text: DecodeMembers does not
// panic; every member it reads names its database; and what it reads
// encodes (EncodeMembers) to a text it reads the same, so a store that
// reads a row and writes it back keeps its members. The seed corpus is in
// testdata/fuzz/FuzzDecodeMembers.
func FuzzDecodeMembers(f *testing.F) {
	f.Add(EncodeMembers([]Member{
		{DB: "7/1/a", OwnedBy: "pg:7/1/a/16384/1", Defaults: []ColumnDefault{{Table: "t", Column: "id", Kind: IdentityAlways}}},
		{DB: "7/2/b"},
	}))
	for _, s := range []string{"", "[]", "null", "{}", `[{}]`, `[{"db":""}]`, `[{"db":"x","defaults":[]}]`,
		`[{"db":"x","defaults":[{"table":"t","column":"c","kind":"sometimes"}]}]`, `[{"db":"b"},{"db":"a"},{"db":"a"}]`} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, text string) {
		members, err := DecodeMembers(text)
		if err != nil {
			return
		}
		for _, m := range members {
			if m.Validate() != nil {
				t.Fatalf("DecodeMembers(%q) gives %+v", text, m)
			}
		}
		enc := EncodeMembers(members)
		again, err := DecodeMembers(enc)
		if err != nil || !sameMembers(again, members) || EncodeMembers(again) != enc {
			t.Fatalf("DecodeMembers(%q) = %+v, encoded %q, decoded %+v, %v", text, members, enc, again, err)
		}
	})
}
