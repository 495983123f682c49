package main

import (
	"context"
	"errors"
	"fmt"
	"math"
	"slices"
	"time"

	"github.com/seqshim/seqshim/internal/storeurl"
	"github.com/seqshim/seqshim/sequence"
)

const importDoc = `
Reads every sequence of a live PostgreSQL database (pg_sequences for the
spec, the sequence itself for its position) and creates a counter for each
in the store, with the same spec, whose first value lies --margin values past
the native sequence's next value. NAMEs or --schema restrict the import to
some sequences; counters are named as the driver names them (public.s is s).

Why a margin: during the rollout, writers not yet switched to seqshim keep
calling the native nextval. The margin is the number of values they may still
take before they would reach values the store hands out. The default is
max(1,000,000, one day of the native sequence's consumption), the consumption
measured by reading the sequences twice, --sample apart (--sample 0: 1,000,000).
Size it for the longest rollout you expect, then fence the native sequences
('seqctl fence') so that a forgotten writer fails instead of colliding.

The counter's START is set to its first value, so RESTART without a value
never goes back into the native range. A counter that exists already is
skipped if its range lies past the native sequence, and is a conflict
otherwise (exit code 4; nothing is created then). A sequence without room
for the margin before its limit is an error (nothing is created then).

Each counter also records the table columns whose default draws from its
native sequence, as the catalog says (not pg_get_serial_sequence, which tells
ownership): a DEFAULT nextval('s') of a serial, bigserial or other column
(kind default) and an identity column (always, by-default), of ordinary and
partitioned tables. A default that depends on the sequence but is not a plain
nextval of it ('INV-' || nextval('s'), currval('s')) is not recorded, nor is
one naming its sequence as text (nextval('s'::text)), resolved when it runs;
import lists both on stderr ("note: ..."): seqshim does not serve them. A
column that another counter of the store has already is an error (nothing is
created then). A counter that exists already keeps its column defaults; the
plan says when they differ from the database's ('seqctl alter --default').

--dry-run prints the plan without creating anything.`

// importItem is one line of the import plan.
type importItem struct {
	Name       string   `json:"name"`
	NativeLast int64    `json:"native_last_value"`
	NativeCall bool     `json:"native_is_called"`
	NativeNext *int64   `json:"native_next_value"` // null: exhausted
	BurnPerDay *float64 `json:"native_burn_per_day"`
	Margin     int64    `json:"margin"`
	StoreFirst *int64   `json:"store_first_value"`
	// ColumnDefaults are the columns whose default draws from the native
	// sequence, recorded with the counter it creates ([] for none).
	ColumnDefaults []columnDefaultJSON `json:"column_defaults"`
	// Unrecorded are the column defaults that depend on the native sequence
	// but that import does not record (not a plain nextval).
	Unrecorded []unrecordedDefault `json:"unrecorded_defaults,omitempty"`
	Action     string              `json:"action"` // create, created, skip, conflict, error
	Reason     string              `json:"reason,omitempty"`

	spec sequence.Spec // with the column defaults to record
}

