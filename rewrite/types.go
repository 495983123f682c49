package rewrite

import (
	"strings"

	"github.com/seqshim/seqshim/sequence"
)

// codeUndefinedObject is PostgreSQL's undefined_object: a type that does
// not exist.
const codeUndefinedObject = "42704"

// other marks a type that exists but is no sequence type.
const other = sequence.Type(255)

// keywordTypes are the type names PostgreSQL's grammar knows as keywords
// (unquoted, unqualified): they name pg_catalog types that exist, and only
// the integer ones are sequence types.
var keywordTypes = map[string]sequence.Type{
	"bigint": sequence.Bigint, "smallint": sequence.Smallint, "integer": sequence.Integer, "int": sequence.Integer,
	"real": other, "float": other, "double": other, "numeric": other, "decimal": other, "dec": other, "boolean": other,
	"character": other, "char": other, "varchar": other, "nchar": other, "national": other, "bit": other,
	"time": other, "timestamp": other, "interval": other, "json": other,
}

// catalogTypes are pg_catalog's type names, found by name lookup: the
// integer ones are sequence types, the others exist but are refused.
var catalogTypes = map[string]sequence.Type{
	"int8": sequence.Bigint, "int4": sequence.Integer, "int2": sequence.Smallint,
	"text": other, "varchar": other, "bpchar": other, "name": other, "char": other, "numeric": other, "float4": other, "float8": other,
	"bool": other, "oid": other, "xid": other, "cid": other, "tid": other, "money": other, "date": other, "time": other, "timetz": other,
	"timestamp": other, "timestamptz": other, "interval": other, "json": other, "jsonb": other, "xml": other, "uuid": other,
	"bytea": other, "bit": other, "varbit": other, "inet": other, "cidr": other, "macaddr": other, "macaddr8": other,
	"regclass": other, "regtype": other, "regproc": other, "point": other, "line": other, "lseg": other, "box": other,
	"path": other, "polygon": other, "circle": other, "tsvector": other, "tsquery": other, "pg_lsn": other, "record": other,
	"int4range": other, "int8range": other, "numrange": other, "daterange": other, "tsrange": other, "tstzrange": other,
}

// seqType resolves the type of AS as PostgreSQL does: a keyword type
// (bigint, unquoted) or a name looked up in pg_catalog (int8, "int8"),
// where quoted names are not folded, so "bigint" and "INT8" do not exist.
// A type that does not exist is 42704; one that exists but is not an
// integer type is 22023. parts are the tokens of the dotted name; suffix is
// a second keyword (double precision, character varying), or "".
//
// A type defined in the database (a domain, an enum, a table's row type)
// is unknown here and reported as not existing; the engine, which can ask
// the database, turns that into PostgreSQL's 22023.
func (s *stmt) seqType(parts []int, suffix string) (sequence.Type, error) {
	last := parts[len(parts)-1]
	name := s.aliasNamePG(last)
	quoted := s.tok(last).kind != tIdent
	if len(parts) == 1 && !quoted {
		if t, ok := keywordTypes[name]; ok {
			if t == other || suffix != "" {
				return 0, notSequenceType()
			}
			return t, nil
		}
	}
	schema := ""
	if len(parts) > 1 {
		schema = s.plainName(parts[:len(parts)-1])
	}
	if t, ok := catalogTypes[name]; ok && suffix == "" && (schema == "" || schema == "pg_catalog") {
		if t == other {
			return 0, notSequenceType()
		}
		return t, nil
	}
	full := name
	if schema != "" {
		full = schema + "." + name
	}
	return 0, sqlError(codeUndefinedObject, "type \"%s\" does not exist", strings.TrimSpace(full+" "+suffix))
}

// notSequenceType is PostgreSQL's error for AS a type that is not an integer
// type.
func notSequenceType() error {
	_, err := sequence.ParseType("")
	return err
}
