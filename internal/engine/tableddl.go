package engine

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

// Table DDL that creates, changes or drops store-backed column defaults
// (serial and identity columns, DEFAULT nextval of a store sequence), one
// concept in one file: the database receives the statement without the
// defaults, and the store gets the sequences and the record of which
// columns draw from them (sequence.Spec.Defaults), committed together
// ([Session.evaluateTables]).

// servesTables reports whether plan pl has table statements that may
// concern store-backed column defaults, judged from the engine's view of
// the store's column defaults and the transaction's own: a CREATE TABLE,
// or an ALTER TABLE giving a column a sequence default, with such a
// column; an ALTER or DROP TABLE of a table that has one; an ALTER TABLE
// … SET SCHEMA of a table whose columns own store sequences.
func (s *Session[A]) servesTables(ctx context.Context, pl *rewrite.Plan) (bool, error) {
	var ts *tableSet
	loaded := false
	for i := range pl.Statements {
		t := pl.Statements[i].Table
		if t == nil {
			continue
		}
		if t.Op == rewrite.TableCreate {
			if t.ReadBack || slices.ContainsFunc(t.Columns, func(c rewrite.ColumnDef) bool { return c.Default != nil }) {
				return true, nil
			}
			continue
		}
		if t.Op == rewrite.TableTruncate {
			return true, nil // the tables it truncates are known once the catalog is read
		}
		for _, c := range t.Cmds {
			if c.Def != nil && c.Def.Default != nil || c.Default != nil {
				return true, nil
			}
		}
		if !loaded {
			var err error
			if ts, err = s.defs.tableSet(ctx); err != nil {
				return false, err
			}
			ts, loaded = ts.overlay(s.heldDefaults()), true
		}
		for k, name := range t.Names {
			if ts == nil {
				break
			}
			if d, err := s.tableDefaults(ctx, ts, name, t.IsUnqualified(k), false); err != nil || d != nil {
				return d != nil, err
			}
		}
		if t.Op == rewrite.TableAlter && slices.ContainsFunc(t.Cmds, func(c rewrite.TableCmd) bool { return c.Action == rewrite.SetSchema }) {
			// Without column defaults, it may still own sequences, which
			// move with it.
			if owns, err := s.ownsSequences(ctx, ddlTableArg(t, 0)); err != nil || owns {
				return owns, err
			}
		}
	}
	return false, nil
}

// ownsSequences reports whether the table arg (tableArg) names has
// columns that own store sequences.
func (s *Session[A]) ownsSequences(ctx context.Context, arg string) (bool, error) {
	table, exists, err := s.findTable(ctx, arg)
	if err != nil || !exists {
		return false, err
	}
	owned, err := s.tableOwns(ctx, table)
	return len(owned) > 0, err
}

// evaluateTables runs a plan with table statements that serve store-backed
// column defaults: the session sends its statements to the database itself,
// in order, each table statement without its store defaults and followed by
// their store side, all as one unit — outside a transaction block wrapped
// in one (BEGIN, the statements, then the commit protocol of held DDL: the
// store first, then COMMIT; see the package doc); inside one, the store's
// side is held until it commits, like any sequence DDL. Nothing is left for
// the front end to send.
func (s *Session[A]) evaluateTables(ctx context.Context, pl *rewrite.Plan) (Evaluation, error) {
	var ev Evaluation
	if s.db == nil {
		return ev, errors.New("seqshim: table DDL with store-backed column defaults needs the inner driver's session (pgx)")
	}
	for i := range pl.Statements {
		st := &pl.Statements[i]
		switch {
		case st.Kind == rewrite.Local:
			return ev, unsupportedf("seqshim: a query answered from sequence calls in the same string as table DDL with serial, identity or sequence-default columns: send the table DDL on its own")
		case st.Kind == rewrite.PassThrough && st.Tx.Op != rewrite.TxNone:
			return ev, unsupportedf("seqshim: transaction control in the same string as table DDL with serial, identity or sequence-default columns: send BEGIN and COMMIT as statements of their own, or use the driver's transactions")
		case i == 0 && s.req.Rows && st.Rows:
			// A Query returns the first statement's rows, which the
			// session, sending the statements one by one, does not keep.
			return ev, unsupportedf("seqshim: a query that returns rows first in a string with table DDL with serial, identity or sequence-default columns, sent by Query: send the table DDL on its own, or the string by Exec")
		}
	}
	orphans := false
	err := s.asUnit(ctx, func() error {
		var err error
		ev, orphans, err = s.runTables(ctx, pl)
		return err
	})
	if err != nil {
		return ev, err
	}
	s.eng.forgetDefaults()
	if orphans {
		if err := s.dropOrphans(ctx); err != nil {
			return ev, err
		}
	}
	return ev, nil
}

// asUnit runs f as one unit with the database: inside the open transaction
// block, or, outside one, inside one it opens itself — BEGIN, f, then the
// commit protocol of held DDL (the store first, then COMMIT; see the package
// doc), or ROLLBACK when f fails — so that the store's side and the
// database's commit or fail together.
func (s *Session[A]) asUnit(ctx context.Context, f func() error) error {
	if s.inTx() {
		return f()
	}
	rollback := func(ctx context.Context) error {
		_, err := s.db.Exec(context.WithoutCancel(ctx), "ROLLBACK")
		return err
	}
	if _, err := s.db.Exec(ctx, "BEGIN"); err != nil {
		return err
	}
	s.wrapped = true // until it ends here (or in guard, on a panic)
	err := f()
	s.wrapped = false
	if err != nil {
		return errors.Join(err, s.Rollback(ctx, rollback))
	}
	return s.Commit(ctx, func(ctx context.Context) error {
		_, err := s.db.Exec(ctx, "COMMIT")
		return err
	}, rollback)
}

