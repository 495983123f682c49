package engine

import (
	"context"
	"slices"
	"strings"

	"github.com/seqshim/seqshim/rewrite"
	"github.com/seqshim/seqshim/sequence"
)

// INSERT through a view. PostgreSQL applies a base table's column
// defaults to an INSERT through an automatically updatable view that
// leaves the column out (or writes DEFAULT for a view column without a
// default of its own). A base column whose default is the store's has
// none in the database, so the session writes it into the INSERT as for
// the table itself, under the view's name for the column: viewDefaults
// finds that name by reading the view's definition from the catalog.
//
// A view is read at every execution of an INSERT through it (a text
// injected through a view is made again at each use): another process may
// replace it, so that its columns are other base columns, and writing the
// default into the column it was would be a silent difference. What is
// kept is only that a name is no such view (a table, or a view without
// store defaults under it), with the table set (so for at most
// defaultsTTL), per name and search_path, until a session of the engine
// sends CREATE, ALTER or DROP (Engine.relGen): a name another process
// turns into such a view meanwhile fails (23502) rather than differs.

// maxViewDepth bounds the views over views followed to a table.
const maxViewDepth = 16

// viewQuery returns, for the relation its parameter names (regclass
// input), its schema, name and kind, and for a view its definition, whether
// PostgreSQL does not insert into it automatically (pg_relation_is_updatable
// without its INSERT bit: an aggregate, a join, …; or INSERT rules or
// INSTEAD OF INSERT triggers: then the base defaults do not apply either),
// and its columns with defaults of their own.
const viewQuery = `SELECT n.nspname, c.relname, c.relkind::text,
 CASE WHEN c.relkind = 'v' THEN pg_catalog.pg_get_viewdef(c.oid) END,
 (c.relkind = 'v' AND (pg_catalog.pg_relation_is_updatable(c.oid, false) & 8 = 0
  OR EXISTS (SELECT 1 FROM pg_catalog.pg_rewrite r WHERE r.ev_class = c.oid AND r.ev_type = '3')
  OR EXISTS (SELECT 1 FROM pg_catalog.pg_trigger g WHERE g.tgrelid = c.oid AND g.tgtype & 68 = 68)))::text,
 (SELECT pg_catalog.string_agg(pg_catalog.quote_ident(a.attname), ',' ORDER BY a.attnum) FROM pg_catalog.pg_attribute a
  WHERE a.attrelid = c.oid AND a.atthasdef AND NOT a.attisdropped)
FROM pg_catalog.pg_class c JOIN pg_catalog.pg_namespace n ON n.oid = c.relnamespace
WHERE c.oid = pg_catalog.to_regclass($1)`

// viewDefaults returns the store defaults an INSERT into table (as
// written: unqualified resolves through the search_path) draws through a
// view, or nil when table is no such view; the session's viaView is set
// when it is one.
func (s *Session[A]) viewDefaults(ctx context.Context, ts *tableSet, table string, unqualified bool) (*rewrite.TableDefaults, error) {
	arg, key := tableArg(table), table
	if unqualified {
		arg = sequence.QuoteIdent(sequence.RelName(table))
		if !s.path.trivial {
			key = strings.Join(s.path.schemas, ",") + "\x00" + arg
		}
	}
	gen := s.eng.relGen.Load()
	ts.mu.Lock()
	g, ok := ts.views[key]
	ts.mu.Unlock()
	if ok && g == gen {
		return nil, nil // no such view
	}
	t, known, err := s.readView(ctx, ts, arg)
	if err != nil || !known || t != nil {
		s.viaView = s.viaView || t != nil
		return t, err
	}
	ts.mu.Lock()
	if ts.views == nil {
		ts.views = map[string]uint64{}
	}
	ts.views[key] = gen
	ts.mu.Unlock()
	return nil, nil
}

// readView reads the view arg names from the catalog, and the views under
// it down to a table. known is false when arg names no relation (nothing
// to remember: it may be created next).
func (s *Session[A]) readView(ctx context.Context, ts *tableSet, arg string) (t *rewrite.TableDefaults, known bool, err error) {
	var name string
	var cols []rewrite.ViewColumn // the top view's columns, as the next level's
	var owned []string            // for each of cols, the view column that gives it, at the top
	var withDefault []bool        // whether that view column has a default of its own
	for depth := 0; ; depth++ {
		row, err := s.queryRow(ctx, viewQuery, arg)
		if err != nil || len(row) != 6 {
			return nil, depth > 0, err
		}
		canonical := sequence.FormatName(row[0], row[1])
		if depth == 0 {
			name = canonical
		}
		if row[2] != "v" {
			base := ts.tables[canonical]
			if depth == 0 || base == nil || row[2] != "r" && row[2] != "p" {
				return nil, true, nil // a table (served as one), or no store defaults under the view
			}
			return viewTable(name, base, cols, owned, withDefault), true, nil
		}
		v, ok := rewrite.ParseView(row[3])
		if !ok || row[4] == "true" || depth == maxViewDepth {
			return nil, true, nil // not automatically updatable: the database's rules, triggers or error
		}
		defaulted, _ := sequence.SplitIdentifiers(row[5])
		if depth == 0 {
			for _, c := range v.Columns {
				owned = append(owned, c.Name)
				withDefault = append(withDefault, slices.Contains(defaulted, c.Name))
			}
			cols = v.Columns
		} else {
			// This view's column c.Name is what the top view's columns
			// that gave it now give.
			next := make([]rewrite.ViewColumn, len(cols))
			for i, c := range cols {
				next[i] = rewrite.ViewColumn{Name: c.Name}
				if c.Base == "" {
					continue
				}
				for _, vc := range v.Columns {
					if vc.Name == c.Base {
						next[i].Base = vc.Base
						withDefault[i] = withDefault[i] || slices.Contains(defaulted, vc.Name)
					}
				}
			}
			cols = next
		}
		arg = v.Base
	}
}

// viewTable is the TableDefaults of view name over base, a table with
// store defaults, whose columns cols (the view's, in order) are the base
// columns Base; withDefault says which view columns have a default of
// their own, which PostgreSQL applies instead of the base table's.
func viewTable(name string, base *rewrite.TableDefaults, cols []rewrite.ViewColumn, owned []string, withDefault []bool) *rewrite.TableDefaults {
	t := &rewrite.TableDefaults{Table: name, View: true, Columns: owned}
	for _, d := range base.Defaults {
		var through []int
		for i, c := range cols {
			if c.Base == d.Column {
				through = append(through, i)
			}
		}
		switch {
		case len(through) == 0:
			t.Unserved = "seqshim: an INSERT through view " + name + " leaves column " + sequence.QuoteIdent(d.Column) + " of " + base.Table +
				" to its default, which seqshim serves from sequence " + d.Sequence + ", and the view does not show that column: insert into " +
				base.Table + " directly, or add the column to the view"
			return t
		case slices.ContainsFunc(through, func(i int) bool { return withDefault[i] }):
			continue // a view column's own default applies
		}
		c := rewrite.ColumnSequence{Column: owned[through[0]], Sequence: d.Sequence, Kind: d.Kind, Base: d.Column}
		for _, i := range through[1:] {
			c.Also = append(c.Also, owned[i]) // shown twice: SELECT id, id AS id2
		}
		t.Defaults = append(t.Defaults, c)
	}
	return t
}
