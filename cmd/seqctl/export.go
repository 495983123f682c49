package main

import (
	"context"
	"errors"
	"fmt"
	"math"
	"strings"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/seqshim/seqshim/internal/fence"
	"github.com/seqshim/seqshim/internal/storeurl"
	"github.com/seqshim/seqshim/sequence"
)

const exportDoc = `
The way back: the reverse of import. For each store counter of a live
PostgreSQL database (NAMEs or --schema restrict it to some), export moves the
database's native sequence past the store's high-water mark, gives the
database back the column defaults the store recorded for it, and fences the
store below the native range, so that nothing either side hands out is ever
handed out by the other.

The high-water mark is the store's reserved position: the next value the
store would hand out, so every value any process holds in its cache lies
below it, not only the values served.

A counter is this database's when the database is one of its members (it
declared the sequence through seqshim), or when the counter has no members
(made by import or seqctl create) and the database has a sequence of its name
or a table of one of its column defaults. Two cases:

  * The database is the counter's only member, or the counter has none: the
    native sequence gets the store's options and restarts --margin values past
    the high-water mark (START WITH there too, so RESTART never goes back into
    the store's range); the store counter gets MAXVALUE just below it (MINVALUE
    when it counts down), NO CYCLE. A seqshim process that was not switched
    back keeps serving from its cache and from the margin, then fails with
    2200H "reached maximum value" instead of colliding. Values it had cached
    lie below the fence and were never handed out natively: they stay safe.

  * Other databases share the counter: they keep drawing from the store, so
    the store is not fenced. Instead export reserves a block of --range values
    from the counter for this database, the native sequence hands out only
    those (START and RESTART at its first, MAXVALUE at its last: 2200H past it),
    and the counter records the range with this database's membership. The ids
    of every database stay unique. Once three quarters of the range are used,
    export run again gives the database a new one.

The native sequence is created when the database has none (CREATE SEQUENCE
with the store's options, or ADD GENERATED ... AS IDENTITY for a recorded
identity column), and a recorded column whose default is missing gets
DEFAULT nextval('s'::regclass) or its identity back. A column with another
default is an error (nothing is changed then). A native sequence never cycles
after export: a cycle would wrap into values the store handed out.

The margin is how many values seqshim processes not yet switched back may
still take from the store. The default is max(1,000,000, one day of the
counter's consumption), measured by reading the store twice, --sample apart.
--range defaults to max(1,000,000, a year of the counter's consumption), at
most half of what the counter has left.

Order: the store side is reserved first, the database's statements run in
one transaction, the store fences are set while it is open and undone if it
does not commit. --dry-run prints the plan; the real run does that plan (a
shared counter's block may start later if other databases reserved
meanwhile). Needs ownership of the sequences and tables (or superuser).`

// exportItem is one line of the export plan.
type exportItem struct {
	Name string `json:"name"`
	// Mode is "fence-store" (the database is the counter's only user: the
	// store stops below the native range) or "range" (a shared counter: a
	// block of it is reserved for the native sequence).
	Mode       string   `json:"mode"`
	StoreNext  *int64   `json:"store_next_value"` // the high-water mark: null when the counter is exhausted
	BurnPerDay *float64 `json:"store_burn_per_day"`
	Margin     int64    `json:"margin,omitempty"`
	Range      int64    `json:"range,omitempty"`
	// NativeFirst is the value the native sequence hands out next;
	// NativeLimit its new MAXVALUE (MINVALUE counting down) in range mode.
	NativeFirst *int64 `json:"native_first_value"`
	NativeLimit *int64 `json:"native_limit,omitempty"`
	// StoreBound is the store counter's new MAXVALUE (MINVALUE counting
	// down) in fence-store mode.
	StoreBound     *int64              `json:"store_new_bound,omitempty"`
	ColumnDefaults []columnDefaultJSON `json:"column_defaults"`
	Statements     []string            `json:"statements"`
	Action         string              `json:"action"` // export, exported, skip, error
	Reason         string              `json:"reason,omitempty"`

	info   sequence.Info
	view   sequence.Spec // the counter as the database sees it
	native *nativeSeq    // nil when the database has none
	block  sequence.Block
	undo   *sequence.Clauses // restores the store counter's bound after a failed run
}