// runTables sends the statements of pl one by one, table statements
// without their store defaults and followed by their store side: the body
// of evaluateTables' unit. orphans: a statement may have left sequences
// whose owning column is gone (dropOrphans).
func (s *Session[A]) runTables(ctx context.Context, pl *rewrite.Plan) (ev Evaluation, orphans bool, err error) {
	fail := func(err error) (Evaluation, bool, error) { return ev, orphans, err }
	for i := range pl.Statements {
		st := &pl.Statements[i]
		text := st.Text
		var ops []func(context.Context) error
		switch st.Kind {
		case rewrite.PassThrough, rewrite.Rewrite:
			// An INSERT into a table an earlier statement created gets its
			// defaults now; sequence calls get their values. The string
			// has no bind arguments (several statements go by the simple
			// protocol): values are written in as literals.
			var err error
			if text, err = s.statementText(ctx, st); err != nil {
				return fail(err)
			}
		case rewrite.SequenceDDL:
			if native, err := s.nativeDDL(ctx, st.DDL); err != nil {
				return fail(err)
			} else if native {
				break // a temporary sequence's: the database's, as written
			}
			if err := s.sequenceDDL(ctx, st.DDL); err != nil {
				return fail(err)
			}
			if !s.eng.ddlToDB {
				text = ""
			}
		case rewrite.CatalogDDL:
			if st.Table != nil {
				tp, err := s.planTable(ctx, st)
				if err != nil {
					return fail(err)
				}
				if tp != nil {
					if err := s.execTwins(ctx, tp.pre); err != nil {
						return fail(err)
					}
					text, ops, orphans = tp.text, tp.ops, orphans || tp.orphans
					for _, table := range tp.fence {
						ops = append(ops, func(ctx context.Context) error { return s.fenceTable(ctx, table, tp.unfenced) })
					}
					break
				}
			}
			served, err := s.catalogDDL(ctx, st.Catalog)
			if err != nil {
				return fail(err)
			}
			if served {
				text = ""
			}
			orphans = orphans || st.Catalog.Op == rewrite.DropsOwners
		}
		ev.RowsAffected = 0 // the last statement's, as a string's result is
		if text != "" {
			n, err := s.db.Exec(ctx, text)
			if err != nil {
				return fail(err)
			}
			ev.RowsAffected = n
			s.noteTemps(st.Temps) // for the statements after it
		}
		for _, op := range ops {
			if err := op(ctx); err != nil {
				return fail(err)
			}
		}
	}
	return ev, orphans, nil
}

// statementText is the text to send for a PassThrough or Rewrite
// statement of a string evaluateTables runs: with the store-backed column
// defaults its INSERTs need written out, as the session sees them after
// the statements before it, and the values of its sequence calls written
// in.
func (s *Session[A]) statementText(ctx context.Context, st *rewrite.Statement) (string, error) {
	text := st.Text
	if pl, _ := s.eng.planner.Plan(text); pl.Inserts {
		var err error
		if text, _, _, err = s.inject(ctx, text); err != nil {
			return "", err
		}
	}
	if text == st.Text && st.Kind == rewrite.PassThrough {
		return text, nil
	}
	pl, _ := s.eng.planner.Plan(text)
	if pl.PassThrough() {
		return text, nil
	}
	if pl.Err != nil {
		return "", pl.Err
	}
	var none A
	ev, err := s.evaluate(ctx, pl, none, nil)
	if err != nil {
		return "", err
	}
	out, _ := s.appendPlan(nil, pl, ev.Values)
	return string(out), nil
}

// heldDefaults returns the column defaults the open transaction's held DDL
// gives the sequences it created or changed, and the store sequences it
// dropped, for the INSERTs of the same transaction.
func (s *Session[A]) heldDefaults() (defs map[string][]sequence.ColumnDefault, dropped map[string]bool) {
	if s.tx == nil {
		return nil, nil
	}
	defs = map[string][]sequence.ColumnDefault{}
	for name, hs := range s.tx.seqs {
		defs[name] = hs.spec.Defaults // the transaction's view of the sequence
	}
	dropped = map[string]bool{}
	for _, o := range s.tx.drops {
		dropped[o] = true
	}
	for name := range s.tx.hidden {
		dropped[name] = true
	}
	return defs, dropped
}

// binding is a column default of a store sequence, as a table statement
// finds it.
type binding struct {
	seq  string
	kind sequence.Identity
}

// tableBindings returns the store-backed column defaults of table
// (canonical), as the session sees them now: the store's, with the open
// transaction's held DDL over them.
func (s *Session[A]) tableBindings(ctx context.Context, table string) (map[string]binding, error) {
	specs, err := s.sessionSpecs(ctx)
	if err != nil {
		return nil, err
	}
	out := map[string]binding{}
	for seq, spec := range specs {
		for _, d := range spec.Defaults {
			if d.Table == table {
				out[d.Column] = binding{seq, d.Kind}
			}
		}
	}
	return out, nil
}

