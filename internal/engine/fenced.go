package engine

// Fenced twins, one concept in one file: a store sequence this session
// creates or changes has, in its database, a native sequence of the same
// name and options — its twin — and a column whose default the store
// serves has its native default (nextval of the twin) or identity (the
// twin as its sequence) there too, so that the catalog reads tools make
// (information_schema.columns, pg_get_serial_sequence, pg_attrdef, \d,
// pg_sequences, ORMs' migrators) show what PostgreSQL shows natively.
//
// A twin is fenced (package fence): it stands at its end and never cycles,
// so a writer that bypasses seqshim fails with PostgreSQL's 2200H instead
// of handing out a value the store hands out. seqshim never draws from a
// twin: INSERTs get their values written in (defaults.go), with OVERRIDING
// SYSTEM VALUE for identity columns. Twins are made and changed in the
// same database transaction as the DDL whose store side is held until it
// commits (txddl.go), so that both commit or roll back together.
//
// Only fenced sequences are touched: a native sequence of a store
// sequence's name that is not at its end is not a twin — one moved into
// the store by seqctl import whose writers are still being switched over —
// and is left alone, as are native defaults seqshim did not make. A store
// sequence made before twins existed gets one when sequence or table DDL
// through seqshim next touches it or its column.

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strconv"
	"strings"

	"github.com/seqshim/seqshim/internal/fence"
	"github.com/seqshim/seqshim/rewrite"
	"github.com/seqshim/seqshim/sequence"
)

// twins reports whether this session keeps fenced twins: it has a database
// session whose catalog it can change, and sequence DDL does not reach
// the database as written (seqshim.ddl=both makes the database's own).
func (s *Session[A]) twins() bool {
	return s.db != nil && !s.eng.ddlToDB && s.eng.dialect == rewrite.Postgres
}

// twin reads the relation a canonical name names in the database.
func (s *Session[A]) twin(ctx context.Context, name string) (fence.Native, error) {
	row, err := s.queryRow(ctx, fence.Query, fence.Quote(name))
	if err != nil {
		return fence.Native{}, err
	}
	return fence.Scan(row)
}

// viewSpec returns store sequence name as the session sees it now (its
// transaction's held DDL included); ok is false when it sees none.
func (s *Session[A]) viewSpec(ctx context.Context, name string) (spec sequence.Spec, ok bool, err error) {
	if s.tx != nil {
		if hs, gone := s.tx.lookup(name); gone {
			return spec, false, nil
		} else if hs != nil {
			return hs.spec, true, nil
		}
	}
	info, visible, err := s.describe(ctx, name)
	if errors.Is(err, sequence.ErrNotFound) {
		return spec, false, nil
	}
	if err != nil {
		return spec, false, s.eng.storeErr(err)
	}
	return info.Spec, visible, nil
}

// sequenceDDL applies sequence DDL d: to the store (held in a transaction
// block, as [Session.ddl] does), and to the twins of the sequences it
// concerns. When there are twins to make or change, the two go as one unit
// ([Session.asUnit]), so that a failure of either leaves neither.
func (s *Session[A]) sequenceDDL(ctx context.Context, d *rewrite.DDL) error {
	if !s.twins() {
		return s.ddl(ctx, d)
	}
	if err := s.ddlWritable(ctx, d); err != nil {
		return err // PostgreSQL refuses it in a read-only transaction first
	}
	var before []string // the store sequences it alters, renames or drops that have a fenced twin
	if d.Op != rewrite.Create {
		names, _ := s.ddlNames(ctx, d) // an error is ddl's to report
		missing := false               // an earlier name is missing: its error comes first
		for _, name := range names {
			if name == "" || slices.Contains(before, name) {
				continue
			}
			if _, ok, err := s.viewSpec(ctx, name); err != nil || !ok {
				if err != nil {
					return err
				}
				missing = true
				continue // not a store sequence of this database: ddl's to answer
			}
			if !missing {
				// PostgreSQL checks ownership when it finds the relation.
				if err := s.ownerAllowed(ctx, name); err != nil {
					return err
				}
			}
			n, err := s.twin(ctx, name)
			if err != nil {
				return err
			}
			if n.Kind == 'S' && n.Fenced {
				before = append(before, name)
			}
		}
		if len(before) == 0 {
			return s.ddl(ctx, d) // no twin: the store's alone
		}
	}
	return s.asUnit(ctx, func() error {
		if err := s.ddl(ctx, d); err != nil {
			return err
		}
		return s.fenceDDL(ctx, d, before)
	})
}

