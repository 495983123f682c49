// COPY FROM through a front end that gives the rows itself (pgx's
// CopyFrom): PostgreSQL fills a column the COPY leaves out with its
// default, once per row; a default seqshim serves would draw from the
// database's fenced twin and fail (2200H). The front end asks the session
// which such columns the COPY leaves out ([Session.CopyFill]) and adds
// them to every row, with values drawn as an INSERT's are.

package engine

import (
	"context"
	"slices"

	"github.com/seqshim/seqshim/rewrite"
	"github.com/seqshim/seqshim/seqcache"
	"github.com/seqshim/seqshim/sequence"
)

// CopyFill is what a COPY into one table adds to each of its rows: the
// columns it leaves out whose default the store serves, and their values
// drawn per row ([CopyFill.Next]), as an INSERT that leaves them to their
// default draws them (the same privileges, the transaction's own sequence
// DDL, currval and lastval after).
type CopyFill[A Args] struct {
	s       *Session[A]
	columns []string
	calls   []rewrite.Call
	values  []int64
	drawn   []drawn // nil before the first row
}

// Columns are the columns the front end adds to the COPY's column list, as
// the table names them (unquoted), in the table's order of its defaults.
func (f *CopyFill[A]) Columns() []string { return f.columns }

// CopyFill returns what a COPY of columns into table (its identifiers as
// written, one without a schema resolved through the search_path, as
// PostgreSQL resolves it) must add to each row, or nil when nothing: no
// column left out has a default of the store's. A temporary table's
// defaults are the database's, and a view is refused by the database
// (COPY into a view fails): nil for both.
//
// An error is as the application sees it (the transaction aborted, as a
// failed COPY aborts it).
func (s *Session[A]) CopyFill(ctx context.Context, table []string, columns []string) (fill *CopyFill[A], err error) {
	defer s.guard(ctx, "COPY", &err)
	if err := s.txFailed(); err != nil {
		return nil, err
	}
	if s.eng.shadow != nil || len(table) == 0 || len(table) > 2 {
		return nil, nil // shadow mode: the database answers; a name with a database part: the database's error
	}
	name, unqualified := sequence.FormatName("public", table[len(table)-1]), len(table) == 1
	if !unqualified {
		name = sequence.FormatName(table[0], table[1])
	}
	ts := s.defs.loadedSet(ctx)
	if ts != nil && len(ts.tables) == 0 {
		ts = nil
	}
	if s.tx != nil {
		ts = ts.overlay(s.heldDefaults())
	}
	if ts == nil {
		return nil, nil
	}
	if _, temp, err := s.tempDefaults(ctx, ts, name, unqualified, false); err != nil {
		return nil, s.Fail(ctx, err)
	} else if temp {
		return nil, nil
	}
	t, err := s.tableDefaults(ctx, ts, name, unqualified, false)
	if err != nil {
		return nil, s.Fail(ctx, err)
	}
	if t == nil || t.View {
		return nil, nil
	}
	fill = &CopyFill[A]{s: s}
	for _, d := range t.Defaults {
		if slices.Contains(columns, d.Column) {
			continue // the rows give it
		}
		fill.columns = append(fill.columns, d.Column)
		fill.calls = append(fill.calls, rewrite.Call{Func: rewrite.Nextval, Name: d.Sequence, NameArg: -1})
	}
	if len(fill.columns) == 0 {
		return nil, nil
	}
	fill.values = make([]int64, len(fill.calls))
	return fill, nil
}

// Next draws the next row's values, one per column of [CopyFill.Columns],
// into a slice valid until the next call. An error is as the application
// sees it, the transaction aborted.
//
// The first row's draws take the whole path of an INSERT's nextval
// (resolution, privileges, membership), which may query the database: the
// front end draws them before the COPY starts. The rows after draw from
// the same sequences without the database (the cache, or the
// transaction's own sequence), so that they can be drawn while the
// database reads the COPY's data.
func (f *CopyFill[A]) Next(ctx context.Context) (values []int64, err error) {
	s := f.s
	defer s.guard(ctx, "COPY", &err)
	if f.drawn == nil {
		return f.first(ctx)
	}
	for i, d := range f.drawn {
		var v int64
		if d.held != nil {
			v, err = localNext(d.name, d.held)
		} else {
			v, err = d.h.Next(ctx)
		}
		if err != nil {
			return nil, s.eng.convert(s.eng.storeErr(err)) // the COPY fails; the database aborts the transaction
		}
		s.seq.nextval(d.name, v, d.inc)
		f.values[i] = v
	}
	return f.values, nil
}

// drawn is what the first row's draw of one column found: the sequence's
// resolved name, and where the rows after draw from.
type drawn struct {
	name string
	held *heldSeq         // the transaction's own sequence, or nil
	h    *seqcache.Handle // else the cache's
	inc  uint64
}

// first is Next for the first row.
func (f *CopyFill[A]) first(ctx context.Context) ([]int64, error) {
	s := f.s
	s.dmlVerb = "INSERT" // an identity column's sequence needs no privilege of the role's, as for INSERT
	defer func() { s.dmlVerb = "" }()
	var zero A
	ds := make([]drawn, len(f.calls))
	for i := range f.calls {
		v, _, err := s.call(ctx, &f.calls[i], zero)
		if err != nil {
			return nil, s.Fail(ctx, err)
		}
		f.values[i] = v
		d := drawn{name: s.seq.lastUsed, inc: s.seq.lastVal.inc}
		storeName := d.name
		if s.tx != nil {
			if d.held, storeName, err = s.heldCall(rewrite.Nextval, d.name); err != nil {
				return nil, s.Fail(ctx, err)
			}
		}
		if d.held == nil {
			d.h = s.eng.cache.Handle(storeName)
		}
		ds[i] = d
	}
	f.drawn = ds
	return f.values, nil
}