// sessionSpecs returns every store sequence of this session's database as
// the session sees it now, by name: the store's (this database's view of
// them), with the open transaction's held DDL over them.
func (s *Session[A]) sessionSpecs(ctx context.Context) (map[string]sequence.Spec, error) {
	infos, err := s.eng.store.List(ctx)
	if err != nil {
		return nil, s.eng.storeErr(err)
	}
	out := make(map[string]sequence.Spec, len(infos))
	for _, info := range infos {
		if view, ok := s.view(info.Spec); ok {
			out[info.Name] = view
		}
	}
	if h := s.tx; h != nil {
		for _, o := range h.drops {
			delete(out, o)
		}
		for name := range h.hidden {
			delete(out, name)
		}
		for name, hs := range h.seqs {
			out[name] = hs.spec // the transaction's view of the sequence
		}
	}
	return out, nil
}

// seqDefaults returns sequence seq's column defaults as the session sees
// them now.
func (s *Session[A]) seqDefaults(ctx context.Context, seq string) ([]sequence.ColumnDefault, error) {
	if defs, _ := s.heldDefaults(); defs != nil {
		if d, ok := defs[seq]; ok {
			return d, nil
		}
	}
	info, visible, err := s.describe(ctx, seq)
	if err == nil && !visible {
		err = notHere(seq)
	}
	if err != nil {
		return nil, s.eng.storeErr(err)
	}
	return info.Spec.Defaults, nil
}

// editDefaults is an op that changes sequence seq's column defaults by f.
func (s *Session[A]) editDefaults(seq string, f func([]sequence.ColumnDefault) []sequence.ColumnDefault) func(context.Context) error {
	return func(ctx context.Context) error {
		cur, err := s.seqDefaults(ctx, seq)
		if err != nil {
			return err
		}
		next := f(cur)
		if next == nil {
			next = []sequence.ColumnDefault{}
		}
		return s.ddl(ctx, &rewrite.DDL{Op: rewrite.Alter, Names: []string{seq}, Clauses: sequence.Clauses{Defaults: &next}})
	}
}

// tableRef is a table as the database's catalog names it.
type tableRef struct {
	schema, rel string
}

func (t tableRef) canonical() string { return sequence.FormatName(t.schema, t.rel) }

// quoted is the table's name for SQL and OWNED BY: "schema"."rel".
func (t tableRef) quoted() string {
	return `"` + strings.ReplaceAll(t.schema, `"`, `""`) + `"."` + strings.ReplaceAll(t.rel, `"`, `""`) + `"`
}

// findTable returns the table that arg, a name as written for to_regclass
// (ddlTableArg, tableArg, tableRef.quoted), names in the database, as
// PostgreSQL resolves it (an unqualified one through the search_path, the
// session's temporary tables first); ok false when it has none.
func (s *Session[A]) findTable(ctx context.Context, arg string) (tableRef, bool, error) {
	rows, ok, err := s.query(ctx, "SELECT n.nspname, c.relname FROM pg_catalog.pg_class c JOIN pg_catalog.pg_namespace n ON n.oid = c.relnamespace WHERE c.oid = pg_catalog.to_regclass("+literal(arg)+")")
	if err != nil || !ok || len(rows) == 0 || len(rows[0]) != 2 {
		return tableRef{}, false, err
	}
	return tableRef{rows[0][0], rows[0][1]}, true, nil
}

// tablePlan is what serving a table statement takes: the text the
// database receives ("" for nothing), the store's side as ops run after it
// in the same unit, and whether sequences owned by dropped columns may be
// left (dropOrphans).
type tablePlan struct {
	text    string
	ops     []func(context.Context) error
	orphans bool
	// pre are statements sent before text: a fenced twin put back inside
	// its bounds (unfenced), so that PostgreSQL's checks of an ALTER
	// COLUMN … TYPE see a value of the sequence, not the fence.
	pre      []string
	unfenced map[string]bool
	// fence are the tables whose columns get their twins after the ops
	// (fenced.go).
	fence []tableRef
}

// planTable returns how to serve the store-backed column defaults of a
// table statement (st.Table), nil when it concerns no store sequence and
// goes as it is.
func (s *Session[A]) planTable(ctx context.Context, st *rewrite.Statement) (*tablePlan, error) {
	t := st.Table
	switch t.Op {
	case rewrite.TableCreate:
		return s.createTable(ctx, t)
	case rewrite.TableAlter:
		return s.alterTable(ctx, t)
	case rewrite.TableDrop:
		ops, err := s.dropTable(ctx, t)
		if err != nil || len(ops) == 0 {
			return nil, err
		}
		return &tablePlan{text: st.Text, ops: ops, orphans: true}, nil
	case rewrite.TableTruncate:
		return s.truncateTable(ctx, st)
	}
	return nil, nil
}