// exportSelect is what export and verify pick from the store: the counters
// of the database db.
type exportSelect struct {
	filter  seqFilter
	named   bool
	db      string
	natives map[string]*nativeSeq
}

func (a *app) cmdExport(ctx context.Context, args []string) error {
	fs := a.flagSet("export", "--from postgres://... [NAME...] [flags]", exportDoc)
	from := fs.String("from", "", "`URL` of the live PostgreSQL database to give its sequences back")
	margin := fs.Int64("margin", -1, "values seqshim processes not switched back may still take from the store (-1: the default described above)")
	rng := fs.Int64("range", 0, "values reserved for the native sequence of a shared counter (0: the default described above)")
	sample := fs.Duration("sample", 10*time.Second, "how long to measure the store's consumption for the defaults")
	schemas := fs.String("schema", "", "export only the counters of these `schemas` (comma-separated)")
	dryRun := fs.Bool("dry-run", false, "print the plan, change nothing")
	args, err := a.parse(fs, args)
	if err != nil {
		return err
	}
	switch {
	case *margin < -1 || *margin > maxMargin:
		return usagef("--margin %d: want -1 (default) or 0 to %d", *margin, int64(maxMargin))
	case *rng < 0 || *rng > maxMargin:
		return usagef("--range %d: want 0 (default) to %d", *rng, int64(maxMargin))
	case *sample < 0:
		return usagef("--sample %v: want a duration >= 0", *sample)
	}
	ctx, cancel := a.bounded(ctx)
	defer cancel()
	conn, st, sel, infos, done, err := a.backTo(ctx, *from, args, *schemas)
	if err != nil {
		return err
	}
	defer done()
	perDay := make([]*float64, len(infos))
	if (*margin < 0 || *rng == 0) && *sample > 0 {
		start := a.now()
		if err := a.sleep(ctx, *sample); err != nil {
			return err
		}
		elapsed := a.now().Sub(start).Seconds()
		for i, info := range infos {
			after, err := st.Describe(ctx, info.Name)
			if err != nil {
				return a.storeErr(err, info.Name)
			}
			d := max(float64(after.ValuesReserved-info.ValuesReserved), 0) / elapsed * 86400
			perDay[i], infos[i] = &d, after
		}
	}
	defaults, err := readDefaults(ctx, conn)
	if err != nil {
		return err
	}
	plan := make([]exportItem, len(infos))
	failures := 0
	for i, info := range infos {
		it := &plan[i]
		*it = exportItem{Name: info.Name, BurnPerDay: perDay[i], info: info, native: sel.natives[info.Name]}
		it.view, _ = info.Spec.View(sel.db)
		it.ColumnDefaults = defaultsJSON(it.view.Defaults)
		a.planExport(ctx, conn, it, sel.db, *margin, *rng, defaults)
		if it.Action == "error" {
			failures++
		}
	}
	if failures > 0 {
		a.printExport(plan)
		return fmt.Errorf("%d counter(s) cannot be exported; nothing changed", failures)
	}
	if !*dryRun {
		if err := a.runExport(ctx, conn, st, sel.db, plan, defaults); err != nil {
			a.printExport(plan)
			return err
		}
	}
	if err := a.printExport(plan); err != nil {
		return err
	}
	if *dryRun && a.output == "table" {
		_, err = fmt.Fprintln(a.stdout, "dry run: nothing changed")
	}
	return err
}