// fenceDDL brings the twins of the sequences DDL d concerned in line with
// the store's side, which d has just changed (or holds): a sequence it
// created gets its twin, the twins of sequences it altered, renamed,
// moved or dropped (before) follow.
func (s *Session[A]) fenceDDL(ctx context.Context, d *rewrite.DDL, before []string) error {
	var sql []string
	switch d.Op {
	case rewrite.Create:
		for i, n := range d.Names {
			name, err := s.creationName(ctx, n, d.IsUnqualified(i))
			if err != nil {
				return err
			}
			spec, ok, err := s.viewSpec(ctx, name)
			if err != nil || !ok {
				return err
			}
			if n, err := s.twin(ctx, name); err != nil || n.Kind != 0 {
				return err // IF NOT EXISTS of a sequence the database has
			}
			q := fence.Quote(name)
			sql = append(sql, fence.Create(q, spec, d.Unlogged))
			if d.OwnedBy != "" && d.OwnedBy != "none" {
				sql = append(sql, "ALTER SEQUENCE "+q+" OWNED BY "+d.OwnedBy)
			}
		}
	case rewrite.Alter:
		for _, name := range before {
			q := fence.Quote(name)
			if stmt, err := s.fenceSpec(ctx, name); err != nil {
				return err
			} else if stmt != "" {
				sql = append(sql, stmt)
			}
			switch d.OwnedBy {
			case "":
			case "none":
				sql = append(sql, "ALTER SEQUENCE "+q+" OWNED BY NONE")
			default:
				sql = append(sql, "ALTER SEQUENCE "+q+" OWNED BY "+d.OwnedBy)
			}
		}
	case rewrite.Rename, rewrite.Move:
		for _, name := range before {
			if _, ok, err := s.viewSpec(ctx, name); err != nil || ok {
				return err // not renamed (IF EXISTS, or its own schema)
			}
			if d.Op == rewrite.Rename {
				sql = append(sql, "ALTER SEQUENCE "+fence.Quote(name)+" RENAME TO "+fence.Ident(sequence.RelName(d.RenameTo)))
			} else {
				schema, _ := sequence.SplitName(d.RenameTo)
				sql = append(sql, "ALTER SEQUENCE "+fence.Quote(name)+" SET SCHEMA "+fence.Ident(schema))
			}
		}
	case rewrite.Drop:
		var drop []string
		for _, name := range before {
			if _, ok, err := s.viewSpec(ctx, name); err != nil {
				return err
			} else if !ok {
				drop = append(drop, fence.Quote(name))
			}
		}
		if len(drop) > 0 {
			stmt := "DROP SEQUENCE " + strings.Join(drop, ", ")
			if d.Cascade {
				stmt += " CASCADE"
			}
			sql = append(sql, stmt)
		}
	case rewrite.SetLogged:
		for _, name := range before {
			mode := "LOGGED"
			if d.Unlogged {
				mode = "UNLOGGED"
			}
			sql = append(sql, "ALTER SEQUENCE "+fence.Quote(name)+" SET "+mode)
		}
	}
	return s.execTwins(ctx, sql)
}

// execTwins runs the statements that make or change twins, in the open
// transaction.
func (s *Session[A]) execTwins(ctx context.Context, sql []string) error {
	if len(sql) == 0 {
		return nil
	}
	_, err := s.db.Exec(ctx, strings.Join(sql, "; "))
	return err
}

// fenceSpec returns the statements that give the fenced twin of store
// sequence name the options the session sees the store sequence with now,
// fenced at its new end; "" when they are the same, or when name has no
// fenced twin.
func (s *Session[A]) fenceSpec(ctx context.Context, name string) (string, error) {
	spec, ok, err := s.viewSpec(ctx, name)
	if err != nil || !ok {
		return "", err
	}
	n, err := s.twin(ctx, name)
	if err != nil || n.Kind != 'S' || !n.Fenced || fence.Same(n.Spec, spec) {
		return "", err
	}
	return fence.Alter(fence.Quote(name), spec), nil
}

