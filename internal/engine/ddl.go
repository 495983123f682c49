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
// the session holds it instead (txddl.go). Unqualified names resolve
// through the session's search_path (searchpath.go).
func (s *Session[A]) ddl(ctx context.Context, d *rewrite.DDL) error {
	if err := s.ddlWritable(ctx, d); err != nil {
		return err // PostgreSQL refuses it in a read-only transaction first
	}
	if d.Op == rewrite.SetLogged {
		return s.setLogged(ctx, d) // nothing changes: no DDL generation
	}
	defer s.eng.ddlGen.Add(1) // resolutions of unqualified names may be stale
	if s.tx != nil || s.inTx() {
		rd, err := s.heldNames(ctx, d)
		if err != nil {
			return err
		}
		return s.holdDDL(ctx, rd) // applied when the transaction commits
	}
	st := s.eng.store
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
			free, err := s.checkFree(ctx, name, d.IfNotExists)
			if err != nil || !free {
				return err
			}
			if d.OwnedBy != "" {
				if spec.OwnedBy, err = s.ownedBy(ctx, name, d.OwnedBy); err != nil {
					return err
				}
			}
			attached, err := s.declare(ctx, name, spec, pos)
			if d.IfNotExists && errors.Is(err, sequence.ErrExists) && !isCounterError(err) {
				continue // PostgreSQL: a notice, the sequence stays as it is
			}
			if err != nil {
				return s.eng.storeErr(err)
			}
			if !attached {
				s.eng.cache.Invalidate(name) // it may remember "does not exist"
				s.eng.cache.Retire(name)     // not a sequence of that name dropped elsewhere
			}
			s.eng.forgetDefaults() // its column defaults, if any, are this database's now
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
			clauses := d.Clauses
			// PostgreSQL finds the sequence first: this database's.
			if ok, err := s.exists(ctx, name); err != nil || !ok {
				if err == nil {
					err = notHere(name)
				}
				if d.IfExists && errors.Is(err, sequence.ErrNotFound) && s.notSequence(ctx, name, d.IsUnqualified(i), err) == err {
					continue
				}
				return s.eng.storeErr(s.ddlError(ctx, d, i, name, s.notSequence(ctx, name, d.IsUnqualified(i), err)))
			}
			if d.OwnedBy != "" {
				info, _, err := s.describe(ctx, name)
				if err != nil {
					return s.eng.storeErr(err)
				}
				ref, err := s.checkOwnedBy(ctx, name, d, info.Spec, info.Position)
				if err != nil {
					return err
				}
				clauses.OwnedBy = &ref
			}
			alter := func(ctx context.Context) error { return s.alterStore(ctx, name, clauses) }
			if changesValues(d.Clauses) {
				err = s.eng.cache.Change(ctx, name, alter)
			} else {
				err = alter(ctx) // START, CACHE, OWNED BY: cached values stay valid
			}
			err = s.notSequence(ctx, name, d.IsUnqualified(i), err) // IF EXISTS does not cover a table
			if d.IfExists && errors.Is(err, sequence.ErrNotFound) {
				continue
			}
			if err != nil {
				return s.eng.storeErr(s.ddlError(ctx, d, i, name, err))
			}
		}
	case rewrite.Rename, rewrite.Move:
		names, err := s.ddlNames(ctx, d)
		if err != nil {
			return err
		}
		move := d.Op == rewrite.Move
		for i, name := range names {
			if name == "" {
				continue
			}
			var to string
			if move {
				to, err = s.moveTarget(ctx, d, i, name)
			} else {
				to, err = s.renameTarget(ctx, d, i, name)
			}
			if err != nil {
				return err
			}
			if to == "" {
				continue // IF EXISTS of a missing sequence, or a move to its own schema
			}
			err = s.eng.cache.Change(ctx, name, func(ctx context.Context) error {
				info, visible, err := s.describe(ctx, name)
				switch {
				case err != nil:
					return err
				case !visible:
					return notHere(name)
				case s.others(info):
					return sharedRenameError(name, to, info, move)
				}
				return st.Rename(ctx, name, to)
			})
			err = s.notSequence(ctx, name, d.IsUnqualified(i), err)
			if d.IfExists && errors.Is(err, sequence.ErrNotFound) {
				continue
			}
			if err != nil {
				return s.eng.storeErr(s.ddlError(ctx, d, i, name, err))
			}
			s.eng.cache.Invalidate(to) // it may remember "does not exist"
			s.eng.cache.Renamed(name, to)
			s.seq.rename(name, to, s.eng.cache.Incarnation(to))
			s.eng.forgetDefaults() // its column defaults, if any, draw from its new name
		}
	case rewrite.Drop:
		resolved, err := s.ddlNames(ctx, d)
		if err != nil {
			return err
		}
		names := uniqueNames(resolved) // DROP SEQUENCE c, public.C drops c once
		if len(names) > 1 {
			// PostgreSQL drops all or none: check every name first.
			for _, name := range names {
				if name == "" {
					continue
				}
				if ok, err := s.exists(ctx, name); err != nil || !ok {
					if err == nil {
						err = notHere(name)
					}
					i := slices.Index(resolved, name)
					err = s.notSequence(ctx, name, d.IsUnqualified(i), err)
					if d.IfExists && errors.Is(err, sequence.ErrNotFound) {
						continue
					}
					return s.eng.storeErr(dropError(s.ddlError(ctx, d, i, name, err)))
				}
			}
		}
		for _, name := range names { // all or none: dependents first
			if name == "" {
				continue
			}
			if err := s.checkDrop(ctx, name, d.Cascade); err != nil {
				return err
			}
		}
		for _, name := range names {
			if name == "" {
				continue
			}
			dropped, err := s.dropHere(ctx, name)
			i := slices.Index(resolved, name)
			err = s.notSequence(ctx, name, d.IsUnqualified(i), err)
			if d.IfExists && errors.Is(err, sequence.ErrNotFound) {
				continue
			}
			if err != nil {
				return s.eng.storeErr(dropError(s.ddlError(ctx, d, i, name, err)))
			}
			if dropped {
				s.eng.cache.Retire(name)
			}
			s.seq.drop(name)
			s.eng.forgetDefaults() // its column defaults went with it
		}
	default:
		return fmt.Errorf("seqshim: unknown DDL operation %v", d.Op)
	}
	return nil
}