func (a *app) cmdImport(ctx context.Context, args []string) error {
	fs := a.flagSet("import", "--from postgres://... [NAME...] [flags]", importDoc)
	from := fs.String("from", "", "`URL` of the live PostgreSQL database to read the sequences of")
	margin := fs.Int64("margin", 0, "values the native sequences may still take before the store's range (0: the default described above)")
	sample := fs.Duration("sample", 10*time.Second, "how long to measure the native consumption for the default margin")
	schemas := fs.String("schema", "", "import only the sequences of these `schemas` (comma-separated)")
	dryRun := fs.Bool("dry-run", false, "print the plan, create nothing")
	args, err := a.parse(fs, args)
	if err != nil {
		return err
	}
	ctx, cancel := a.bounded(ctx)
	defer cancel()
	if *margin < 0 || *margin > maxMargin {
		return usagef("--margin %d: want 0 (default) to %d", *margin, int64(maxMargin))
	}
	if *sample < 0 {
		return usagef("--sample %v: want a duration >= 0", *sample)
	}
	conn, seqs, err := a.openNative(ctx, *from, args, *schemas)
	if err != nil {
		return err
	}
	defer conn.Close(context.WithoutCancel(ctx))
	if len(seqs) == 0 {
		return fmt.Errorf("no sequence to import in %s: %w", storeurl.Redact(*from), sequence.ErrNotFound)
	}
	defaults, err := readDefaults(ctx, conn)
	if err != nil {
		return err
	}
	perDay := make([]*float64, len(seqs))
	if *margin == 0 && *sample > 0 {
		start := a.now()
		if err := a.sleep(ctx, *sample); err != nil {
			return err
		}
		elapsed := a.now().Sub(start).Seconds()
		for i, n := range seqs {
			p, err := readPosition(ctx, conn, n)
			if err != nil {
				return err
			}
			d := consumed(n.Spec, n.Pos, p) / elapsed * 86400
			perDay[i] = &d
			seqs[i].Pos = p
		}
	}

	st, err := a.store(ctx)
	if err != nil {
		return err
	}
	defer closeStore(st)
	plan := make([]importItem, len(seqs))
	var (
		conflicts, failures int
		infos               []sequence.Info // the store's counters, once listed
		listed              bool
	)
	for i, n := range seqs {
		m := *margin
		if m == 0 {
			m = 1_000_000
			if perDay[i] != nil && *perDay[i] > float64(m) {
				m = int64(min(math.Ceil(*perDay[i]), maxMargin))
			}
		}
		it := importItem{Name: n.Name, NativeLast: n.Pos.Last, NativeCall: n.Pos.Called,
			BurnPerDay: perDay[i], Margin: m, spec: n.Spec,
			ColumnDefaults: defaultsJSON(defaults.cols[n.Name]), Unrecorded: defaults.unrecorded[n.Name]}
		it.spec.Defaults = defaults.cols[n.Name]
		a.planImport(ctx, st, n, &it)
		if it.Action == "create" && len(it.spec.Defaults) > 0 {
			if !listed {
				if infos, err = st.List(ctx); err != nil {
					return a.storeErr(err, "")
				}
				listed = true
			}
			if err := claimedElsewhere(infos, it.Name, it.spec.Defaults); err != nil {
				it.Action, it.Reason = "error", err.Error()
			}
		}
		switch it.Action {
		case "conflict":
			conflicts++
		case "error":
			failures++
		}
		plan[i] = it
	}
	if !*dryRun && conflicts == 0 && failures == 0 {
		for i := range plan {
			it := &plan[i]
			if it.Action != "create" {
				continue
			}
			spec := it.spec
			spec.Start = *it.StoreFirst
			if err := st.Create(ctx, it.Name, spec, sequence.Position{Last: spec.Start}); err != nil {
				a.printImport(plan)
				return fmt.Errorf("create %s: %w (counters before it in the plan were created; run import again to continue)", it.Name, err)
			}
			it.Action = "created"
		}
	}
	if err := a.printImport(plan); err != nil {
		return err
	}
	a.noteUnrecorded(plan, defaults.lateBound, *schemas)
	switch {
	case conflicts > 0:
		return fmt.Errorf("%d counter(s) exist in the store with a range overlapping the native sequence; nothing created: %w", conflicts, sequence.ErrExists)
	case failures > 0:
		return fmt.Errorf("%d sequence(s) cannot be imported; nothing created", failures)
	case *dryRun && a.output == "table":
		_, err = fmt.Fprintln(a.stdout, "dry run: nothing created")
	}
	return err
}

// consumed is how many values a native sequence handed out between two
// readings of its position (0 if it was reset or wrapped meanwhile).
func consumed(s sequence.Spec, before, after sequence.Position) float64 {
	d := (float64(after.Last) - float64(before.Last)) / float64(s.Increment)
	if after.Called && !before.Called {
		d++
	}
	return max(d, 0)
}

