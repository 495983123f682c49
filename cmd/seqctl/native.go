package main

import (
	"context"
	"errors"
	"fmt"
	"math"
	"regexp"
	"strings"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"

	"github.com/seqshim/seqshim/internal/storeurl"
	"github.com/seqshim/seqshim/sequence"
)

// codeInsufficientPrivilege is PostgreSQL's SQLSTATE for a missing grant,
// codeUndefinedTable for a relation that does not exist.
const (
	codeInsufficientPrivilege = "42501"
	codeUndefinedTable        = "42P01"
)

// nativeSeq is a sequence of a live PostgreSQL database.
type nativeSeq struct {
	Name   string // canonical, as the driver names the counter
	Schema string
	Rel    string
	Spec   sequence.Spec
	Pos    sequence.Position
}

// ident is the sequence's quoted, schema-qualified name for SQL text.
func (n nativeSeq) ident() string { return pgx.Identifier{n.Schema, n.Rel}.Sanitize() }

// seqFilter selects sequences by canonical name (any of names, if given) and
// schema (any of schemas, if given).
type seqFilter struct {
	names   map[string]bool
	schemas map[string]bool
}

func newSeqFilter(args []string, schemas string) (seqFilter, error) {
	var f seqFilter
	for _, a := range args {
		n, err := nameArg(a)
		if err != nil {
			return f, err
		}
		if f.names == nil {
			f.names = map[string]bool{}
		}
		f.names[n] = true
	}
	for s := range strings.SplitSeq(schemas, ",") {
		if s = strings.TrimSpace(s); s != "" {
			if f.schemas == nil {
				f.schemas = map[string]bool{}
			}
			f.schemas[s] = true
		}
	}
	return f, nil
}

func (f seqFilter) match(n nativeSeq) bool {
	return (f.names == nil || f.names[n.Name]) && (f.schemas == nil || f.schemas[n.Schema])
}

// connectNative connects to the PostgreSQL database of --from.
// openNative is the common start of import and fence: the sequences of the
// live database at from, picked by names and schemas, once a store is known
// to be configured. The caller closes the connection.
func (a *app) openNative(ctx context.Context, from string, names []string, schemas string) (*pgx.Conn, []nativeSeq, error) {
	filter, err := newSeqFilter(names, schemas)
	if err != nil {
		return nil, nil, err
	}
	if _, err := a.storeURLOrEnv(); err != nil {
		return nil, nil, err
	}
	conn, err := connectNative(ctx, from)
	if err != nil {
		return nil, nil, err
	}
	seqs, err := readNative(ctx, conn, filter)
	if err != nil {
		conn.Close(context.WithoutCancel(ctx))
		return nil, nil, err
	}
	return conn, seqs, nil
}

func connectNative(ctx context.Context, from string) (*pgx.Conn, error) {
	if from == "" {
		return nil, usagef("no source: pass --from postgres://USER@HOST:PORT/DB")
	}
	cfg, err := pgx.ParseConfig(from)
	if err != nil {
		return nil, usagef("--from %s: %v", storeurl.Redact(from), err)
	}
	conn, err := pgx.ConnectConfig(ctx, cfg)
	if err != nil {
		return nil, fmt.Errorf("connect to %s: %w", storeurl.Redact(from), err)
	}
	return conn, nil
}

// readNative reads the spec and position of every sequence f selects, in
// schema and name order. Positions come from the sequences themselves, not
// pg_sequences.last_value, which is NULL both for a sequence not yet called
// and after setval(s, v, false).
func readNative(ctx context.Context, conn *pgx.Conn, f seqFilter) ([]nativeSeq, error) {
	rows, err := conn.Query(ctx, `SELECT schemaname::text, sequencename::text, data_type::text,
		start_value, min_value, max_value, increment_by, cycle, cache_size
		FROM pg_catalog.pg_sequences ORDER BY schemaname, sequencename`)
	if err != nil {
		return nil, fmt.Errorf("read pg_sequences: %w", err)
	}
	var seqs []nativeSeq
	for rows.Next() {
		var (
			n   nativeSeq
			typ string
		)
		if err := rows.Scan(&n.Schema, &n.Rel, &typ, &n.Spec.Start, &n.Spec.Min, &n.Spec.Max,
			&n.Spec.Increment, &n.Spec.Cycle, &n.Spec.Cache); err != nil {
			rows.Close()
			return nil, fmt.Errorf("read pg_sequences: %w", err)
		}
		t, err := sequence.ParseType(typ)
		if err != nil {
			rows.Close()
			return nil, fmt.Errorf("sequence %s.%s: data type %q: %w", n.Schema, n.Rel, typ, err)
		}
		n.Spec.Type = t
		n.Name = sequence.FormatName(n.Schema, n.Rel)
		if f.match(n) {
			seqs = append(seqs, n)
		}
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("read pg_sequences: %w", err)
	}
	kept := seqs[:0]
	for _, n := range seqs {
		var pe *pgconn.PgError
		switch n.Pos, err = readPosition(ctx, conn, n); {
		case errors.As(err, &pe) && pe.Code == codeUndefinedTable:
			continue // dropped since it was listed: a live database
		case err != nil:
			return nil, err
		}
		kept = append(kept, n)
	}
	return kept, nil
}

