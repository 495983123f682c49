package main

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/seqshim/seqshim/internal/fence"
	"github.com/seqshim/seqshim/sequence"
)

const verifyDoc = `
Checks, on the live data of a PostgreSQL database, that the store and the
database's own sequences never stepped into each other's values. For each
store counter of the database (as export picks them; NAMEs or --schema
restrict it) and every column whose default the store serves for it or the
database's native sequence of that name feeds, verify reports the table's
largest id and the store's position, and flags:

  bypass    a row whose id lies in the store's range beyond what the store
            ever reserved: a writer that bypassed seqshim took it, and the
            store will hand it out again;
  overlap   a native sequence whose next values (or whose last value) lie
            inside the store's range: it can hand out values the store hands
            out, or did;
  native    a column the store serves whose default draws from another native
            sequence that can hand out values inside the store's range.

The store's range runs from the counter's START (import sets it to the first
value it hands out; the lower of START and its next value) to its MAXVALUE,
which seqctl export lowers to fence it (MINVALUE counting down). A range the
store reserved for this database's native sequence (export of a shared
counter) belongs to the native side. Native sequences standing at their end
(fenced twins, or fenced by 'seqctl fence') hand out nothing.

Reads are bounded: every query runs in one READ ONLY transaction with
--statement-timeout, and reads a column only through an index that leads
with it (largest id, first id past the store's position: index-only scans).
A column without one is reported and not read, unless --scan.

Exit codes: 0 nothing flagged, 7 something flagged (see the findings), and
the usual ones (1 a read failed, 3 no counter belongs to the database).`

// verifyCounter is what verify reports of one counter.
type verifyCounter struct {
	Name      string `json:"name"`
	StoreNext *int64 `json:"store_next_value"` // null: the counter is exhausted
	// StoreRange is the store's range, in counting order: the first value
	// and the limit.
	StoreRange [2]int64 `json:"store_range"`
	// NativeRange is the range the store reserved for this database's
	// native sequence (export of a shared counter), if any.
	NativeRange *sequence.NativeRange `json:"native_range,omitempty"`
	Native      *verifyNative         `json:"native_sequence"` // null: the database has none
	Columns     []verifyColumn        `json:"columns"`
	Findings    []string              `json:"findings"`
	Status      string                `json:"status"` // ok, flagged
}

// verifyNative is a native sequence as verify reads it.
type verifyNative struct {
	Name      string `json:"name"`
	LastValue int64  `json:"last_value"`
	IsCalled  bool   `json:"is_called"`
	Next      *int64 `json:"next_value"` // null: at its end
	Limit     int64  `json:"limit"`      // MAXVALUE, MINVALUE counting down
}

// verifyColumn is one column of a counter.
type verifyColumn struct {
	Column string `json:"column"`
	// Store is the kind the store records for the column in this database
	// ("" when it does not serve it).
	Store string `json:"store_kind,omitempty"`
	// Native is the native sequence the database's default draws from (""
	// for none).
	Native string `json:"native_default_sequence,omitempty"`
	MaxID  *int64 `json:"max_id"`
	// Read is how the column was read: index, scan, or why it was not.
	Read     string   `json:"read"`
	Findings []string `json:"findings"`
}

// verifyFailed is verify's error when it flagged something: exit code 7.
type verifyFailed struct{ findings, counters int }

func (e *verifyFailed) Error() string {
	return fmt.Sprintf("verify: %d finding(s) in %d counter(s): ids may collide; see above", e.findings, e.counters)
}

// exitVerify is the exit code of a verify that flagged something.
const exitVerify = 7

