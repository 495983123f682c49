package engine

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"

	"github.com/seqshim/seqshim/rewrite"
	"github.com/seqshim/seqshim/sequence"
)

// ddl applies a sequence DDL statement to the store and keeps this
// process's cache and session in step with it.
func (s *Session[A]) ddl(ctx context.Context, d *rewrite.DDL) error {
	st := s.eng.store
	defer s.eng.ddlGen.Add(1) // resolutions of unqualified names may be stale
	switch d.Op {
	case rewrite.Create:
		spec, pos, err := d.Clauses.Create()
		if err != nil {
			return err
		}
		for i, name := range d.Names {
			if name, err = s.creationName(ctx, name, d.IsUnqualified(i)); err != nil {
				return err
			}
			err := st.Create(ctx, name, spec, pos)
			if d.IfNotExists && errors.Is(err, sequence.ErrExists) {
				continue // PostgreSQL: a notice, the sequence stays as it is
			}
			if err != nil {
				return storeErr(err)
			}
			s.eng.cache.Invalidate(name) // it may remember "does not exist"
		}
	case rewrite.Alter:
		names, err := s.ddlNames(ctx, d)
		if err != nil {
			return err
		}
		for i, name := range names {
			if name == "" {
				continue // IF EXISTS of a name no schema of the path has
			}
			alter := func(ctx context.Context) error {
				_, err := st.Alter(ctx, name, d.Clauses)
				return err
			}
			var err error
			if changesValues(d.Clauses) {
				err = s.eng.cache.Change(ctx, name, alter)
			} else {
				err = alter(ctx) // START, CACHE, OWNED BY: cached values stay valid
			}
			if d.IfExists && errors.Is(err, sequence.ErrNotFound) {
				continue
			}
			if err != nil {
				return storeErr(s.ddlError(ctx, d, i, name, err))
			}
		}
	case rewrite.Rename:
		names, err := s.ddlNames(ctx, d)
		if err != nil {
			return err
		}
		for i, name := range names {
			if name == "" {
				continue
			}
			// The new name is in the schema of the sequence renamed.
			schema, _ := sequence.SplitName(name)
			to := sequence.FormatName(schema, sequence.RelName(d.RenameTo))
			err := s.eng.cache.Change(ctx, name, func(ctx context.Context) error {
				return st.Rename(ctx, name, to)
			})
			if d.IfExists && errors.Is(err, sequence.ErrNotFound) {
				continue
			}
			if err != nil {
				return storeErr(s.ddlError(ctx, d, i, name, err))
			}
			s.eng.cache.Invalidate(to) // it may remember "does not exist"
			s.seq.rename(name, to)
		}
	case rewrite.Drop:
		resolved, err := s.ddlNames(ctx, d)
		if err != nil {
			return err
		}
		names := uniqueNames(resolved) // DROP SEQUENCE c, public.C drops c once
		if !d.IfExists && len(names) > 1 {
			// PostgreSQL drops all or none: check every name first.
			for _, name := range names {
				if _, err := st.Describe(ctx, name); err != nil {
					i := slices.Index(resolved, name)
					return storeErr(dropError(s.ddlError(ctx, d, i, name, err)))
				}
			}
		}
		for _, name := range names {
			if name == "" {
				continue
			}
			err := s.eng.cache.Change(ctx, name, func(ctx context.Context) error {
				return st.Drop(ctx, name)
			})
			if d.IfExists && errors.Is(err, sequence.ErrNotFound) {
				continue
			}
			if err != nil {
				i := slices.Index(resolved, name)
				return storeErr(dropError(s.ddlError(ctx, d, i, name, err)))
			}
			s.seq.drop(name)
		}
	default:
		return fmt.Errorf("seqshim: unknown DDL operation %v", d.Op)
	}
	return nil
}

// changesValues reports whether ALTER SEQUENCE clauses change the values
// nextval hands out, so that values cached before must not be served.
func changesValues(c sequence.Clauses) bool {
	return c.Type != nil || c.Increment != nil || c.MinValue != nil || c.NoMinValue ||
		c.MaxValue != nil || c.NoMaxValue || c.Restart || c.RestartAt != nil || c.Cycle != nil
}

// dropError is PostgreSQL's message for DROP SEQUENCE of a missing sequence,
// which names a sequence where other commands name a relation.
func dropError(err error) error {
	var se *sequence.Error
	if errors.As(err, &se) && errors.Is(se, sequence.ErrNotFound) {
		if rest, ok := strings.CutPrefix(se.Message, "relation "); ok {
			return &sequence.Error{Code: se.Code, Kind: se.Kind, Message: "sequence " + rest}
		}
	}
	return err
}

// uniqueNames drops repeated names, keeping the first of each.
func uniqueNames(names []string) []string {
	out := make([]string, 0, len(names))
	for _, n := range names {
		if !slices.Contains(out, n) {
			out = append(out, n)
		}
	}
	return out
}