// readPosition reads a sequence's last_value and is_called. The last value is
// what the server wrote to disk: with CACHE > 1 it includes values sessions
// hold in their caches, so it is never behind anything handed out.
func readPosition(ctx context.Context, conn *pgx.Conn, n nativeSeq) (sequence.Position, error) {
	var p sequence.Position
	err := conn.QueryRow(ctx, "SELECT last_value, is_called FROM "+n.ident()).Scan(&p.Last, &p.Called)
	var pe *pgconn.PgError
	if errors.As(err, &pe) && pe.Code == codeInsufficientPrivilege {
		return p, fmt.Errorf("read the position of %s: %w (grant SELECT on the sequence to this user)", n.Name, err)
	}
	if err != nil {
		return p, fmt.Errorf("read the position of %s: %w", n.Name, err)
	}
	return p, nil
}

// rangeStart is the first value of a store counter's range: the lower of its
// START (which import sets to the first value it hands out) and its next
// value, or the higher of the two when it counts down. Native sequences must
// stay below it (above it when descending).
func rangeStart(info sequence.Info) int64 {
	r := info.Spec.Start
	next, ok := nextValue(info)
	if !ok {
		return r
	}
	if info.Spec.Descending() {
		return max(r, next)
	}
	return min(r, next)
}

// beyond reports whether v lies at or past r in the counting direction of s.
func beyond(s sequence.Spec, v, r int64) bool {
	if s.Descending() {
		return v <= r
	}
	return v >= r
}

// nativeNext is the value a native sequence hands out next, if any.
func nativeNext(n nativeSeq) (int64, bool) {
	b, _, err := n.Spec.Reserve(n.Name, n.Pos, 1)
	return b.First, err == nil
}

// maxMargin keeps margin+1 from overflowing.
const maxMargin = math.MaxInt64 / 2

// nativeDefaults are the table columns whose default draws from native
// sequences, as the catalog records them.
type nativeDefaults struct {
	// cols are the columns that draw plain values, by canonical sequence
	// name, in (table, column) order: DEFAULT nextval (serial too) and
	// identity columns.
	cols map[string][]sequence.ColumnDefault
	// unrecorded are defaults that depend on a sequence but are not a plain
	// nextval of it ('INV-' || nextval(...), currval(...)): seqshim cannot
	// serve them, by canonical sequence name.
	unrecorded map[string][]unrecordedDefault
	// lateBound are defaults that call nextval with a name looked up when
	// they run (nextval('s'::text)): the catalog does not say which sequence.
	lateBound []lateBoundDefault
}

// unrecordedDefault is a column default that import does not record.
type unrecordedDefault struct {
	Column     string `json:"column"` // as --default takes it
	Expression string `json:"expression"`
}

// lateBoundDefault is an unrecordedDefault of no known sequence, with the
// schema of its table (for --schema).
type lateBoundDefault struct {
	unrecordedDefault
	schema string
}

// plainNextval matches a default expression, as pg_get_expr writes it, that
// is nextval of one regclass constant, perhaps cast to an integer type (what
// serial, bigserial and DEFAULT nextval('s') store). Which sequence it names
// comes from the dependency the expression records, never from the text:
// the text is qualified or not depending on this session's search_path.
var plainNextval = regexp.MustCompile(`^(?:(?:pg_catalog\.)?nextval\('(?:[^']|'')*'::regclass\)|\((?:pg_catalog\.)?nextval\('(?:[^']|'')*'::regclass\)\)::(?:smallint|integer|bigint))$`)