func (a *app) cmdVerify(ctx context.Context, args []string) error {
	fs := a.flagSet("verify", "--from postgres://... [NAME...] [flags]", verifyDoc)
	from := fs.String("from", "", "`URL` of the live PostgreSQL database to check")
	schemas := fs.String("schema", "", "check only the counters of these `schemas` (comma-separated)")
	scan := fs.Bool("scan", false, "read columns without an index too (a full scan each)")
	stmtTimeout := fs.Duration("statement-timeout", 30*time.Second, "statement_timeout of each read in the database")
	args, err := a.parse(fs, args)
	if err != nil {
		return err
	}
	if *stmtTimeout < time.Millisecond {
		return usagef("--statement-timeout %v: want 1ms or more", *stmtTimeout)
	}
	ctx, cancel := a.bounded(ctx)
	defer cancel()
	conn, _, sel, infos, done, err := a.backTo(ctx, *from, args, *schemas)
	if err != nil {
		return err
	}
	defer done()
	nd, err := readDefaults(ctx, conn)
	if err != nil {
		return err
	}
	tx, err := conn.BeginTx(ctx, pgx.TxOptions{AccessMode: pgx.ReadOnly})
	if err != nil {
		return fmt.Errorf("verify: %w", err)
	}
	defer func() { _ = tx.Rollback(context.WithoutCancel(ctx)) }()
	if _, err := tx.Exec(ctx, fmt.Sprintf("SET LOCAL statement_timeout = %d", stmtTimeout.Milliseconds())); err != nil {
		return fmt.Errorf("verify: %w", err)
	}
	out := make([]verifyCounter, len(infos))
	findings, flagged := 0, 0
	for i, info := range infos {
		if out[i], err = verifyOne(ctx, tx, info, sel, nd, *scan); err != nil {
			return err
		}
		if n := countFindings(out[i]); n > 0 {
			findings += n
			flagged++
		}
	}
	if err := a.printVerify(out); err != nil {
		return err
	}
	if findings > 0 {
		return &verifyFailed{findings: findings, counters: flagged}
	}
	return nil
}

func countFindings(c verifyCounter) int {
	n := len(c.Findings)
	for _, col := range c.Columns {
		n += len(col.Findings)
	}
	return n
}

// span is a closed range of values, lo <= hi.
type span struct{ lo, hi int64 }

func spanOf(a, b int64) span { return span{min(a, b), max(a, b)} }

func (s span) meet(o span) (span, bool) {
	r := span{max(s.lo, o.lo), min(s.hi, o.hi)}
	return r, r.lo <= r.hi
}

// outside reports whether s has values outside o (o may be nil).
func (s span) outside(o *span) bool { return o == nil || s.lo < o.lo || s.hi > o.hi }