// twinColumn is a column of a table as the database has it, with what
// fenced twins concern: its identity, default and owned sequence.
type twinColumn struct {
	name       string
	identity   byte   // pg_attribute.attidentity: 'a', 'd' or 0
	notNull    bool   //
	hasDefault bool   // a default expression
	defaultSeq string // the sequence its default calls (canonical), "" for none
	ownedSeq   string // the sequence it owns, an identity's included (canonical), "" for none
	unlogged   bool   // its table is UNLOGGED: so is a sequence it owns, as in PostgreSQL
}

// twinColumnsQuery reads the columns of the table its parameter names
// (a regclass input), for [twinColumn], with the table's OID and the
// database's name and OID (the parts of an OWNED BY reference).
const twinColumnsQuery = `SELECT a.attname, a.attnum::text, a.attidentity::text, a.attnotnull::text, (d.oid IS NOT NULL)::text,
	coalesce((SELECT pg_catalog.quote_ident(n.nspname) || '.' || pg_catalog.quote_ident(c.relname) FROM pg_catalog.pg_depend p
		JOIN pg_catalog.pg_class c ON c.oid = p.refobjid JOIN pg_catalog.pg_namespace n ON n.oid = c.relnamespace
		WHERE p.classid = 'pg_catalog.pg_attrdef'::pg_catalog.regclass AND p.objid = d.oid
		AND p.refclassid = 'pg_catalog.pg_class'::pg_catalog.regclass AND c.relkind = 'S' LIMIT 1), ''),
	coalesce((SELECT pg_catalog.quote_ident(n.nspname) || '.' || pg_catalog.quote_ident(c.relname) FROM pg_catalog.pg_depend p
		JOIN pg_catalog.pg_class c ON c.oid = p.objid JOIN pg_catalog.pg_namespace n ON n.oid = c.relnamespace
		WHERE p.classid = 'pg_catalog.pg_class'::pg_catalog.regclass AND p.refclassid = 'pg_catalog.pg_class'::pg_catalog.regclass
		AND p.refobjid = a.attrelid AND p.refobjsubid = a.attnum AND p.deptype IN ('a', 'i') AND c.relkind = 'S' LIMIT 1), ''),
	a.attrelid::text, pg_catalog.current_database(), (SELECT oid::text FROM pg_catalog.pg_database WHERE datname = pg_catalog.current_database()),
	(SELECT relpersistence::text FROM pg_catalog.pg_class WHERE oid = a.attrelid)
FROM pg_catalog.pg_attribute a LEFT JOIN pg_catalog.pg_attrdef d ON d.adrelid = a.attrelid AND d.adnum = a.attnum
WHERE a.attrelid = pg_catalog.to_regclass($1) AND a.attnum > 0 AND NOT a.attisdropped ORDER BY a.attnum`

// fenceTable gives the columns of table whose defaults the store serves
// (as the session sees them now, held DDL included) their native default
// or identity drawing from a fenced twin, in the open transaction: what
// a table statement that served store-backed defaults ends with.
func (s *Session[A]) fenceTable(ctx context.Context, table tableRef, unfenced map[string]bool) error {
	if !s.twins() {
		return nil
	}
	binds, err := s.tableBindings(ctx, table.canonical())
	if err != nil || len(binds) == 0 {
		return err
	}
	rows, err := s.db.Query(ctx, twinColumnsQuery, table.quoted())
	if err != nil {
		return err
	}
	var sql []string
	for _, r := range rows {
		if len(r) != 11 {
			continue
		}
		c := twinColumn{name: r[0], notNull: r[3] == "true", hasDefault: r[4] == "true",
			defaultSeq: canonicalOf(r[5]), ownedSeq: canonicalOf(r[6]), unlogged: r[10] == "u"}
		if r[2] != "" {
			c.identity = r[2][0]
		}
		b, ok := binds[c.name]
		if !ok {
			continue
		}
		stmts, err := s.fenceColumn(ctx, table, c, b, ownerRef(r[8], r[9], r[7], r[1]), unfenced[b.seq])
		if err != nil {
			return err
		}
		sql = append(sql, stmts...)
	}
	return s.execTwins(ctx, sql)
}

// canonicalOf reads a name PostgreSQL quoted (quote_ident of schema and
// relation, joined by a dot) as a canonical name; "" stays "".
func canonicalOf(quoted string) string {
	if quoted == "" {
		return ""
	}
	name, _, err := sequence.ParseRelation(quoted)
	if err != nil {
		return ""
	}
	return name
}