// truncateTable serves TRUNCATE … RESTART IDENTITY: the database truncates
// the tables and restarts the sequences their columns own, their twins
// among them; the store sequences those columns own restart too (held
// until the transaction commits, as PostgreSQL's restart), and the twins
// are fenced again. The tables are those named, their inheritance
// children unless ONLY is written, and with CASCADE the tables whose
// foreign keys reference them, as PostgreSQL truncates them.
func (s *Session[A]) truncateTable(ctx context.Context, st *rewrite.Statement) (*tablePlan, error) {
	t := st.Table
	var oids []string
	for i := range t.Names {
		row, err := s.queryRow(ctx, "SELECT c.oid::text FROM pg_catalog.pg_class c WHERE c.oid = pg_catalog.to_regclass($1)", ddlTableArg(t, i))
		if err != nil {
			return nil, err
		}
		if len(row) == 1 && row[0] != "" {
			oids = append(oids, row[0])
		}
	}
	if len(oids) == 0 {
		return nil, nil // the database reports the missing table
	}
	// The closure of what PostgreSQL truncates, one level per query.
	seen := map[string]bool{}
	for _, o := range oids {
		seen[o] = true
	}
	for level := oids; len(level) > 0 && (!t.Only || t.Cascade); {
		var q []string
		if !t.Only {
			q = append(q, "SELECT inhrelid::text FROM pg_catalog.pg_inherits WHERE inhparent = ANY($1::pg_catalog.oid[])")
		}
		if t.Cascade {
			q = append(q, "SELECT conrelid::text FROM pg_catalog.pg_constraint WHERE contype = 'f' AND confrelid = ANY($1::pg_catalog.oid[])")
		}
		rows, err := s.db.Query(ctx, strings.Join(q, " UNION "), "{"+strings.Join(level, ",")+"}")
		if err != nil {
			return nil, err
		}
		level = nil
		for _, r := range rows {
			if len(r) == 1 && !seen[r[0]] {
				seen[r[0]] = true
				oids, level = append(oids, r[0]), append(level, r[0])
			}
		}
	}
	rows, err := s.db.Query(ctx, `SELECT n.nspname, c.relname FROM pg_catalog.pg_class c JOIN pg_catalog.pg_namespace n ON n.oid = c.relnamespace
WHERE c.oid = ANY($1::pg_catalog.oid[]) ORDER BY c.oid`, "{"+strings.Join(oids, ",")+"}")
	if err != nil {
		return nil, err
	}
	plan := &tablePlan{text: st.Text, unfenced: map[string]bool{}}
	for _, r := range rows {
		if len(r) != 2 || rewrite.IsTempSchema(r[0]) {
			continue
		}
		table := tableRef{r[0], r[1]}
		owned, err := s.tableOwns(ctx, table)
		if err != nil {
			return nil, err
		}
		for _, seq := range owned {
			plan.ops = append(plan.ops, func(ctx context.Context) error {
				return s.ddl(ctx, &rewrite.DDL{Op: rewrite.Alter, Names: []string{seq}, Clauses: sequence.Clauses{Restart: true}})
			})
			plan.unfenced[seq] = true
		}
		if len(owned) > 0 {
			plan.fence = append(plan.fence, table)
		}
	}
	if len(plan.ops) == 0 {
		return nil, nil // no store sequence restarts: the database's alone
	}
	return plan, nil
}

// newColumnSequence returns the op that creates the sequence of a serial or
// identity column c of table, owned by it, with its column default, and
// records its name in taken; seq is that name.
func (s *Session[A]) newColumnSequence(ctx context.Context, table tableRef, column string, d *rewrite.DefaultDef, taken map[string]bool) (op func(context.Context) error, seq string, err error) {
	seq = d.Seq
	if seq != "" && d.SeqUnqualified {
		seq = sequence.FormatName(table.schema, sequence.RelName(seq))
	}
	if seq == "" {
		var qerr error
		// Names chosen for other columns of the statement do not count:
		// PostgreSQL fails with 42P07 when two of them truncate alike.
		seq = rewrite.ImplicitSequenceName(table.schema, table.rel, column, func(name string) bool {
			if qerr != nil {
				return true
			}
			if kind, err := s.relkind(ctx, name, false); err != nil || kind != 0 {
				qerr = err
				return true
			}
			if ok, _ := s.visibleSeq(ctx, name); ok {
				return true
			}
			return false
		})
		if qerr != nil {
			return nil, "", qerr
		}
	}
	taken[seq] = true
	cl := d.Clauses
	defs := []sequence.ColumnDefault{{Table: table.canonical(), Column: column, Kind: d.Kind}}
	cl.Defaults = &defs
	owner := table.quoted() + `."` + strings.ReplaceAll(column, `"`, `""`) + `"`
	return func(ctx context.Context) error {
		return s.ddl(ctx, &rewrite.DDL{Op: rewrite.Create, Names: []string{seq}, Clauses: cl, OwnedBy: owner})
	}, seq, nil
}

// visibleSeq reports whether a store sequence name exists for the session
// (its transaction's held DDL included).
func (s *Session[A]) visibleSeq(ctx context.Context, name string) (bool, error) {
	if s.tx != nil {
		return s.visible(ctx, name)
	}
	return s.exists(ctx, name)
}

// storeSequence resolves the sequence of DEFAULT nextval('s'): its store
// name, or "" when it is not a store sequence (the database's own: its
// default stays in the database).
func (s *Session[A]) storeSequence(ctx context.Context, d *rewrite.DefaultDef) (string, error) {
	name := d.Seq
	if d.SeqUnqualified {
		r, err := s.resolve(ctx, name)
		switch {
		case err == nil:
			name = r
		case errors.Is(err, sequence.ErrNotFound):
			if s.tx != nil {
				if ok, _ := s.visible(ctx, name); ok {
					return name, nil
				}
			}
			return "", nil
		default:
			return "", err
		}
	}
	ok, err := s.visibleSeq(ctx, name)
	if err != nil || !ok {
		return "", err
	}
	return name, nil
}

