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
// process's cache and session in step with it; inside a transaction block,
// the session holds it instead (txddl.go).
func (s *Session[A]) ddl(ctx context.Context, d *rewrite.DDL) error {
	if err := s.ddlWritable(ctx, d); err != nil {
		return err // PostgreSQL refuses it in a read-only transaction first
	}
	if s.tx != nil || s.inTx() {
		return s.holdDDL(ctx, d) // applied when the transaction commits
	}
	st := s.eng.store
	switch d.Op {
	case rewrite.Create:
		spec, pos, err := d.Clauses.Create()
		if err != nil {
			return err
		}
		for _, name := range d.Names {
			free, err := s.checkFree(ctx, name, d.IfNotExists)
			if err != nil || !free {
				return err
			}
			if d.OwnedBy != "" {
				if spec.OwnedBy, err = s.ownedBy(ctx, name, d.OwnedBy); err != nil {
					return err
				}
			}
			err = st.Create(ctx, name, spec, pos)
			if d.IfNotExists && errors.Is(err, sequence.ErrExists) {
				continue // PostgreSQL: a notice, the sequence stays as it is
			}
			if err != nil {
				return s.eng.storeErr(err)
			}
			s.eng.cache.Invalidate(name) // it may remember "does not exist"
			s.eng.cache.Retire(name)     // not a sequence of that name dropped elsewhere
		}
	case rewrite.Alter:
		for _, name := range d.Names {
			clauses := d.Clauses
			if d.OwnedBy != "" {
				// PostgreSQL finds the sequence before it reads OWNED BY.
				if _, err := st.Describe(ctx, name); err != nil {
					if d.IfExists && errors.Is(err, sequence.ErrNotFound) && s.notSequence(ctx, name, err) == err {
						continue
					}
					return s.eng.storeErr(s.notSequence(ctx, name, err))
				}
				ref, err := s.ownedBy(ctx, name, d.OwnedBy)
				if err != nil {
					return err
				}
				clauses.OwnedBy = &ref
			}
			alter := func(ctx context.Context) error {
				_, err := st.Alter(ctx, name, clauses)
				return err
			}
			var err error
			if changesValues(d.Clauses) {
				err = s.eng.cache.Change(ctx, name, alter)
			} else {
				err = alter(ctx) // START, CACHE, OWNED BY: cached values stay valid
			}
			err = s.notSequence(ctx, name, err) // IF EXISTS does not cover a table
			if d.IfExists && errors.Is(err, sequence.ErrNotFound) {
				continue
			}
			if err != nil {
				return s.eng.storeErr(err)
			}
		}
	case rewrite.Rename:
		for _, name := range d.Names {
			if kind, err := s.relkind(ctx, d.RenameTo); err != nil {
				return err
			} else if kind != 0 {
				// The new name is a relation's: 42P07, once the sequence is found.
				if _, err := st.Describe(ctx, name); err != nil {
					err = s.notSequence(ctx, name, err)
					if d.IfExists && errors.Is(err, sequence.ErrNotFound) {
						continue
					}
					return s.eng.storeErr(err)
				}
				return sequence.ExistsError(d.RenameTo)
			}
			err := s.eng.cache.Change(ctx, name, func(ctx context.Context) error {
				return st.Rename(ctx, name, d.RenameTo)
			})
			err = s.notSequence(ctx, name, err)
			if d.IfExists && errors.Is(err, sequence.ErrNotFound) {
				continue
			}
			if err != nil {
				return s.eng.storeErr(err)
			}
			s.eng.cache.Invalidate(d.RenameTo) // it may remember "does not exist"
			s.eng.cache.Renamed(name, d.RenameTo)
			s.seq.rename(name, d.RenameTo, s.eng.cache.Incarnation(d.RenameTo))
		}
	case rewrite.Drop:
		names := uniqueNames(d.Names) // DROP SEQUENCE c, public.C drops c once
		if len(names) > 1 {
			// PostgreSQL drops all or none: check every name first.
			for _, name := range names {
				if _, err := st.Describe(ctx, name); err != nil {
					err = s.notSequence(ctx, name, err)
					if d.IfExists && errors.Is(err, sequence.ErrNotFound) {
						continue
					}
					return s.eng.storeErr(dropError(err))
				}
			}
		}
		for _, name := range names {
			err := s.eng.cache.Change(ctx, name, func(ctx context.Context) error {
				return st.Drop(ctx, name)
			})
			err = s.notSequence(ctx, name, err)
			if d.IfExists && errors.Is(err, sequence.ErrNotFound) {
				continue
			}
			if err != nil {
				return s.eng.storeErr(dropError(err))
			}
			s.eng.cache.Retire(name)
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