// backTo is the common start of export and verify: the database at from,
// the store, and the store counters of the database the arguments pick (at
// least one); done releases them.
func (a *app) backTo(ctx context.Context, from string, args []string, schemas string) (
	conn *pgx.Conn, st sequence.Store, sel exportSelect, infos []sequence.Info, done func(), err error) {
	conn, sel, err = a.openBack(ctx, from, args, schemas)
	if err != nil {
		return nil, nil, sel, nil, nil, err
	}
	if st, err = a.store(ctx); err == nil {
		infos, err = a.counters(ctx, conn, st, sel)
		if err == nil && len(infos) == 0 {
			err = fmt.Errorf("no counter of the store belongs to %s: %w", storeurl.Redact(from), sequence.ErrNotFound)
		}
	}
	done = func() {
		if st != nil {
			closeStore(st)
		}
		conn.Close(context.WithoutCancel(ctx))
	}
	if err != nil {
		done()
		return nil, nil, sel, nil, nil, err
	}
	return conn, st, sel, infos, done, nil
}

// openBack opens the database at from,
// its identity as a member of counters, its native sequences, and what the
// arguments select.
func (a *app) openBack(ctx context.Context, from string, names []string, schemas string) (*pgx.Conn, exportSelect, error) {
	var sel exportSelect
	filter, err := newSeqFilter(names, schemas)
	if err != nil {
		return nil, sel, err
	}
	sel.filter, sel.named = filter, len(names) > 0
	if _, err := a.storeURLOrEnv(); err != nil {
		return nil, sel, err
	}
	conn, err := connectNative(ctx, from)
	if err != nil {
		return nil, sel, err
	}
	fail := func(err error) (*pgx.Conn, exportSelect, error) {
		conn.Close(context.WithoutCancel(ctx))
		return nil, sel, err
	}
	var sysID, oid, name string
	if err := conn.QueryRow(ctx, `SELECT (SELECT system_identifier::text FROM pg_catalog.pg_control_system()),
		oid::text, datname::text FROM pg_catalog.pg_database WHERE datname = pg_catalog.current_database()`).Scan(&sysID, &oid, &name); err != nil {
		return fail(clusterErr(from, err))
	}
	sel.db = sequence.DatabaseID(sysID, oid, name)
	seqs, err := readNative(ctx, conn, seqFilter{})
	if err != nil {
		return fail(err)
	}
	sel.natives = make(map[string]*nativeSeq, len(seqs))
	for i := range seqs {
		sel.natives[seqs[i].Name] = &seqs[i]
	}
	return conn, sel, nil
}

// counters lists the store counters of the database sel.db that sel picks:
// those it is a member of, and those without members that it has a
// sequence of, or a table of a recorded column default of. A name given
// that is none of these is an error.
func (a *app) counters(ctx context.Context, conn *pgx.Conn, st sequence.Store, sel exportSelect) ([]sequence.Info, error) {
	all, err := st.List(ctx)
	if err != nil {
		return nil, a.storeErr(err, "")
	}
	var out []sequence.Info
	seen := map[string]bool{}
	for _, info := range all {
		schema, _ := sequence.SplitName(info.Name)
		if schema == "" {
			schema = sequence.DefaultSchema
		}
		if !sel.filter.match(nativeSeq{Name: info.Name, Schema: schema}) {
			continue
		}
		seen[info.Name] = true
		mine := false
		if len(info.Spec.Members) > 0 {
			_, mine = info.Spec.Member(sel.db)
		} else if sel.natives[info.Name] != nil {
			mine = true
		} else {
			for _, d := range info.Spec.Defaults {
				var ok bool
				if err := conn.QueryRow(ctx, "SELECT pg_catalog.to_regclass($1) IS NOT NULL", fence.Quote(d.Table)).Scan(&ok); err != nil {
					return nil, fmt.Errorf("look up table %s: %w", d.Table, err)
				}
				if mine = ok; mine {
					break
				}
			}
		}
		switch {
		case mine:
			out = append(out, info)
		case sel.named:
			return nil, fmt.Errorf("counter %s: the database is not one of its members (%s): %w",
				info.Name, fmtMembersInline(info.Spec.Members), sequence.ErrNotFound)
		}
	}
	for n := range sel.filter.names {
		if !seen[n] {
			return nil, a.storeErr(&sequence.Error{Code: sequence.CodeUndefinedTable, Kind: sequence.ErrNotFound,
				Message: fmt.Sprintf("no counter %s in the store", n)}, n)
		}
	}
	return out, nil
}