// planImport decides what import does with one native sequence.
func (a *app) planImport(ctx context.Context, st sequence.Store, n nativeSeq, it *importItem) {
	next, ok := nativeNext(n)
	if !ok {
		it.Action, it.Reason = "error", "the native sequence has reached its limit (a fenced twin of a store sequence stands there: it is in a store already)"
		return
	}
	it.NativeNext = &next
	// The first store value is margin values past the native next value,
	// computed by the one place that does sequence arithmetic.
	b, _, err := n.Spec.Reserve(n.Name, n.Pos, it.Margin+1)
	if err != nil || b.Count < it.Margin+1 {
		it.Action = "error"
		it.Reason = fmt.Sprintf("no room for a margin of %d values before %s (%d); pass a smaller --margin", it.Margin, limitName(n.Spec), limitValue(n.Spec))
		return
	}
	first := b.Last()
	it.StoreFirst = &first
	info, err := st.Describe(ctx, n.Name)
	switch {
	case errors.Is(err, sequence.ErrNotFound):
		it.Action = "create"
	case err != nil:
		it.Action, it.Reason = "error", err.Error()
	default:
		r := rangeStart(info)
		it.StoreFirst = &r
		if info.Spec.Descending() == n.Spec.Descending() && !beyond(n.Spec, next, r) {
			it.Action, it.Reason = "skip", fmt.Sprintf("exists; its range starts at %d, past the native next value", r)
			if !slices.Equal(info.Spec.Defaults, it.spec.Defaults) {
				it.Reason += fmt.Sprintf("; its column defaults (%s) differ from the database's (%s), left as they are",
					fmtDefaultsInline(info.Spec.Defaults), fmtDefaultsInline(it.spec.Defaults))
			}
		} else {
			it.Action, it.Reason = "conflict", fmt.Sprintf("exists; its range (from %d) overlaps the native sequence: check and fix by hand (seqctl show/setval/drop)", r)
		}
	}
}

func limitValue(s sequence.Spec) int64 {
	if s.Descending() {
		return s.Min
	}
	return s.Max
}

func (a *app) printImport(plan []importItem) error {
	if a.output == "json" {
		return writeJSON(a.stdout, plan)
	}
	tw := newTable(a.stdout)
	fmt.Fprintln(tw, "NAME\tNATIVE NEXT\tBURN/DAY\tMARGIN\tSTORE FIRST\tCOLUMN DEFAULTS\tACTION")
	for _, it := range plan {
		next, burn, first := "-", "-", "-"
		if it.NativeNext != nil {
			next = fmt.Sprint(*it.NativeNext)
		}
		if it.BurnPerDay != nil {
			burn = fmtQty(*it.BurnPerDay)
		}
		if it.StoreFirst != nil {
			first = fmt.Sprint(*it.StoreFirst)
		}
		action := it.Action
		if it.Reason != "" {
			action += ": " + it.Reason
		}
		fmt.Fprintf(tw, "%s\t%s\t%s\t%d\t%s\t%s\t%s\n", it.Name, next, burn, it.Margin, first,
			fmtDefaultsShort(it.spec.Defaults), action)
	}
	return tw.Flush()
}

// noteUnrecorded tells, on stderr, of the column defaults import found but
// does not record: those of the planned sequences that are not a plain
// nextval, and those naming their sequence as text, in the tables of the
// schemas imported.
func (a *app) noteUnrecorded(plan []importItem, lateBound []lateBoundDefault, schemas string) {
	for _, it := range plan {
		for _, u := range it.Unrecorded {
			fmt.Fprintf(a.stderr, "note: column %s has DEFAULT %s: it uses %s but is not a plain nextval of it; not recorded, seqshim does not serve it\n",
				u.Column, u.Expression, it.Name)
		}
	}
	filter, _ := newSeqFilter(nil, schemas)
	for _, l := range lateBound {
		if filter.schemas == nil || filter.schemas[l.schema] {
			fmt.Fprintf(a.stderr, "note: column %s has DEFAULT %s, which names its sequence as text, looked up when it runs; not recorded (record it with 'seqctl alter COUNTER --default %s')\n",
				l.Column, l.Expression, l.Column)
		}
	}
}