// verifyOne checks one counter in the database.
func verifyOne(ctx context.Context, tx pgx.Tx, info sequence.Info, sel exportSelect, nd nativeDefaults, scan bool) (verifyCounter, error) {
	spec := info.Spec
	view, _ := spec.View(sel.db)
	start := rangeStart(info)
	if spec.Cycle {
		start = spec.Min
		if spec.Descending() {
			start = spec.Max
		}
	}
	vc := verifyCounter{Name: info.Name, StoreRange: [2]int64{start, limitValue(spec)}, Findings: []string{}, Columns: []verifyColumn{}}
	store := spanOf(start, limitValue(spec))
	var carved *span
	if m, ok := spec.Member(sel.db); ok && m.Native != nil {
		vc.NativeRange = m.Native
		c := spanOf(m.Native.First, m.Native.Last)
		carved = &c
	}
	// unreserved: the store's values no one holds yet.
	var unreserved *span
	if next, ok := nextValue(info); ok {
		vc.StoreNext = &next
		u := spanOf(next, limitValue(spec))
		unreserved = &u
	}

	// hazard says how native sequence n can hand out the store's values,
	// or "" if it cannot.
	hazard := func(n *nativeSeq) string {
		at := n.Pos.Called && n.Pos.Last == limitValue(n.Spec) && !n.Spec.Cycle
		if at {
			return "" // at its end: hands out nothing
		}
		if n.Spec.Descending() != spec.Descending() {
			return "counts in the other direction than the store's counter"
		}
		rest := spanOf(n.Pos.Last, limitValue(n.Spec))
		if next, ok := nativeNext(*n); ok {
			rest = spanOf(next, limitValue(n.Spec))
		}
		if n.Spec.Cycle {
			rest = span{n.Spec.Min, n.Spec.Max}
		}
		if r, ok := rest.meet(store); ok && r.outside(carved) {
			return fmt.Sprintf("can hand out %d to %d, inside the store's range %d to %d", pick(spec, r), pickEnd(spec, r), start, limitValue(spec))
		}
		if n.Pos.Called {
			if _, ok := spanOf(n.Pos.Last, n.Pos.Last).meet(store); ok && spanOf(n.Pos.Last, n.Pos.Last).outside(carved) {
				return fmt.Sprintf("has handed out %d, inside the store's range %d to %d: values may have collided", n.Pos.Last, start, limitValue(spec))
			}
		}
		return ""
	}
	if n := sel.natives[info.Name]; n != nil {
		vn := &verifyNative{Name: n.Name, LastValue: n.Pos.Last, IsCalled: n.Pos.Called, Limit: limitValue(n.Spec)}
		if next, ok := nativeNext(*n); ok {
			vn.Next = &next
		}
		vc.Native = vn
		if h := hazard(n); h != "" {
			vc.Findings = append(vc.Findings, "overlap: native sequence "+n.Name+" "+h)
		}
	}

	// The columns: those the store serves in this database, and those the
	// native sequence of the name feeds.
	type colRef struct {
		d     sequence.ColumnDefault
		store bool
	}
	var cols []colRef
	for _, d := range view.Defaults {
		cols = append(cols, colRef{d, true})
	}
	for _, d := range nd.cols[info.Name] {
		if !hasColumn(view.Defaults, d.Table, d.Column) {
			cols = append(cols, colRef{d, false})
		}
	}
	for _, c := range cols {
		col := verifyColumn{Column: columnRef(c.d), Findings: []string{}}
		if c.store {
			col.Store = c.d.Kind.Name()
		}
		if seq := feeding(nd, c.d); seq != "" {
			col.Native = seq
			if n := sel.natives[seq]; c.store && seq != info.Name && n != nil {
				if h := hazard(n); h != "" {
					col.Findings = append(col.Findings, "native: the column's default draws from "+seq+", which "+h)
				}
			}
		}
		if err := readColumn(ctx, tx, spec, c.d, unreserved, scan, &col); err != nil {
			return vc, err
		}
		vc.Columns = append(vc.Columns, col)
	}
	vc.Status = "ok"
	if countFindings(vc) > 0 {
		vc.Status = "flagged"
	}
	return vc, nil
}

// pick and pickEnd write a span in counting order.
func pick(s sequence.Spec, r span) int64 {
	if s.Descending() {
		return r.hi
	}
	return r.lo
}

func pickEnd(s sequence.Spec, r span) int64 {
	if s.Descending() {
		return r.lo
	}
	return r.hi
}

// hasColumn reports whether defaults has column column of table table.
func hasColumn(defaults []sequence.ColumnDefault, table, column string) bool {
	return slices.ContainsFunc(defaults, func(d sequence.ColumnDefault) bool { return d.Is(table, column) })
}

// feeding is the native sequence column d's default draws from now, if any.
func feeding(nd nativeDefaults, d sequence.ColumnDefault) string {
	for seq, cols := range nd.cols {
		if hasColumn(cols, d.Table, d.Column) {
			return seq
		}
	}
	return ""
}

// columnIndexQuery tells whether a column exists, and whether a valid,
// non-partial btree index leads with it.
const columnIndexQuery = `SELECT EXISTS (SELECT FROM pg_catalog.pg_index i
		JOIN pg_catalog.pg_class ic ON ic.oid = i.indexrelid
		JOIN pg_catalog.pg_am am ON am.oid = ic.relam AND am.amname = 'btree'
		WHERE i.indrelid = a.attrelid AND i.indkey[0] = a.attnum AND i.indisvalid AND i.indpred IS NULL)
	FROM pg_catalog.pg_attribute a
	WHERE a.attrelid = pg_catalog.to_regclass($1) AND a.attname = $2 AND a.attnum > 0 AND NOT a.attisdropped`