// planExport decides what export does with one counter.
func (a *app) planExport(ctx context.Context, conn *pgx.Conn, it *exportItem, db string, margin, rng int64, nd nativeDefaults) {
	info, n := it.info, it.native
	spec := info.Spec
	if n != nil && n.Spec.Descending() != spec.Descending() {
		it.Action, it.Reason = "error", "the store counter and the native sequence count in opposite directions"
		return
	}
	others := len(spec.Members) > 1
	if others {
		it.Mode = "range"
	} else {
		it.Mode = "fence-store"
	}
	next, ok := nextValue(info)
	if ok {
		it.StoreNext = &next
	}
	if reason, done := exported(it, db); done {
		it.Action, it.Reason = "skip", reason
		return
	}
	if !ok {
		it.Action, it.Reason = "error", fmt.Sprintf("the counter has reached %s (%d): there is nothing past it to give the native sequence", limitName(spec), limitValue(spec))
		return
	}
	// The blocks are computed by the one place that does sequence
	// arithmetic, on a spec that does not wrap around.
	flat := spec
	flat.Cycle = false
	if !others {
		m := margin
		if m < 0 {
			m = 1_000_000
			if it.BurnPerDay != nil && *it.BurnPerDay > float64(m) {
				m = int64(min(math.Ceil(*it.BurnPerDay), maxMargin))
			}
		}
		it.Margin = m
		b, _, err := flat.Reserve(info.Name, info.Position, m+1)
		if err != nil || b.Count < m+1 {
			it.Action, it.Reason = "error", fmt.Sprintf("no room for a margin of %d values before %s (%d); pass a smaller --margin", m, limitName(spec), limitValue(spec))
			return
		}
		first := b.Last()
		bound := first - 1
		if spec.Descending() {
			bound = first + 1
		}
		if beyond(spec, spec.Start, first) {
			it.Action, it.Reason = "error", fmt.Sprintf("a fence just below %d would leave the store no range (its START is %d); pass a larger --margin", first, spec.Start)
			return
		}
		it.NativeFirst, it.StoreBound = &first, &bound
		undo := sequence.Clauses{Cycle: sequence.Bool(spec.Cycle)}
		if spec.Descending() {
			undo.MinValue = sequence.Int64(spec.Min)
		} else {
			undo.MaxValue = sequence.Int64(spec.Max)
		}
		it.undo = &undo
	} else {
		r := rng
		left := remaining(flat, info.Position)
		if r == 0 {
			r = 1_000_000
			if it.BurnPerDay != nil && *it.BurnPerDay*365 > float64(r) {
				r = int64(min(math.Ceil(*it.BurnPerDay*365), maxMargin))
			}
			r = min(r, left/2)
		}
		if r < 1 || r > left {
			it.Action, it.Reason = "error", fmt.Sprintf("no room for a range of %d values before %s (%d values left); pass a smaller --range", r, limitName(spec), left)
			return
		}
		it.Range = r
		b, _, err := flat.Reserve(info.Name, info.Position, r)
		if err != nil {
			it.Action, it.Reason = "error", err.Error()
			return
		}
		it.block = b
	}
	stmts, err := exportStatements(ctx, conn, it, nd)
	if err != nil {
		it.Action, it.Reason = "error", err.Error()
		return
	}
	it.Statements = stmts
	it.Action = "export"
}