// fenceColumn returns the statements that give column c of table, whose
// default the store serves from b, its native default or identity drawing
// from b's fenced twin, and that twin; none when the database already
// has them, or has a default or sequence of its own there. unfenced: the
// statement put the twin back inside its bounds (tablePlan.pre).
func (s *Session[A]) fenceColumn(ctx context.Context, table tableRef, c twinColumn, b binding, owner string, unfenced bool) ([]string, error) {
	spec, ok, err := s.viewSpec(ctx, b.seq)
	if err != nil || !ok {
		return nil, err
	}
	n, err := s.twin(ctx, b.seq)
	if err != nil {
		return nil, err
	}
	q := fence.Quote(b.seq)
	col := table.quoted() + " ALTER COLUMN " + fence.Ident(c.name)
	if b.kind.IsIdentity() {
		gen := "BY DEFAULT"
		if b.kind == sequence.IdentityAlways {
			gen = "ALWAYS"
		}
		switch {
		case c.identity != 0 && c.ownedSeq == b.seq && (n.Fenced || unfenced):
			var out []string
			if (c.identity == 'a') != (b.kind == sequence.IdentityAlways) {
				out = append(out, "ALTER TABLE "+col+" SET GENERATED "+gen)
			}
			if unfenced || !fence.Same(n.Spec, spec) {
				out = append(out, fence.Alter(q, spec))
			}
			return out, nil
		case c.identity != 0 || c.hasDefault || !c.notNull || n.Kind != 0:
			return nil, nil // the database's own, or a name taken: no twin
		}
		// ADD GENERATED makes the sequence of the column's type; the
		// store's may be another (LIKE … INCLUDING IDENTITY copies a
		// bigint one onto an integer column): ALTER gives it spec's, and
		// fences it.
		return []string{"ALTER TABLE " + col + " ADD GENERATED " + gen + " AS IDENTITY (SEQUENCE NAME " + q + " " + fence.Options(spec) + ")",
			fence.Alter(q, spec)}, nil
	}
	var out []string
	switch {
	case n.Kind == 0:
		owned := spec.OwnedBy == owner
		out = append(out, fence.Create(q, spec, owned && c.unlogged))
		if owned {
			out = append(out, "ALTER SEQUENCE "+q+" OWNED BY "+table.quoted()+"."+fence.Ident(c.name))
		}
	case n.Kind != 'S' || !n.Fenced && !unfenced:
		return nil, nil // a relation of the database's own of that name
	case unfenced || !fence.Same(n.Spec, spec):
		out = append(out, fence.Alter(q, spec))
	}
	if c.identity == 0 && (!c.hasDefault || c.defaultSeq != b.seq && c.defaultSeq != "" && s.isFenced(ctx, c.defaultSeq)) {
		out = append(out, "ALTER TABLE "+col+" SET DEFAULT pg_catalog.nextval("+fence.Literal(q)+"::pg_catalog.regclass)")
	}
	return out, nil
}

// isFenced reports whether the native sequence name is fenced (a twin, or
// a sequence at its end: nothing draws from it).
func (s *Session[A]) isFenced(ctx context.Context, name string) bool {
	n, err := s.twin(ctx, name)
	return err == nil && n.Kind == 'S' && n.Fenced
}

// adoptCreated gives the store the column defaults of table, which the
// database has just made as written in the open transaction (CREATE TABLE
// with LIKE or INHERITS), so that they are served as PostgreSQL serves them:
// a default drawing from a store sequence's twin (copied by INCLUDING
// DEFAULTS, or inherited) draws from that store sequence; a sequence the
// database made for the table (a serial or identity column declared or
// copied: INCLUDING IDENTITY gives the copy a sequence of its own) becomes
// the twin of a new store sequence of its name, options and position,
// fenced by fenceTable, which follows (unfenced). Columns of the database's
// own sequences stay the database's.
func (s *Session[A]) adoptCreated(ctx context.Context, table tableRef, unfenced map[string]bool) error {
	rows, err := s.db.Query(ctx, twinColumnsQuery, table.quoted())
	if err != nil {
		return err
	}
	for _, r := range rows {
		if len(r) != 11 {
			continue
		}
		column, identity, defaultSeq, ownedSeq := r[0], r[2], canonicalOf(r[5]), canonicalOf(r[6])
		seq := defaultSeq
		if identity != "" {
			seq = ownedSeq
		}
		if seq == "" {
			continue
		}
		if _, ok, err := s.viewSpec(ctx, seq); err != nil {
			return err
		} else if ok {
			if identity == "" && s.isFenced(ctx, seq) {
				// A store sequence's twin: the column draws from it.
				col := sequence.ColumnDefault{Table: table.canonical(), Column: column}
				if err := s.editDefaults(seq, func(ds []sequence.ColumnDefault) []sequence.ColumnDefault { return sequence.WithDefault(ds, col) })(ctx); err != nil {
					return err
				}
			}
			continue
		}
		if seq != ownedSeq {
			continue // a sequence of the database's own that the column does not own
		}
		if err := s.adoptSequence(ctx, table, column, identity, seq, unfenced); err != nil {
			return err
		}
	}
	return nil
}