// readColumn reads a column's largest id and the first id in the store's
// unreserved range, through an index unless scan.
func readColumn(ctx context.Context, tx pgx.Tx, spec sequence.Spec, d sequence.ColumnDefault, unreserved *span, scan bool, col *verifyColumn) error {
	t := fence.Quote(d.Table)
	var indexed bool
	err := tx.QueryRow(ctx, columnIndexQuery, t, d.Column).Scan(&indexed)
	switch {
	case errors.Is(err, pgx.ErrNoRows):
		col.Read = "not read: no such column in this database"
		return nil
	case err != nil:
		return fmt.Errorf("verify: column %s: %w", col.Column, err)
	case !indexed && !scan:
		col.Read = "not read: no index leads with the column (--scan reads it)"
		return nil
	case indexed:
		col.Read = "index"
	default:
		col.Read = "scan"
	}
	c := fence.Ident(d.Column)
	var maxID *int64
	if err := tx.QueryRow(ctx, "SELECT max("+c+")::int8 FROM "+t).Scan(&maxID); err != nil {
		return fmt.Errorf("verify: the largest %s: %w", col.Column, err)
	}
	col.MaxID = maxID
	if unreserved == nil || spec.Cycle {
		return nil
	}
	agg := "min"
	if spec.Descending() {
		agg = "max"
	}
	var found *int64
	q := "SELECT " + agg + "(" + c + ")::int8 FROM " + t + " WHERE " + c + " BETWEEN $1::int8 AND $2::int8"
	if err := tx.QueryRow(ctx, q, unreserved.lo, unreserved.hi).Scan(&found); err != nil {
		return fmt.Errorf("verify: %s past the store's position: %w", col.Column, err)
	}
	if found != nil {
		col.Findings = append(col.Findings, fmt.Sprintf("bypass: id %d lies in the store's range past what the store has reserved (its next value is %d): a writer that bypassed seqshim wrote it, and the store will hand it out again",
			*found, pick(spec, *unreserved)))
	}
	return nil
}

func (a *app) printVerify(out []verifyCounter) error {
	if a.output == "json" {
		return writeJSON(a.stdout, out)
	}
	opt := func(p *int64) string {
		if p == nil {
			return "-"
		}
		return fmt.Sprint(*p)
	}
	tw := newTable(a.stdout)
	fmt.Fprintln(tw, "COUNTER\tSTORE NEXT\tSTORE RANGE\tNATIVE NEXT\tCOLUMN\tMAX ID\tREAD\tSTATUS")
	for _, c := range out {
		native := "-"
		if c.Native != nil {
			native = opt(c.Native.Next)
			if c.Native.Next == nil {
				native = "at its end"
			}
		}
		rng := fmt.Sprintf("%d to %d", c.StoreRange[0], c.StoreRange[1])
		if len(c.Columns) == 0 {
			fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t-\t-\t-\t%s\n", c.Name, opt(c.StoreNext), rng, native, c.Status)
		}
		for _, col := range c.Columns {
			status := "ok"
			if len(col.Findings) > 0 {
				status = "flagged"
			}
			fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\n", c.Name, opt(c.StoreNext), rng, native, col.Column, opt(col.MaxID), col.Read, status)
		}
	}
	if err := tw.Flush(); err != nil {
		return err
	}
	for _, c := range out {
		var fs []string
		fs = append(fs, c.Findings...)
		for _, col := range c.Columns {
			for _, f := range col.Findings {
				fs = append(fs, col.Column+": "+f)
			}
		}
		for _, f := range fs {
			fmt.Fprintf(a.stdout, "%s: %s\n", c.Name, f)
		}
	}
	return nil
}