// exported tells whether a counter is exported already, and how.
func exported(it *exportItem, db string) (string, bool) {
	n, spec := it.native, it.info.Spec
	if n == nil {
		return "", false
	}
	nnext, ok := nativeNext(*n)
	if !ok {
		return "", false
	}
	if it.Mode == "range" {
		// A range is given again once three quarters of it are used.
		m, _ := spec.Member(db)
		if m.Native == nil || limitValue(n.Spec) != m.Native.Last || n.Spec.Cycle || !beyond(n.Spec, nnext, m.Native.First) {
			return "", false
		}
		size := (float64(m.Native.Last)-float64(m.Native.First))/float64(n.Spec.Increment) + 1
		left := (float64(m.Native.Last)-float64(nnext))/float64(n.Spec.Increment) + 1
		if left*4 > size {
			return fmt.Sprintf("exported already: the native sequence hands out %d to %d, %d left", m.Native.First, m.Native.Last, int64(left)), true
		}
		return "", false
	}
	if end := limitValue(spec); !spec.Cycle && !n.Spec.Cycle && nnext != end && beyond(n.Spec, nnext, end) {
		return fmt.Sprintf("exported already: the store stops at %d, the native sequence hands out %d next", limitValue(spec), nnext), true
	}
	return "", false
}

// remaining is how many values a spec that does not cycle has left after
// pos.
func remaining(s sequence.Spec, pos sequence.Position) int64 {
	next, _, err := s.Reserve("", pos, 1)
	if err != nil {
		return 0
	}
	d := (float64(limitValue(s)) - float64(next.First)) / float64(s.Increment)
	if d >= math.MaxInt64/2 {
		return math.MaxInt64 / 2
	}
	return int64(d) + 1
}