func (s *Session[A]) createTable(ctx context.Context, t *rewrite.TableDDL) (*tablePlan, error) {
	if !t.ReadBack && !slices.ContainsFunc(t.Columns, func(c rewrite.ColumnDef) bool { return c.Default != nil }) {
		return nil, nil
	}
	if t.IsUnqualified(0) {
		if temp, err := s.createsTemp(ctx); err != nil || temp {
			return nil, err // a temporary table (pg_temp first in the search_path): the database's
		}
	}
	name, err := s.creationName(ctx, t.Names[0], t.IsUnqualified(0))
	if err != nil {
		return nil, err
	}
	schema, rel := sequence.SplitName(name)
	if schema == "" {
		schema = sequence.DefaultSchema
	}
	table := tableRef{schema, rel}
	if t.IfNotExists {
		if _, exists, err := s.findTable(ctx, table.quoted()); err != nil {
			return nil, err
		} else if exists {
			return nil, nil // PostgreSQL: a notice, nothing created
		}
	}
	if t.ReadBack {
		// The database makes what LIKE copies and INHERITS merges; the
		// store follows what it made (fenced.go).
		text, _ := t.AppendSQL(nil, func(int) rewrite.Rendering { return rewrite.AsWritten })
		unfenced := map[string]bool{}
		return &tablePlan{text: string(text), ops: []func(context.Context) error{func(ctx context.Context) error { return s.adoptCreated(ctx, table, unfenced) }},
			unfenced: unfenced, fence: []tableRef{table}}, nil
	}
	how := make([]rewrite.Rendering, len(t.Columns))
	taken := map[string]bool{}
	var ops []func(context.Context) error
	for i := range t.Columns {
		c := &t.Columns[i]
		switch d := c.Default; {
		case d == nil:
		case d.Kind == sequence.DefaultNextval && !d.Serial:
			seq, err := s.storeSequence(ctx, d)
			if err != nil {
				return nil, err
			}
			if seq == "" {
				how[i] = rewrite.AsWritten
				continue
			}
			col := sequence.ColumnDefault{Table: table.canonical(), Column: c.Name}
			ops = append(ops, s.editDefaults(seq, func(ds []sequence.ColumnDefault) []sequence.ColumnDefault { return sequence.WithDefault(ds, col) }))
		default:
			op, _, err := s.newColumnSequence(ctx, table, c.Name, d, taken)
			if err != nil {
				return nil, err
			}
			ops = append(ops, op)
		}
	}
	if len(ops) == 0 {
		return nil, nil
	}
	text, _ := t.AppendSQL(nil, func(i int) rewrite.Rendering { return how[i] })
	return &tablePlan{text: string(text), ops: ops, fence: []tableRef{table}}, nil
}

// ddlTableArg is name i of table DDL t as written for to_regclass: one
// written without a schema resolves through the search_path, as
// PostgreSQL resolves it (a temporary table first).
func ddlTableArg(t *rewrite.TableDDL, i int) string {
	if t.IsUnqualified(i) {
		return sequence.QuoteIdent(sequence.RelName(t.Names[i]))
	}
	return tableArg(t.Names[i])
}

// tableArg is a canonical table name as written for to_regclass, with its
// schema (public when the canonical name has none).
func tableArg(canonical string) string {
	schema, rel := sequence.SplitName(canonical)
	return sequence.QuoteIdent(schema) + "." + sequence.QuoteIdent(rel)
}

// columnFacts are what ADD GENERATED … AS IDENTITY checks of a column in
// the database.
type columnFacts struct {
	exists, notNull, hasDefault bool
	typ                         string // format_type
	identity                    bool   // an identity in the database (a fenced twin's)
}

func (s *Session[A]) columnFacts(ctx context.Context, table tableRef, column string) (columnFacts, error) {
	rows, _, err := s.query(ctx, "SELECT a.attnotnull::text, pg_catalog.format_type(a.atttypid, a.atttypmod), a.atthasdef::text, (a.attidentity <> '')::text FROM pg_catalog.pg_attribute a WHERE a.attrelid = pg_catalog.to_regclass("+
		literal(table.quoted())+") AND a.attname = "+literal(column)+" AND a.attnum > 0 AND NOT a.attisdropped")
	if err != nil || len(rows) == 0 || len(rows[0]) != 4 {
		return columnFacts{}, err
	}
	return columnFacts{exists: true, notNull: rows[0][0] == "true", typ: rows[0][1], hasDefault: rows[0][2] == "true", identity: rows[0][3] == "true"}, nil
}

// addedFacts are the facts of column def, added by the statement.
func addedFacts(def *rewrite.ColumnDef) columnFacts {
	f := columnFacts{exists: true, notNull: def.NotNull, typ: def.TypeText, hasDefault: def.HasDefault()}
	if t, err := def.SeqType(); err == nil {
		f.typ = t.String()
	}
	if d := def.Default; d != nil && d.Serial {
		f.typ = d.Type.String() // bigserial is bigint
	}
	if d := def.Default; d != nil && (d.Serial || d.Kind.IsIdentity()) {
		f.notNull = true
	}
	return f
}

// identityType is the sequence type of an identity column of database type
// typ, or PostgreSQL's error.
func identityType(typ string) (sequence.Type, error) {
	switch typ {
	case "smallint":
		return sequence.Smallint, nil
	case "integer":
		return sequence.Integer, nil
	case "bigint":
		return sequence.Bigint, nil
	}
	return 0, &sequence.Error{Code: sequence.CodeInvalidParameterValue, Kind: sequence.ErrInvalid,
		Message: "identity column type must be smallint, integer, or bigint"}
}

func columnError(code, format, column, rel string) error {
	return &sequence.Error{Code: code, Kind: sequence.ErrInvalid, Message: fmt.Sprintf(format, column, rel)}
}