// defaultsQuery lists, for the columns of ordinary and partitioned tables
// (not dropped, not in another session's temporary schema):
//   - 'n': every column default and the sequence each depends on: the
//     dependency (deptype 'n') that a regclass constant in the expression
//     records from pg_attrdef to the sequence;
//   - 'a' and 'd': every identity column (ALWAYS, BY DEFAULT) and its
//     sequence, which depends on the column (deptype 'i');
//   - 'late': column defaults that call nextval without depending on any
//     sequence (a name cast from text, resolved when the default runs).
//
// pg_get_serial_sequence is not used: it reports which sequence a column
// owns (OWNED BY), not which one its default draws from.
const defaultsQuery = `
SELECT sn.nspname::text, s.relname::text, tn.nspname::text, t.relname::text, a.attname::text,
	'n', pg_catalog.pg_get_expr(ad.adbin, ad.adrelid)
FROM pg_catalog.pg_attrdef ad
JOIN pg_catalog.pg_class t ON t.oid = ad.adrelid AND t.relkind IN ('r', 'p')
JOIN pg_catalog.pg_namespace tn ON tn.oid = t.relnamespace
JOIN pg_catalog.pg_attribute a ON a.attrelid = ad.adrelid AND a.attnum = ad.adnum AND NOT a.attisdropped
JOIN pg_catalog.pg_depend d ON d.classid = 'pg_catalog.pg_attrdef'::pg_catalog.regclass AND d.objid = ad.oid
	AND d.refclassid = 'pg_catalog.pg_class'::pg_catalog.regclass AND d.deptype = 'n'
JOIN pg_catalog.pg_class s ON s.oid = d.refobjid AND s.relkind = 'S'
JOIN pg_catalog.pg_namespace sn ON sn.oid = s.relnamespace
WHERE NOT pg_catalog.pg_is_other_temp_schema(t.relnamespace)
UNION ALL
SELECT sn.nspname::text, s.relname::text, tn.nspname::text, t.relname::text, a.attname::text,
	a.attidentity::text, NULL
FROM pg_catalog.pg_attribute a
JOIN pg_catalog.pg_class t ON t.oid = a.attrelid AND t.relkind IN ('r', 'p')
JOIN pg_catalog.pg_namespace tn ON tn.oid = t.relnamespace
JOIN pg_catalog.pg_depend d ON d.classid = 'pg_catalog.pg_class'::pg_catalog.regclass
	AND d.refclassid = 'pg_catalog.pg_class'::pg_catalog.regclass
	AND d.refobjid = a.attrelid AND d.refobjsubid = a.attnum AND d.deptype = 'i'
JOIN pg_catalog.pg_class s ON s.oid = d.objid AND s.relkind = 'S'
JOIN pg_catalog.pg_namespace sn ON sn.oid = s.relnamespace
WHERE a.attidentity IN ('a', 'd') AND NOT a.attisdropped AND NOT pg_catalog.pg_is_other_temp_schema(t.relnamespace)
UNION ALL
SELECT NULL, NULL, tn.nspname::text, t.relname::text, a.attname::text,
	'late', pg_catalog.pg_get_expr(ad.adbin, ad.adrelid)
FROM pg_catalog.pg_attrdef ad
JOIN pg_catalog.pg_class t ON t.oid = ad.adrelid AND t.relkind IN ('r', 'p')
JOIN pg_catalog.pg_namespace tn ON tn.oid = t.relnamespace
JOIN pg_catalog.pg_attribute a ON a.attrelid = ad.adrelid AND a.attnum = ad.adnum AND NOT a.attisdropped
WHERE NOT pg_catalog.pg_is_other_temp_schema(t.relnamespace)
	AND pg_catalog.pg_get_expr(ad.adbin, ad.adrelid) LIKE '%nextval(%'
	AND NOT EXISTS (SELECT FROM pg_catalog.pg_depend d
		JOIN pg_catalog.pg_class s ON s.oid = d.refobjid AND s.relkind = 'S'
		WHERE d.classid = 'pg_catalog.pg_attrdef'::pg_catalog.regclass AND d.objid = ad.oid
			AND d.refclassid = 'pg_catalog.pg_class'::pg_catalog.regclass AND d.deptype = 'n')
ORDER BY 3, 4, 5`

// readDefaults reads which table columns draw their default from which
// sequence.
func readDefaults(ctx context.Context, conn *pgx.Conn) (nativeDefaults, error) {
	nd := nativeDefaults{cols: map[string][]sequence.ColumnDefault{}, unrecorded: map[string][]unrecordedDefault{}}
	rows, err := conn.Query(ctx, defaultsQuery)
	if err != nil {
		return nd, fmt.Errorf("read column defaults: %w", err)
	}
	defer rows.Close()
	for rows.Next() {
		var (
			seqSchema, seqRel, expr         *string
			tSchema, tRel, column, kindCode string
		)
		if err := rows.Scan(&seqSchema, &seqRel, &tSchema, &tRel, &column, &kindCode, &expr); err != nil {
			return nd, fmt.Errorf("read column defaults: %w", err)
		}
		col := sequence.ColumnDefault{Table: sequence.FormatName(tSchema, tRel), Column: column}
		if kindCode == "late" {
			nd.lateBound = append(nd.lateBound, lateBoundDefault{unrecordedDefault{columnRef(col), *expr}, tSchema})
			continue
		}
		seq := sequence.FormatName(*seqSchema, *seqRel)
		switch kindCode {
		case "a":
			col.Kind = sequence.IdentityAlways
		case "d":
			col.Kind = sequence.IdentityByDefault
		default:
			if !plainNextval.MatchString(*expr) {
				nd.unrecorded[seq] = append(nd.unrecorded[seq], unrecordedDefault{columnRef(col), *expr})
				continue
			}
			col.Kind = sequence.DefaultNextval
		}
		nd.cols[seq] = sequence.WithDefault(nd.cols[seq], col)
	}
	if err := rows.Err(); err != nil {
		return nd, fmt.Errorf("read column defaults: %w", err)
	}
	return nd, nil
}