// exportStatements are the statements that give the database its native
// sequence back for the item's plan: the sequence moved (or created), and
// the recorded column defaults it lacks.
func exportStatements(ctx context.Context, conn *pgx.Conn, it *exportItem, nd nativeDefaults) ([]string, error) {
	spec, n := it.info.Spec, it.native
	lo, hi, start := spec.Min, spec.Max, int64(0)
	if it.Mode == "range" {
		start = it.block.First
		if spec.Descending() {
			lo = it.block.Last()
		} else {
			hi = it.block.Last()
		}
		last := it.block.Last()
		it.NativeFirst, it.NativeLimit = &start, &last
	} else {
		start = *it.NativeFirst
	}
	opts := fmt.Sprintf("INCREMENT BY %d MINVALUE %d MAXVALUE %d START WITH %d CACHE %d NO CYCLE",
		spec.Increment, lo, hi, start, max(spec.Cache, 1))
	q := fence.Quote(it.Name)
	var stmts []string
	// have: the columns whose default draws from the sequence now.
	have := nd.cols[it.Name]
	created := n != nil
	if n != nil {
		as := ""
		if n.Spec.Type != spec.Type {
			as = "AS " + spec.Type.String() + " "
		}
		stmts = append(stmts, fmt.Sprintf("ALTER SEQUENCE %s %s%s RESTART WITH %d", n.ident(), as, opts, start))
	}
	for _, d := range it.view.Defaults {
		var cur *sequence.ColumnDefault
		for i := range have {
			if have[i].Is(d.Table, d.Column) {
				cur = &have[i]
			}
		}
		col := fence.Quote(d.Table) + " ALTER COLUMN " + fence.Ident(d.Column)
		switch {
		case cur != nil && cur.Kind == d.Kind:
			continue
		case cur != nil && cur.Kind.IsIdentity() && d.Kind.IsIdentity():
			stmts = append(stmts, "ALTER TABLE "+col+" SET GENERATED "+generated(d.Kind))
			continue
		case cur != nil:
			return nil, fmt.Errorf("column %s draws from the sequence as %s, the store recorded %s: change one by hand", columnRef(d), cur.Kind, d.Kind)
		}
		var identity, expr string
		err := conn.QueryRow(ctx, `SELECT a.attidentity::text, coalesce(pg_catalog.pg_get_expr(ad.adbin, ad.adrelid), '')
			FROM pg_catalog.pg_attribute a LEFT JOIN pg_catalog.pg_attrdef ad ON ad.adrelid = a.attrelid AND ad.adnum = a.attnum
			WHERE a.attrelid = pg_catalog.to_regclass($1) AND a.attname = $2 AND a.attnum > 0 AND NOT a.attisdropped`,
			fence.Quote(d.Table), d.Column).Scan(&identity, &expr)
		switch {
		case errors.Is(err, pgx.ErrNoRows):
			continue // no such table or column in this database: nothing to give back
		case err != nil:
			return nil, fmt.Errorf("read column %s: %w", columnRef(d), err)
		case identity != "":
			return nil, fmt.Errorf("column %s is an identity of another sequence: make it draw from %s by hand", columnRef(d), it.Name)
		case expr != "":
			return nil, fmt.Errorf("column %s has DEFAULT %s: make it draw from %s by hand", columnRef(d), expr, it.Name)
		case d.Kind.IsIdentity() && !created:
			stmts = append(stmts, fmt.Sprintf("ALTER TABLE %s ADD GENERATED %s AS IDENTITY (SEQUENCE NAME %s %s)", col, generated(d.Kind), q, opts))
			created = true
		case d.Kind.IsIdentity():
			return nil, fmt.Errorf("column %s is recorded as %s, and sequence %s exists apart from it: an identity has a sequence of its own; make it one by hand", columnRef(d), d.Kind, it.Name)
		default:
			if !created {
				stmts = append(stmts, fmt.Sprintf("CREATE SEQUENCE %s AS %s %s", q, spec.Type, opts))
				created = true
			}
			stmts = append(stmts, fmt.Sprintf("ALTER TABLE %s SET DEFAULT pg_catalog.nextval(%s::regclass)", col, fence.Literal(q)))
		}
	}
	if !created {
		stmts = append(stmts, fmt.Sprintf("CREATE SEQUENCE %s AS %s %s", q, spec.Type, opts))
	}
	if n == nil && it.view.OwnedBy != "" && !anyIdentity(it.view.Defaults) {
		owner, err := sequence.ParseColumnDefault(it.view.OwnedBy)
		if err == nil {
			stmts = append(stmts, fmt.Sprintf("ALTER SEQUENCE %s OWNED BY %s.%s", q, fence.Quote(owner.Table), fence.Ident(owner.Column)))
		}
	}
	return stmts, nil
}

func generated(k sequence.Identity) string {
	if k == sequence.IdentityAlways {
		return "ALWAYS"
	}
	return "BY DEFAULT"
}

func anyIdentity(ds []sequence.ColumnDefault) bool {
	for _, d := range ds {
		if d.Kind.IsIdentity() {
			return true
		}
	}
	return false
}