// checkOwnedBy resolves OWNED BY of ALTER SEQUENCE d on sequence name,
// whose spec (this database's view) and position are given, with
// PostgreSQL's errors in its order: the options first, then OWNED BY's
// own checks (ownedBy), then an identity column's sequence, whose owner
// cannot change (0A000).
func (s *Session[A]) checkOwnedBy(ctx context.Context, name string, d *rewrite.DDL, spec sequence.Spec, pos sequence.Position) (string, error) {
	if _, _, err := d.Clauses.Alter(spec, pos); err != nil {
		return "", err
	}
	ref, err := s.ownedBy(ctx, name, d.OwnedBy)
	if err != nil {
		return "", err
	}
	for _, c := range spec.Defaults {
		if c.Kind.IsIdentity() {
			return "", &sequence.Error{Code: sequence.CodeFeatureNotSupported, Kind: sequence.ErrInvalid,
				Message: "cannot change ownership of identity sequence",
				Detail:  fmt.Sprintf(`Sequence "%s" is linked to table "%s".`, sequence.RelName(name), sequence.RelName(c.Table))}
		}
	}
	return ref, nil
}

// setLogged checks ALTER SEQUENCE … SET LOGGED / SET UNLOGGED: the
// sequence must exist (42P01; 42809 for another relation; IF EXISTS skips
// a missing one), as the transaction sees it. A store sequence has no
// persistence of its own (the store is durable either way): nothing else
// happens, and nothing is held.
func (s *Session[A]) setLogged(ctx context.Context, d *rewrite.DDL) error {
	for i, name := range d.Names {
		if d.IsUnqualified(i) && s.db != nil {
			r, err := s.resolve(ctx, name)
			switch {
			case err == nil:
				name = r
			case !errors.Is(err, sequence.ErrNotFound):
				return err
			} // else perhaps one the open transaction created, as in public
		}
		ok, err := s.visibleSeq(ctx, name)
		if err != nil {
			return err
		}
		if ok {
			continue
		}
		err = s.notSequence(ctx, name, d.IsUnqualified(i), notHere(name))
		if d.IfExists && errors.Is(err, sequence.ErrNotFound) {
			continue
		}
		return s.eng.storeErr(s.ddlError(ctx, d, i, name, err))
	}
	return nil
}