// codeInvalidTableDefinition is PostgreSQL's invalid_table_definition.
const codeInvalidTableDefinition = "42P16"

// hasChildren reports whether table has inheritance children, partitions
// included: PostgreSQL adds no identity column to it (ALTER TABLE without
// ONLY would add it to them too).
func (s *Session[A]) hasChildren(ctx context.Context, table tableRef) (bool, error) {
	row, err := s.queryRow(ctx, "SELECT EXISTS (SELECT FROM pg_catalog.pg_inherits WHERE inhparent = pg_catalog.to_regclass($1))::text", table.quoted())
	return len(row) == 1 && row[0] == "true", err
}

// alterTable serves the subcommands of ALTER TABLE that concern store-backed
// column defaults.
func (s *Session[A]) alterTable(ctx context.Context, t *rewrite.TableDDL) (*tablePlan, error) {
	table, exists, err := s.findTable(ctx, ddlTableArg(t, 0))
	if err != nil || !exists || rewrite.IsTempSchema(table.schema) {
		return nil, err // the database reports a missing table (or IF EXISTS); a temporary table is the database's
	}
	binds, err := s.tableBindings(ctx, table.canonical())
	if err != nil {
		return nil, err
	}
	how := make([]rewrite.Rendering, len(t.Cmds))
	for i := range how {
		how[i] = rewrite.AsWritten
	}
	taken := map[string]bool{}
	var pre []string
	unfenced := map[string]bool{}
	final := table // its name after the statement
	filled := map[string]bool{}
	// What earlier subcommands of the statement did to a column, which
	// later ones see, as in PostgreSQL: columns added, SET or DROP NOT NULL.
	added := map[string]columnFacts{}
	notNull := map[string]bool{}
	var cannot error // what seqshim cannot serve, once PostgreSQL's errors are checked
	var ops []func(context.Context) error
	orphans := false
	unbind := func(column string) {
		if b, ok := binds[column]; ok {
			ops = append(ops, s.editDefaults(b.seq, func(ds []sequence.ColumnDefault) []sequence.ColumnDefault {
				return sequence.WithoutDefault(ds, table.canonical(), column)
			}))
			delete(binds, column)
		}
	}
	for i := range t.Cmds {
		c := &t.Cmds[i]
		if filled[c.Column] && c.Action != rewrite.AddColumn {
			continue // a column the database fills: what follows about it is the database's
		}
		b, bound := binds[c.Column]
		switch c.Action {
		case rewrite.AddColumn:
			d := c.Def.Default
			if d != nil || c.Err != nil {
				// PostgreSQL checks that the column is new first.
				facts, err := s.columnFacts(ctx, table, c.Def.Name)
				if err != nil {
					return nil, err
				}
				if facts.exists {
					continue // the database's 42701, or IF NOT EXISTS's notice
				}
			}
			if c.Err != nil {
				return nil, c.Err
			}
			switch {
			case d == nil:
			case d.Kind == sequence.DefaultNextval && !d.Serial:
				seq, err := s.storeSequence(ctx, d)
				if err != nil {
					return nil, err
				}
				if seq != "" {
					// As for a serial column: PostgreSQL evaluates the
					// default for every row the table has.
					if full, err := s.hasRows(ctx, table); err != nil {
						return nil, err
					} else if full && cannot == nil {
						cannot = unsupportedf("seqshim: ADD COLUMN %s with DEFAULT nextval('%s') on table %s, which has rows: PostgreSQL gives each row a value of the sequence, which seqshim cannot do in one statement; "+
							"add the column without the default, fill it (UPDATE … SET %s = v from SELECT nextval(…) FROM generate_series(1, n)), then SET DEFAULT nextval('%s')",
							sequence.QuoteIdent(c.Def.Name), seq, table.canonical(), sequence.QuoteIdent(c.Def.Name), seq)
					}
					how[i] = rewrite.Strip
					col := sequence.ColumnDefault{Table: table.canonical(), Column: c.Def.Name}
					ops = append(ops, s.editDefaults(seq, func(ds []sequence.ColumnDefault) []sequence.ColumnDefault { return sequence.WithDefault(ds, col) }))
				}
			default:
				if d.Kind.IsIdentity() && !t.Only {
					// Identity does not inherit: PostgreSQL refuses it on
					// a table with children (ONLY fails in the database,
					// which refuses any column added to a parent alone).
					if children, err := s.hasChildren(ctx, table); err != nil {
						return nil, err
					} else if children {
						return nil, &sequence.Error{Code: codeInvalidTableDefinition, Kind: sequence.ErrInvalid,
							Message: "cannot recursively add identity column to table that has child tables"}
					}
				}
				// PostgreSQL fills the rows a table has from the new
				// sequence, one value per row. With twins, the database
				// does, from the sequence it makes, which becomes the
				// twin of a new store sequence standing where it ended
				// (adoptFilled); without, it cannot.
				full, err := s.hasRows(ctx, table)
				if err != nil {
					return nil, err
				}
				if full && s.twins() && d.Seq == "" {
					if fresh, err := s.freshImplicit(ctx, table, c.Def.Name); err != nil {
						return nil, err
					} else if fresh {
						column := c.Def.Name
						ops = append(ops, func(ctx context.Context) error { return s.adoptFilled(ctx, table, column, unfenced) })
						added[c.Def.Name] = addedFacts(c.Def)
						filled[column] = true
						continue // as written: not bound
					}
				}
				if full && cannot == nil {
					// Reported after the statement's other subcommands:
					// an error PostgreSQL finds in them comes first, as it
					// checks them all before it adds the column.
					cannot = unsupportedf("seqshim: ADD COLUMN %s with a serial or identity type on table %s, which has rows: PostgreSQL gives each row a value of the new sequence, which seqshim cannot do in one statement; "+
						"create the sequence (CREATE SEQUENCE), add the column as an integer column, fill it (UPDATE … SET %s = v from SELECT nextval(…) FROM generate_series(1, n)), then SET NOT NULL and SET DEFAULT nextval(…)",
						sequence.QuoteIdent(c.Def.Name), table.canonical(), sequence.QuoteIdent(c.Def.Name))
				}
				how[i] = rewrite.Strip
				op, seq, err := s.newColumnSequence(ctx, table, c.Def.Name, d, taken)
				if err != nil {
					return nil, err
				}
				ops = append(ops, op)
				binds[c.Def.Name] = binding{seq: seq, kind: d.Kind}
			}
			added[c.Def.Name] = addedFacts(c.Def)
		case rewrite.SetDefault:
			if bound && b.kind.IsIdentity() {
				return nil, identityColumnError(c.Column, table.rel, false)
			}
			unbind(c.Column)
			if c.Default == nil {
				continue
			}
			seq, err := s.storeSequence(ctx, c.Default)
			if err != nil {
				return nil, err
			}
			if seq == "" {
				continue // the database's own sequence
			}
			how[i] = rewrite.Strip
			col := sequence.ColumnDefault{Table: table.canonical(), Column: c.Column}
			ops = append(ops, s.editDefaults(seq, func(ds []sequence.ColumnDefault) []sequence.ColumnDefault { return sequence.WithDefault(ds, col) }))
		case rewrite.DropDefault:
			if bound && b.kind.IsIdentity() {
				return nil, identityColumnError(c.Column, table.rel, true)
			}
			unbind(c.Column)
		case rewrite.DropNotNull:
			if bound && b.kind.IsIdentity() {
				return nil, identityColumnError(c.Column, table.rel, false)
			}
			notNull[c.Column] = false
		case rewrite.SetNotNull:
			notNull[c.Column] = true
		case rewrite.AddIdentity:
			facts, ok := added[c.Column]
			if !ok {
				if facts, err = s.columnFacts(ctx, table, c.Column); err != nil {
					return nil, err
				}
			}
			if !facts.exists {
				continue // the database reports it
			}
			if v, ok := notNull[c.Column]; ok {
				facts.notNull = v // as an earlier subcommand of the statement left it
			}
			// PostgreSQL's order: the type (its sequence is created
			// first), then NOT NULL, an identity already, a default.
			typ, err := identityType(facts.typ)
			switch {
			case err != nil:
				return nil, err
			case !facts.notNull:
				return nil, columnError(codeObjectState, `column "%s" of relation "%s" must be declared NOT NULL before identity can be added`, c.Column, table.rel)
			case bound && b.kind.IsIdentity():
				return nil, columnError(codeObjectState, `column "%s" of relation "%s" is already an identity column`, c.Column, table.rel)
			case bound || facts.hasDefault:
				return nil, columnError(codeObjectState, `column "%s" of relation "%s" already has a default value`, c.Column, table.rel)
			}
			d := *c.Default
			if d.Clauses.Type == nil {
				d.Clauses.Type = sequence.TypeOf(typ)
			}
			how[i] = rewrite.Omit
			op, seq, err := s.newColumnSequence(ctx, table, c.Column, &d, taken)
			if err != nil {
				return nil, err
			}
			ops = append(ops, op)
			binds[c.Column] = binding{seq: seq, kind: d.Kind}
		case rewrite.SetIdentity:
			if !bound || !b.kind.IsIdentity() {
				continue // the database's identity, or its error
			}
			how[i] = rewrite.Omit
			seq := b.seq
			if c.Generated != sequence.DefaultNextval {
				kind := c.Generated
				col := table.canonical()
				ops = append(ops, s.editDefaults(seq, func(ds []sequence.ColumnDefault) []sequence.ColumnDefault {
					return sequence.WithDefault(ds, sequence.ColumnDefault{Table: col, Column: c.Column, Kind: kind})
				}))
			}
			if cl := c.Clauses; cl != (sequence.Clauses{}) {
				ops = append(ops, func(ctx context.Context) error {
					return s.ddl(ctx, &rewrite.DDL{Op: rewrite.Alter, Names: []string{seq}, Clauses: cl})
				})
			}
		case rewrite.DropIdentity:
			if !bound || !b.kind.IsIdentity() {
				continue
			}
			if facts, err := s.columnFacts(ctx, table, c.Column); err != nil {
				return nil, err
			} else if !facts.identity {
				how[i] = rewrite.Omit // no twin: the database has nothing to drop
			}
			unbind(c.Column)
			seq := b.seq
			ops = append(ops, func(ctx context.Context) error {
				return s.ddl(ctx, &rewrite.DDL{Op: rewrite.Drop, Names: []string{seq}})
			})
		case rewrite.AlterType:
			if !bound || !b.kind.IsIdentity() {
				continue
			}
			if c.TypeErr != nil {
				return nil, c.TypeErr
			}
			seq, typ := b.seq, c.Type
			if n, err := s.twin(ctx, seq); err != nil {
				return nil, err
			} else if n.Kind == 'S' && n.Fenced && !unfenced[seq] {
				// The database changes its twin's type and checks the
				// fence against the new bounds: put it at its start
				// (fenceTable fences it again after the statement).
				pre = append(pre, "ALTER SEQUENCE "+fence.Quote(seq)+" RESTART WITH "+strconv.FormatInt(n.Spec.Start, 10))
				unfenced[seq] = true
			}
			ops = append(ops, func(ctx context.Context) error {
				return s.ddl(ctx, &rewrite.DDL{Op: rewrite.Alter, Names: []string{seq}, Clauses: sequence.Clauses{Type: &typ}})
			})
		case rewrite.DropColumn:
			if bound {
				unbind(c.Column)
				orphans = true // an owned sequence goes with its column
			}
		case rewrite.RenameColumn:
			if bound {
				col, to, kind := table.canonical(), c.NewName, b.kind
				from := c.Column
				ops = append(ops, s.editDefaults(b.seq, func(ds []sequence.ColumnDefault) []sequence.ColumnDefault {
					return sequence.WithDefault(sequence.WithoutDefault(ds, col, from), sequence.ColumnDefault{Table: col, Column: to, Kind: kind})
				}))
			}
		case rewrite.RenameTable, rewrite.SetSchema:
			to := tableRef{table.schema, sequence.RelName(c.NewName)}
			if c.Action == rewrite.SetSchema {
				if c.NewName == table.schema {
					continue // nothing moves, as in PostgreSQL
				}
				to = tableRef{c.NewName, table.rel}
			}
			final = to
			for col, b := range binds {
				from, kind := table.canonical(), b.kind
				ops = append(ops, s.editDefaults(b.seq, func(ds []sequence.ColumnDefault) []sequence.ColumnDefault {
					return sequence.WithDefault(sequence.WithoutDefault(ds, from, col), sequence.ColumnDefault{Table: to.canonical(), Column: col, Kind: kind})
				}))
			}
			if c.Action == rewrite.SetSchema {
				// The sequences the table's columns own move with it,
				// after their column defaults were edited under their
				// names of before.
				owned, err := s.tableOwns(ctx, table)
				if err != nil {
					return nil, err
				}
				for _, seq := range owned {
					ops = append(ops, s.moveOwned(c.NewName, seq))
				}
			}
		}
	}
	if cannot != nil {
		return nil, cannot
	}
	if len(ops) == 0 {
		return nil, nil
	}
	text, empty := t.AppendSQL(nil, func(i int) rewrite.Rendering { return how[i] })
	if empty {
		text = nil
	}
	return &tablePlan{text: string(text), ops: ops, orphans: orphans, pre: pre, unfenced: unfenced, fence: []tableRef{final}}, nil
}