// runExport carries out a plan: the shared counters' blocks reserved and
// recorded, the database's statements in one transaction, the store fences
// set while it is open, everything on the store undone when it does not
// commit (a reserved block stays a gap).
func (a *app) runExport(ctx context.Context, conn *pgx.Conn, st sequence.Store, db string, plan []exportItem, nd nativeDefaults) (err error) {
	var undo []func(context.Context)
	defer func() {
		if err != nil {
			uctx := context.WithoutCancel(ctx)
			for i := len(undo) - 1; i >= 0; i-- {
				undo[i](uctx)
			}
		}
	}()
	for i := range plan {
		it := &plan[i]
		if it.Action != "export" || it.Mode != "range" {
			continue
		}
		b, err := st.Reserve(ctx, it.Name, it.Range)
		if err != nil {
			return fmt.Errorf("reserve the range of %s: %w; nothing changed in the database", it.Name, a.storeErr(err, it.Name))
		}
		if b.First != it.block.First || b.Count != it.block.Count {
			it.block = b
			it.Range = b.Count
			if it.Statements, err = exportStatements(ctx, conn, it, nd); err != nil {
				return err
			}
		}
		old, _ := it.info.Spec.Member(db)
		m := old
		m.Native = &sequence.NativeRange{First: b.First, Last: b.Last()}
		if _, err := st.Attach(ctx, it.Name, m, it.info.Spec); err != nil {
			return fmt.Errorf("record the range of %s: %w; nothing changed in the database", it.Name, a.storeErr(err, it.Name))
		}
		name, spec := it.Name, it.info.Spec
		undo = append(undo, func(ctx context.Context) {
			if _, err := st.Attach(ctx, name, old, spec); err != nil {
				fmt.Fprintf(a.stderr, "seqctl: undo the range recorded for %s: %v ('seqctl members' shows it)\n", name, err)
			}
		})
	}
	tx, err := conn.Begin(ctx)
	if err != nil {
		return fmt.Errorf("export: %w", err)
	}
	defer func() {
		if err != nil {
			_ = tx.Rollback(context.WithoutCancel(ctx))
		}
	}()
	for _, it := range plan {
		if it.Action != "export" {
			continue
		}
		for _, s := range it.Statements {
			if _, err := tx.Exec(ctx, s); err != nil {
				return fmt.Errorf("%s: %w; nothing changed", s, err)
			}
		}
	}
	for i := range plan {
		it := &plan[i]
		if it.Action != "export" || it.Mode != "fence-store" {
			continue
		}
		c := sequence.Clauses{Cycle: sequence.Bool(false)}
		if it.info.Spec.Descending() {
			c.MinValue = it.StoreBound
		} else {
			c.MaxValue = it.StoreBound
		}
		if _, err := st.Alter(ctx, it.Name, c); err != nil {
			return fmt.Errorf("fence %s in the store at %d: %w (the store moved past the plan: run export again, with a larger --margin); nothing changed",
				it.Name, *it.StoreBound, a.storeErr(err, it.Name))
		}
		name, back := it.Name, *it.undo
		undo = append(undo, func(ctx context.Context) {
			if _, err := st.Alter(ctx, name, back); err != nil {
				fmt.Fprintf(a.stderr, "seqctl: undo the store fence of %s: %v (seqctl alter %s restores its bound)\n", name, err, name)
			}
		})
	}
	if err := tx.Commit(ctx); err != nil {
		return fmt.Errorf("export: commit: %w; nothing changed", err)
	}
	for i := range plan {
		if plan[i].Action == "export" {
			plan[i].Action = "exported"
		}
	}
	return nil
}

func (a *app) printExport(plan []exportItem) error {
	if a.output == "json" {
		return writeJSON(a.stdout, plan)
	}
	tw := newTable(a.stdout)
	fmt.Fprintln(tw, "NAME\tMODE\tSTORE NEXT\tNATIVE FROM\tSTORE STOPS AT\tACTION")
	opt := func(p *int64) string {
		if p == nil {
			return "-"
		}
		return fmt.Sprint(*p)
	}
	for _, it := range plan {
		action := it.Action
		if it.Reason != "" {
			action += ": " + it.Reason
		}
		from := opt(it.NativeFirst)
		if it.NativeLimit != nil {
			from += " to " + opt(it.NativeLimit)
		}
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\t%s\n", it.Name, it.Mode, opt(it.StoreNext), from, opt(it.StoreBound), action)
	}
	if err := tw.Flush(); err != nil {
		return err
	}
	for _, it := range plan {
		if len(it.Statements) == 0 || it.Action != "export" && it.Action != "exported" {
			continue
		}
		fmt.Fprintf(a.stdout, "%s:\n  %s\n", it.Name, strings.Join(it.Statements, ";\n  "))
	}
	return nil
}