// renameTarget checks ALTER SEQUENCE names[i] RENAME TO outside a
// transaction block and returns the new name, in the schema of the
// sequence renamed ("" for IF EXISTS of a missing sequence). Renaming onto
// an existing name always fails: 42P07 once the sequence is found, 42P01
// when it is missing (the store's Rename would take a rename already done,
// name gone and to renamed from it, as success).
func (s *Session[A]) renameTarget(ctx context.Context, d *rewrite.DDL, i int, name string) (string, error) {
	schema, _ := sequence.SplitName(name)
	to := sequence.FormatName(schema, sequence.RelName(d.RenameTo))
	err := s.checkRenameFree(ctx, to)
	if err == nil {
		return to, nil
	}
	if !errors.Is(err, sequence.ErrExists) {
		return "", err
	}
	if _, derr := s.eng.store.Describe(ctx, name); derr != nil {
		derr = s.notSequence(ctx, name, d.IsUnqualified(i), derr)
		if d.IfExists && errors.Is(derr, sequence.ErrNotFound) {
			return "", nil
		}
		return "", s.eng.storeErr(s.ddlError(ctx, d, i, name, derr))
	}
	return "", err
}

// checkRenameFree returns PostgreSQL's 42P07 when the canonical name to is
// taken by a relation of the database or a sequence of the store.
func (s *Session[A]) checkRenameFree(ctx context.Context, to string) error {
	kind, err := s.relkind(ctx, to, false)
	if err != nil {
		return err
	}
	if kind == 0 {
		if _, err := s.eng.store.Describe(ctx, to); err == nil {
			kind = 'S'
		} else if !errors.Is(err, sequence.ErrNotFound) {
			return s.eng.storeErr(err)
		}
	}
	if kind != 0 {
		return sequence.ExistsError(to)
	}
	return nil
}

// heldNames is d with its names resolved through the search_path, for a
// transaction to hold: a CREATE's names in the schema it creates in, the
// others in the schema that has them in the store. A name that resolves
// nowhere stays as written, for holdDDL, which also knows the sequences
// the transaction itself created, to answer.
func (s *Session[A]) heldNames(ctx context.Context, d *rewrite.DDL) (*rewrite.DDL, error) {
	if s.db == nil {
		return d, nil
	}
	rd := *d
	rd.Names = slices.Clone(d.Names) // the plan's are shared
	for i, name := range d.Names {
		if d.Op == rewrite.Create {
			n, err := s.creationName(ctx, name, d.IsUnqualified(i))
			if err != nil {
				return nil, err
			}
			rd.Names[i] = n
			continue
		}
		if !d.IsUnqualified(i) {
			continue
		}
		if n, err := s.resolve(ctx, name); err == nil {
			rd.Names[i] = n
		} else if !errors.Is(err, sequence.ErrNotFound) {
			return nil, err
		}
	}
	return &rd, nil
}

// isCounterError reports whether err is sequence.CounterError's: a CREATE
// that would make another counter than the store's, which IF NOT EXISTS
// does not cover (the database has no such sequence).
func isCounterError(err error) bool {
	var se *sequence.Error
	return errors.As(err, &se) && se.Hint != "" && errors.Is(err, sequence.ErrExists)
}

// dropHere is DROP SEQUENCE name in this session's database: its
// membership goes, and the counter too when it was the last database's;
// dropped tells which. A sequence this database has not declared is 42P01.
// Values cached by this process stay valid while the counter lives on.
func (s *Session[A]) dropHere(ctx context.Context, name string) (dropped bool, err error) {
	err = s.eng.cache.Change(ctx, name, func(ctx context.Context) error {
		ok, err := s.exists(ctx, name)
		if err == nil && !ok {
			err = notHere(name)
		}
		if err != nil {
			return err
		}
		dropped, err = s.undeclare(ctx, name)
		return err
	})
	return dropped, err
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