// freshImplicit reports whether the sequence PostgreSQL makes for a serial
// or identity column added to table is a new name in the store too, and
// in the database: a counter of that name elsewhere (another database's)
// already handed out the values the database would fill the rows with.
func (s *Session[A]) freshImplicit(ctx context.Context, table tableRef, column string) (bool, error) {
	var qerr error
	taken := false
	rewrite.ImplicitSequenceName(table.schema, table.rel, column, func(name string) bool {
		if qerr != nil {
			return true
		}
		if kind, err := s.relkind(ctx, name, false); err != nil || kind != 0 {
			qerr = err
			return true
		}
		if _, err := s.eng.store.Describe(ctx, name); err == nil {
			taken = true // PostgreSQL would choose it: the counter exists
		} else if !errors.Is(err, sequence.ErrNotFound) {
			qerr = s.eng.storeErr(err)
		}
		return false
	})
	// (A name the open transaction holds is taken too: the store's create
	// in adoptFilled refuses it.)
	return qerr == nil && !taken, qerr
}

// hasRows reports whether table has a row.
func (s *Session[A]) hasRows(ctx context.Context, table tableRef) (bool, error) {
	rows, _, err := s.query(ctx, "SELECT EXISTS (SELECT 1 FROM "+table.quoted()+")::text")
	return len(rows) == 1 && len(rows[0]) == 1 && rows[0][0] == "true", err
}

