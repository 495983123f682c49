// Package fence writes the SQL that keeps a native PostgreSQL sequence
// backed by a store sequence from handing out values: one mechanism for the
// driver's shadows (the native sequences, defaults and identities it keeps
// in the database beside the store's, so that the catalog reads as
// PostgreSQL's) and for the operator's tool.
//
// A fenced sequence keeps its options (type, increment, bounds, start,
// cache), so that the catalog (information_schema.sequences, pg_sequences,
// information_schema.columns' identity_* columns) shows them as PostgreSQL
// would, and stands at its end: MAXVALUE, called (MINVALUE when it counts
// down), NO CYCLE. Its next nextval — a writer that bypasses the store, a
// column default the database evaluates itself, COPY — fails with
// PostgreSQL's own 2200H, "nextval: reached maximum value of sequence", and
// can never hand out a value the store hands out.
//
// setval is not transactional in PostgreSQL, except on a sequence created
// or rewritten (ALTER SEQUENCE … RESTART) in the same transaction: callers
// fence inside the transaction that created or altered the sequence, so
// that a rollback brings back the fenced sequence it started from.
package fence

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/seqshim/seqshim/sequence"
)

// Quote is a canonical sequence or table name (sequence.FormatName) as a
// quoted, schema-qualified name for SQL text and regclass input.
func Quote(canonical string) string {
	schema, rel := sequence.SplitName(canonical)
	if schema == "" {
		schema = sequence.DefaultSchema
	}
	return Ident(schema) + "." + Ident(rel)
}

// Ident quotes one identifier.
func Ident(s string) string { return `"` + strings.ReplaceAll(s, `"`, `""`) + `"` }

// Literal quotes s as a SQL string literal (standard_conforming_strings on).
func Literal(s string) string { return "'" + strings.ReplaceAll(s, "'", "''") + "'" }

// End is where a fenced sequence of spec stands: its MAXVALUE, or its
// MINVALUE when it counts down.
func End(spec sequence.Spec) int64 {
	if spec.Increment < 0 {
		return spec.Min
	}
	return spec.Max
}

// Options are spec's sequence options as CREATE SEQUENCE, ALTER SEQUENCE
// and an identity's options list write them, without the type (an
// identity's sequence takes its column's): always NO CYCLE, since a fenced
// sequence that cycles would wrap around to values the store hands out.
func Options(spec sequence.Spec) string {
	return fmt.Sprintf("INCREMENT BY %d MINVALUE %d MAXVALUE %d START WITH %d CACHE %d NO CYCLE",
		spec.Increment, spec.Min, spec.Max, spec.Start, max(spec.Cache, 1))
}

// AtEnd is the statement that fences native sequence q (a quoted,
// schema-qualified name) of spec: it puts it at its end, called.
func AtEnd(q string, spec sequence.Spec) string {
	return "SELECT pg_catalog.setval(" + Literal(q) + ", " + strconv.FormatInt(End(spec), 10) + ", true)"
}

// Create is the statements that make a fenced native sequence q of spec,
// UNLOGGED when unlogged.
func Create(q string, spec sequence.Spec, unlogged bool) string {
	create := "CREATE SEQUENCE "
	if unlogged {
		create = "CREATE UNLOGGED SEQUENCE "
	}
	return create + q + " AS " + spec.Type.String() + " " + Options(spec) + "; " + AtEnd(q, spec)
}

// Alter is the statements that give fenced native sequence q every option
// of spec and fence it again. RESTART WITH its end rewrites the sequence
// in the transaction (so that the setval after it rolls back with it) and
// keeps PostgreSQL's checks of the current value against new bounds from
// failing on the fence.
func Alter(q string, spec sequence.Spec) string {
	return "ALTER SEQUENCE " + q + " AS " + spec.Type.String() + " " + Options(spec) +
		" RESTART WITH " + strconv.FormatInt(End(spec), 10) + "; " + AtEnd(q, spec)
}

// Native is a native sequence as [Query] reads it.
type Native struct {
	Kind   byte // pg_class.relkind of the relation of that name; 0 for none
	Fenced bool // a sequence standing at its end, NO CYCLE
	Spec   sequence.Spec
}

// Query reads the relation its one text parameter (a regclass input)
// names, for [Scan]; no row when there is none. It needs no privilege on
// the sequence beyond what pg_sequence_last_value needs (SELECT or USAGE,
// which its owner has).
const Query = `SELECT c.relkind::text, coalesce(pg_catalog.format_type(s.seqtypid, NULL), ''),
	coalesce(s.seqstart, 0)::text, coalesce(s.seqincrement, 0)::text, coalesce(s.seqmax, 0)::text,
	coalesce(s.seqmin, 0)::text, coalesce(s.seqcache, 0)::text, coalesce(s.seqcycle, false)::text,
	(s.seqrelid IS NOT NULL AND NOT s.seqcycle AND pg_catalog.pg_sequence_last_value(c.oid) IS NOT DISTINCT FROM
		CASE WHEN s.seqincrement > 0 THEN s.seqmax ELSE s.seqmin END)::text
FROM pg_catalog.pg_class c LEFT JOIN pg_catalog.pg_sequence s ON s.seqrelid = c.oid
WHERE c.oid = pg_catalog.to_regclass($1)`

// Scan reads a row of [Query], as text; a nil row is no relation.
func Scan(row []string) (Native, error) {
	var n Native
	if row == nil {
		return n, nil
	}
	if len(row) != 9 || row[0] == "" {
		return n, fmt.Errorf("seqshim: a native sequence: want 9 columns, got %d", len(row))
	}
	n.Kind = row[0][0]
	if n.Kind != 'S' {
		return n, nil
	}
	t, err := sequence.ParseType(row[1])
	if err != nil {
		return n, err
	}
	n.Spec.Type = t
	for i, p := range []*int64{&n.Spec.Start, &n.Spec.Increment, &n.Spec.Max, &n.Spec.Min, &n.Spec.Cache} {
		if *p, err = strconv.ParseInt(row[i+2], 10, 64); err != nil {
			return n, fmt.Errorf("seqshim: a native sequence's options: %w", err)
		}
	}
	n.Spec.Cycle = IsTrue(row[7])
	n.Fenced = IsTrue(row[8])
	return n, nil
}

// Same reports whether native options a are those a fenced sequence of
// spec b has (NO CYCLE whatever b says).
func Same(a, b sequence.Spec) bool {
	return a.Type == b.Type && a.Increment == b.Increment && a.Min == b.Min && a.Max == b.Max &&
		a.Start == b.Start && a.Cache == max(b.Cache, 1) && !a.Cycle
}

// IsTrue reads a boolean as PostgreSQL writes it in text.
func IsTrue(s string) bool { return s == "t" || s == "true" }