// adoptSequence makes seq, the sequence the database made in the open
// transaction for column of table (identity: pg_attribute.attidentity),
// the twin of a new store sequence of its name and options, standing where
// it stands (a fill of the table's rows may have moved it); unfenced notes
// it for fenceTable. The session's currval and lastval are those of the
// fill, as natively.
func (s *Session[A]) adoptSequence(ctx context.Context, table tableRef, column, identity, seq string, unfenced map[string]bool) error {
	n, err := s.twin(ctx, seq)
	if err != nil {
		return err
	}
	pos, err := s.queryRow(ctx, "SELECT last_value::text, is_called::text FROM "+fence.Quote(seq))
	if err != nil || len(pos) != 2 {
		return err
	}
	last, err := strconv.ParseInt(pos[0], 10, 64)
	if err != nil {
		return err
	}
	kind := sequence.DefaultNextval
	switch identity {
	case "a":
		kind = sequence.IdentityAlways
	case "d":
		kind = sequence.IdentityByDefault
	}
	defs := []sequence.ColumnDefault{{Table: table.canonical(), Column: column, Kind: kind}}
	cl := clausesOf(n.Spec)
	cl.Defaults = &defs
	owner := table.quoted() + "." + fence.Ident(column)
	if err := s.adopt(ctx, &rewrite.DDL{Op: rewrite.Create, Names: []string{seq}, Clauses: cl, OwnedBy: owner}); err != nil {
		return err
	}
	if fence.IsTrue(pos[1]) {
		hs, err := s.hold(ctx, seq, true)
		if err != nil {
			return err
		}
		if err := localSetval(seq, hs, last, true); err != nil {
			return err
		}
		s.seq.nextval(seq, last, s.eng.cache.Incarnation(seq))
	}
	unfenced[seq] = true
	return nil
}

// clausesOf are the CREATE SEQUENCE options that make a counter of spec.
func clausesOf(spec sequence.Spec) sequence.Clauses {
	return sequence.Clauses{Type: sequence.TypeOf(spec.Type), Increment: sequence.Int64(spec.Increment),
		MinValue: sequence.Int64(spec.Min), MaxValue: sequence.Int64(spec.Max), Start: sequence.Int64(spec.Start),
		Cache: sequence.Int64(spec.Cache), Cycle: sequence.Bool(spec.Cycle)}
}

// adoptFilled adopts the sequence the database made for serial or identity
// column of table — added by ALTER TABLE … ADD COLUMN to a table with rows,
// which the database filled from it — as adoptSequence does, so that the
// store goes on after the values the rows got.
func (s *Session[A]) adoptFilled(ctx context.Context, table tableRef, column string, unfenced map[string]bool) error {
	rows, err := s.db.Query(ctx, twinColumnsQuery, table.quoted())
	if err != nil {
		return err
	}
	for _, r := range rows {
		if len(r) != 11 || r[0] != column {
			continue
		}
		seq := canonicalOf(r[6])
		if seq == "" {
			return fmt.Errorf("seqshim: column %s of %s has no sequence after ADD COLUMN", column, table.canonical())
		}
		return s.adoptSequence(ctx, table, column, r[2], seq, unfenced)
	}
	return fmt.Errorf("seqshim: table %s has no column %s after ADD COLUMN", table.canonical(), column)
}

// adopt applies CREATE SEQUENCE d to the store for a sequence the database
// has made itself in the open transaction: its relation is that sequence,
// not a name taken.
func (s *Session[A]) adopt(ctx context.Context, d *rewrite.DDL) error {
	s.adopting = true
	defer func() { s.adopting = false }()
	return s.ddl(ctx, d)
}