// identityColumnError is PostgreSQL's error for SET DEFAULT or DROP DEFAULT
// of an identity column.
func identityColumnError(column, rel string, drop bool) error {
	err := &sequence.Error{Code: sequence.CodeSyntaxError, Kind: sequence.ErrInvalid,
		Message: fmt.Sprintf(`column "%s" of relation "%s" is an identity column`, column, rel)}
	if drop {
		err.Hint = "Use ALTER TABLE ... ALTER COLUMN ... DROP IDENTITY instead."
	}
	return err
}

// codeObjectState is PostgreSQL's object_not_in_prerequisite_state.
const codeObjectState = "55000"

// dropTable removes the column defaults of the tables DROP TABLE drops;
// the sequences they own go with them (dropOrphans).
func (s *Session[A]) dropTable(ctx context.Context, t *rewrite.TableDDL) ([]func(context.Context) error, error) {
	var ops []func(context.Context) error
	for i := range t.Names {
		table, exists, err := s.findTable(ctx, ddlTableArg(t, i))
		if err != nil {
			return nil, err
		}
		if !exists {
			continue
		}
		binds, err := s.tableBindings(ctx, table.canonical())
		if err != nil {
			return nil, err
		}
		for col, b := range binds {
			name := table.canonical()
			ops = append(ops, s.editDefaults(b.seq, func(ds []sequence.ColumnDefault) []sequence.ColumnDefault {
				return sequence.WithoutDefault(ds, name, col)
			}))
		}
	}
	return ops, nil
}
