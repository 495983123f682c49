// Sequence DDL in a transaction block, one concept in one file: the DDL a
// session holds for its open transaction (visible to it at once), savepoints,
// and the commit protocol that takes it to the store at COMMIT.

package engine

import (
	"context"
	"errors"
	"fmt"
	"maps"
	"slices"

	"github.com/jackc/pgx/v5/pgconn"

	"github.com/seqshim/seqshim/rewrite"
	"github.com/seqshim/seqshim/sequence"
)

// Sequence DDL inside a transaction block is held by the session: visible to
// it at once, applied to the store only when the transaction commits (see
// the package doc's "Transactions").

// heldSeq is one sequence as the session's open transaction sees it.
type heldSeq struct {
	id     int    // identity within the transaction
	origin string // store name; "" when created in this transaction
	// local: nextval and setval use spec and pos rather than the store:
	// the sequence was created here, or altered with options (PostgreSQL
	// gives it a new relfilenode, private to the transaction until it
	// commits).
	local  bool
	spec   sequence.Spec
	pos    sequence.Position
	base   sequence.Position  // origin's store position when it became local
	alters []sequence.Clauses // ALTERs of origin, in order, to apply at commit
	reset  bool               // some ALTER restarts it: its position owes nothing to base
	moved  bool               // local nextval or setval: pos must reach the store
	// attached: at COMMIT, the store had the sequence this transaction
	// created, and this database was attached to its counter.
	attached bool
	// attach: the transaction created a sequence other databases have in
	// the store: it draws from their counter (origin) as they do, and the
	// database attaches to it at COMMIT (spec holds its view).
	attach bool
}

// rename is an ALTER SEQUENCE … RENAME of a store sequence.
type rename struct{ origin, from, to string }

// held is the sequence DDL of the session's open transaction. A savepoint
// keeps a copy ([held.clone]); ROLLBACK TO puts it back.
type held struct {
	seqs    map[string]*heldSeq // name in the transaction → sequence
	hidden  map[string]bool     // names dropped or renamed away here: 42P01
	drops   []string            // store names to drop
	gone    map[string]bool     // at COMMIT: the drops whose counter went with this database, its last
	renames []rename            // store renames, in order
	shadow  map[string]shadow   // currval of store sequences dropped here, back if it rolls back
	marks   []mark              // savepoints taken while holding, oldest first
	nextID  int
}

// shadow is the currval a DROP in the transaction hid: PostgreSQL keys
// currval by OID, so a rolled-back DROP gives it back.
type shadow struct {
	val  entry
	last bool // the sequence of lastval
}

type mark struct {
	name string
	snap *held
}

// newHeld returns a transaction's view with nothing held yet.
func newHeld() *held {
	return &held{seqs: map[string]*heldSeq{}, hidden: map[string]bool{}, shadow: map[string]shadow{}}
}

func (h *held) clone() *held {
	c := &held{
		seqs:    make(map[string]*heldSeq, len(h.seqs)),
		hidden:  maps.Clone(h.hidden),
		drops:   slices.Clip(slices.Clone(h.drops)),
		renames: slices.Clip(slices.Clone(h.renames)),
		shadow:  maps.Clone(h.shadow),
		nextID:  h.nextID,
	}
	for n, s := range h.seqs {
		cp := *s
		cp.alters = slices.Clip(slices.Clone(s.alters))
		c.seqs[n] = &cp
	}
	return c
}

func (h *held) empty() bool {
	return len(h.seqs) == 0 && len(h.hidden) == 0 && len(h.drops) == 0 && len(h.renames) == 0
}

// lookup returns what name is in the transaction: a held sequence, gone
// (dropped or renamed away), or neither (the store's, as it is).
func (h *held) lookup(name string) (hs *heldSeq, gone bool) {
	if hs = h.seqs[name]; hs != nil {
		return hs, false
	}
	return nil, h.hidden[name]
}

// inTx reports whether the session is inside a transaction block (also a
// failed one), from the database session's own status, or from the front
// end's [Session.Begin] when it has no [DB].
func (s *Session[A]) inTx() bool {
	if s.db != nil {
		return s.db.TxStatus() != 'I'
	}
	return s.began
}

// Begin tells the session that the front end began a transaction block,
// read-only or in the session's default mode. Without a [DB] it is how the
// session knows it is in a transaction; with one, the database's status is
// the ground truth.
func (s *Session[A]) Begin(readOnly bool) {
	s.heardFrom()
	s.began = true
	s.beganMode(readOnly)
}

// holdDDL applies d to the transaction's view, not to the store.
func (s *Session[A]) holdDDL(ctx context.Context, d *rewrite.DDL) error {
	if s.tx == nil {
		s.tx = newHeld()
	}
	h := s.tx
	switch d.Op {
	case rewrite.Create:
		spec, pos, err := d.Clauses.Create()
		if err != nil {
			return err
		}
		for _, name := range d.Names {
			ok, err := s.visible(ctx, name)
			if err != nil {
				return err
			}
			if ok {
				if d.IfNotExists {
					continue // PostgreSQL: a notice, the sequence stays as it is
				}
				return sequence.ExistsError(name)
			}
			// A relation of the database of that name: a table, view or
			// index, or the twin of a sequence of its own — but for the
			// one being adopted (adoptFilled), which is the database's
			// sequence of that name.
			if !s.adopting {
				if free, err := s.checkFree(ctx, name, d.IfNotExists); err != nil || !free {
					if err != nil {
						return err
					}
					continue
				}
			}
			spec := spec
			if d.OwnedBy != "" {
				if spec.OwnedBy, err = s.ownedBy(ctx, name, d.OwnedBy); err != nil {
					return err
				}
			}
			h.nextID++
			hs := &heldSeq{id: h.nextID, local: true, spec: spec, pos: pos}
			if attach, err := s.sharedCounter(ctx, name, spec); err != nil {
				return err
			} else if attach {
				// Another database's counter: the transaction draws from
				// it (values unique across the databases), and attaches
				// to it at COMMIT.
				hs.origin, hs.local, hs.attach = name, false, true
			}
			h.seqs[name] = hs
			delete(h.hidden, name)
		}
	case rewrite.Alter:
		for i, name := range d.Names {
			// PostgreSQL gives the sequence a new relfilenode for any
			// option but OWNED BY: values drawn after it are the
			// transaction's own, gone if it rolls back.
			// Column defaults and OWNED BY are not options: no new
			// relfilenode for them.
			opts := d.Clauses
			opts.Defaults, opts.OwnedBy = nil, nil
			hs, err := s.hold(ctx, name, opts != (sequence.Clauses{}))
			if errors.Is(err, sequence.ErrNotFound) {
				err = s.notSequence(ctx, name, d.IsUnqualified(i), err) // IF EXISTS does not cover a table
				if d.IfExists && errors.Is(err, sequence.ErrNotFound) {
					continue
				}
				err = s.ddlError(ctx, d, i, name, err)
			}
			if err != nil {
				return err
			}
			clauses := d.Clauses
			if d.OwnedBy != "" {
				ref, err := s.checkOwnedBy(ctx, name, d, hs.spec, hs.pos)
				if err != nil {
					return err
				}
				clauses.OwnedBy = &ref
			}
			spec, pos, err := clauses.Alter(hs.spec, hs.pos)
			if err != nil {
				return err
			}
			hs.spec, hs.pos = spec, pos
			if hs.origin != "" {
				hs.alters = append(hs.alters, clauses)
				hs.reset = hs.reset || d.Clauses.Restart || d.Clauses.RestartAt != nil
			}
		}
	case rewrite.Rename, rewrite.Move:
		for i, name := range d.Names {
			hs, err := s.hold(ctx, name, false)
			if errors.Is(err, sequence.ErrNotFound) {
				err = s.notSequence(ctx, name, d.IsUnqualified(i), err) // IF EXISTS does not cover a table
				if d.IfExists && errors.Is(err, sequence.ErrNotFound) {
					continue
				}
				err = s.ddlError(ctx, d, i, name, err)
			}
			if err != nil {
				return err
			}
			var to string
			if d.Op == rewrite.Move {
				if to, err = s.moveTo(ctx, name, hs.spec.OwnedBy, d.RenameTo); err != nil {
					return err
				}
				if to == "" {
					continue // in that schema already
				}
			} else {
				// The new name is in the schema of the sequence renamed.
				schema, _ := sequence.SplitName(name)
				to = sequence.FormatName(schema, sequence.RelName(d.RenameTo))
				taken, err := s.visible(ctx, to)
				if err != nil {
					return err
				}
				if taken {
					return sequence.ExistsError(to)
				}
			}
			if err := s.holdRename(ctx, name, hs, to, d.Op == rewrite.Move); err != nil {
				return err
			}
		}
	case rewrite.Drop:
		names := uniqueNames(d.Names)
		for _, name := range names { // PostgreSQL drops all or none
			ok, err := s.visible(ctx, name)
			if err != nil {
				return err
			}
			if !ok {
				// A relation of another kind is PostgreSQL's 42809, which
				// IF EXISTS does not cover.
				i := slices.Index(d.Names, name)
				err := s.notSequence(ctx, name, d.IsUnqualified(i), sequence.NotFoundError(name))
				if d.IfExists && errors.Is(err, sequence.ErrNotFound) {
					continue
				}
				return dropError(s.ddlError(ctx, d, i, name, err))
			}
		}
		for _, name := range names { // all or none: dependents first
			if ok, _ := s.visible(ctx, name); !ok {
				continue
			}
			var err error
			switch hs := h.seqs[name]; {
			case hs == nil:
				err = s.checkDrop(ctx, name, d.Cascade)
			default:
				err = dropDependents(name, hs.spec.Defaults, d.Cascade)
			}
			if err != nil {
				return err
			}
		}
		for _, name := range names {
			if ok, _ := s.visible(ctx, name); !ok {
				continue
			}
			hs := h.seqs[name]
			switch {
			case hs == nil:
				h.drops = append(h.drops, name)
			case hs.origin != "":
				h.drops = append(h.drops, hs.origin)
			}
			if v, ok := s.seq.currval(name); ok && (hs == nil || hs.origin != "") {
				if _, done := h.shadow[name]; !done {
					h.shadow[name] = shadow{v, s.seq.lastUsed == name}
				}
			}
			s.seq.drop(name)
			delete(h.seqs, name)
			h.hidden[name] = true
		}
	default:
		return fmt.Errorf("seqshim: unknown DDL operation %v", d.Op)
	}
	return nil
}

// holdRename holds the rename of sequence name, held as hs, to the free
// name to (a move to another schema when move is set): refused when other
// databases share its counter, as outside a transaction block.
func (s *Session[A]) holdRename(ctx context.Context, name string, hs *heldSeq, to string, move bool) error {
	if err := s.checkShared(ctx, name, hs.origin, to, move); err != nil {
		return err
	}
	h := s.tx
	if hs.origin != "" {
		h.renames = append(h.renames, rename{hs.origin, name, to})
	}
	delete(h.seqs, name)
	h.hidden[name] = true
	h.seqs[to] = hs
	delete(h.hidden, to)
	s.seq.rename(name, to, s.eng.cache.Incarnation(to))
	return nil
}

// visible reports whether a sequence of that name exists for the
// transaction.
func (s *Session[A]) visible(ctx context.Context, name string) (bool, error) {
	hs, gone := s.tx.lookup(name)
	if hs != nil || gone {
		return hs != nil, nil
	}
	return s.exists(ctx, name) // this database's
}

// hold returns the held sequence of name, taking a store sequence into the
// transaction's view if it is not yet there; local makes its values the
// transaction's own from now on, starting from the store's position after
// this process handed its unused values back (so that position is the last
// value served, as PostgreSQL's is).
func (s *Session[A]) hold(ctx context.Context, name string, local bool) (*heldSeq, error) {
	h := s.tx
	hs, gone := h.lookup(name)
	if gone {
		return nil, sequence.NotFoundError(name)
	}
	if hs != nil && (hs.local || !local) {
		return hs, nil
	}
	origin := name
	if hs != nil {
		origin = hs.origin
	}
	var info sequence.Info
	describe := func(ctx context.Context) error {
		var visible bool
		var err error
		if info, visible, err = s.describe(ctx, origin); err == nil && !visible {
			err = notHere(origin)
		}
		return err
	}
	var err error
	if local {
		err = s.eng.cache.Change(ctx, origin, describe)
	} else {
		err = describe(ctx)
	}
	if err != nil {
		return nil, s.eng.storeErr(err)
	}
	if hs == nil {
		h.nextID++
		hs = &heldSeq{id: h.nextID, origin: origin, spec: info.Spec}
		h.seqs[name] = hs
	}
	// Earlier ALTERs of this transaction apply on top of the store's spec.
	hs.pos, hs.base = info.Position, info.Position
	if local {
		spec, pos := info.Spec, info.Position
		for _, c := range hs.alters {
			if spec, pos, err = c.Alter(spec, pos); err != nil {
				return nil, err
			}
		}
		hs.spec, hs.pos, hs.local = spec, pos, true
	}
	return hs, nil
}

// heldCall answers a sequence call on a name the transaction holds: ok is
// false when the call goes to the store as usual, under the returned name
// (the store's name of a sequence renamed in the transaction).
func (s *Session[A]) heldCall(fn rewrite.Func, name string) (hs *heldSeq, storeName string, err error) {
	hs, gone := s.tx.lookup(name)
	if gone {
		if fn == rewrite.Lastval {
			return nil, name, sequence.LastvalNotDefinedError()
		}
		return nil, name, sequence.NotFoundError(name)
	}
	if hs == nil {
		return nil, name, nil
	}
	if hs.local {
		return hs, name, nil
	}
	return nil, hs.origin, nil
}

// localNext is nextval of a sequence the transaction owns.
func localNext(name string, hs *heldSeq) (int64, error) {
	b, pos, err := hs.spec.Reserve(name, hs.pos, 1)
	if err != nil {
		return 0, err
	}
	hs.pos, hs.moved = pos, true
	return b.First, nil
}

// localSetval is setval of a sequence the transaction owns.
func localSetval(name string, hs *heldSeq, v int64, isCalled bool) error {
	pos, err := hs.spec.SetVal(name, v, isCalled)
	if err != nil {
		return err
	}
	hs.pos, hs.moved = pos, true
	return nil
}

// savepoint records SAVEPOINT name after the database ran it.
func (s *Session[A]) savepoint(name string) {
	if s.tx != nil {
		s.tx.marks = append(s.tx.marks, mark{name, s.tx.clone()})
	}
}

// rollbackTo records ROLLBACK TO SAVEPOINT name after the database ran it:
// the DDL held since goes. A savepoint the session does not know was taken
// before any DDL was held.
func (s *Session[A]) rollbackTo(name string) {
	if s.tx == nil {
		return
	}
	for i := len(s.tx.marks) - 1; i >= 0; i-- {
		if m := s.tx.marks[i]; m.name == name {
			back := m.snap.clone()
			back.marks = s.tx.marks[:i+1] // the savepoint stays
			s.revert(back)
			return
		}
	}
	s.revert(nil)
}

// release records RELEASE SAVEPOINT name after the database ran it.
func (s *Session[A]) release(name string) {
	if s.tx == nil {
		return
	}
	for i := len(s.tx.marks) - 1; i >= 0; i-- {
		if s.tx.marks[i].name == name {
			s.tx.marks = s.tx.marks[:i]
			return
		}
	}
}

// revert goes back to an earlier view of the transaction (nil: nothing
// held), and puts currval and lastval in step: a sequence created since is
// gone, one renamed since has its old name back. Values drawn stay drawn.
func (s *Session[A]) revert(to *held) {
	if s.tx == nil {
		return
	}
	byID := map[int]string{}
	if to != nil {
		for n, hs := range to.seqs {
			byID[hs.id] = n
		}
	}
	// Sequences created since go first: their names may be the old names
	// of renamed ones.
	for name, hs := range s.tx.seqs {
		if _, ok := byID[hs.id]; !ok && (hs.origin == "" || hs.attach) {
			s.seq.drop(name)
		}
	}
	for name, hs := range s.tx.seqs {
		back, ok := byID[hs.id]
		switch {
		case ok:
			if back != name {
				s.seq.rename(name, back, s.eng.cache.Incarnation(back))
			}
		case hs.origin != "" && name != hs.origin:
			s.seq.rename(name, hs.origin, s.eng.cache.Incarnation(hs.origin))
		}
	}
	for name, sh := range s.tx.shadow {
		if to != nil {
			if _, ok := to.shadow[name]; ok {
				continue
			}
		}
		s.seq.put(name, sh.val)
		if sh.last && s.seq.lastUsed == "" {
			from := s.seq.from // a temporary sequence's nextval since stays the last
			s.seq.nextval(name, sh.val.v, sh.val.inc)
			s.seq.from = from
		}
	}
	if to == nil || to.empty() && len(to.marks) == 0 {
		s.tx = nil
		return
	}
	s.tx = to
}

// Rollback ends the transaction with rollback, the front end's way of
// rolling back in the database: the held DDL goes.
func (s *Session[A]) Rollback(ctx context.Context, rollback func(context.Context) error) error {
	s.notePath(rewrite.EndsTransaction) // a SET made in it is undone
	s.revert(nil)
	s.began = false
	return rollback(ctx)
}

// Commit ends the transaction with commit, the front end's way of
// committing in the database, applying the held DDL to the store first (the
// commit protocol in the package doc). rollback ends the database's
// transaction instead when the store refused the DDL.
func (s *Session[A]) Commit(ctx context.Context, commit, rollback func(context.Context) error) error {
	s.notePath(rewrite.EndsTransaction) // SET LOCAL ends with it
	h := s.tx
	s.began = false
	if h == nil {
		if err := commit(ctx); err != nil {
			return err
		}
		s.afterCommit(ctx)
		return nil
	}
	if s.db != nil && s.db.TxStatus() == 'E' {
		// COMMIT of a failed transaction rolls back.
		s.revert(nil)
		return commit(ctx)
	}
	testHook(HookBeforeStore)
	undo, err := s.apply(ctx, h)
	if err != nil {
		err = errors.Join(err, s.undo(ctx, undo))
		s.revert(nil)
		return errors.Join(s.eng.convert(err), rollback(ctx))
	}
	testHook(HookStoreApplied)
	if err := commit(ctx); err != nil {
		if s.definite(err) {
			// The database did not commit: neither does the store.
			if uerr := s.undo(ctx, undo); uerr != nil {
				err = fmt.Errorf("%w (and undoing its sequence DDL in the store failed: %w)", err, uerr)
			}
			s.revert(nil)
			return err
		}
		// The COMMIT may have happened: the store keeps the DDL.
		s.committed(h)
		s.tx = nil
		return err
	}
	testHook(HookCommitted)
	s.committed(h)
	s.tx = nil
	s.afterCommit(ctx)
	return nil
}

// afterCommit drops the store sequences whose owning columns the committed
// transaction dropped (dropOrphans), now that the session is outside a
// transaction block: a session whose every statement runs in a
// transaction would otherwise never get to it. A failure leaves them
// pending for the next statement outside a transaction; the COMMIT stands.
func (s *Session[A]) afterCommit(ctx context.Context) {
	if s.orphansPending && s.db != nil && s.db.TxStatus() == 'I' {
		if err := s.dropOrphans(ctx); err != nil {
			s.orphansPending = true // the next statement outside a transaction tries again
		}
	}
}

// committed tells the process's other sessions about the DDL that reached
// the store (seqcache's incarnations, see incarnation.go) and keeps this
// session's currval of the sequences it created or renamed, which the
// transaction recorded under their names' old incarnations.
func (s *Session[A]) committed(h *held) {
	s.eng.ddlGen.Add(1)    // resolutions of unqualified names may be stale
	s.eng.forgetDefaults() // column defaults may have changed
	cache := s.eng.cache
	dropped := map[string]bool{}
	for _, o := range uniqueNames(h.drops) {
		dropped[o] = true
		if h.gone[o] { // the counter went with this database, its last
			cache.Retire(o)
		}
	}
	for _, r := range h.renames {
		if !dropped[r.origin] {
			cache.Renamed(r.from, r.to)
		}
	}
	for name, hs := range h.seqs {
		if hs.origin == "" && !hs.attached {
			cache.Retire(name) // a new sequence: not one of that name dropped elsewhere
		}
		s.seq.restamp(name, cache.Incarnation(name))
	}
}

// definite reports whether err, a failed COMMIT, says for sure that the
// database did not commit: the server answered with an error, or the
// session is still open and idle.
func (s *Session[A]) definite(err error) bool {
	var pe *pgconn.PgError
	if errors.As(err, &pe) || pgconn.SafeToRetry(err) {
		return true
	}
	return s.db != nil && !s.db.IsClosed() && s.db.TxStatus() == 'I'
}

// undoFn reverses one store change of [Session.apply].
type undoFn func(ctx context.Context) error

// apply writes the transaction's DDL to the store in an order that cannot
// trip over itself: ALTERs (store names), DROPs, RENAMEs (in the order
// written), CREATEs (final names, final positions). It returns how to undo
// what it did, also when it fails part way.
func (s *Session[A]) apply(ctx context.Context, h *held) ([]undoFn, error) {
	st, cache := s.eng.store, s.eng.cache
	var undo []undoFn
	dropped := map[string]bool{}
	for _, o := range h.drops {
		dropped[o] = true
	}
	names := slices.Sorted(maps.Keys(h.seqs))
	for _, name := range names {
		hs := h.seqs[name]
		if hs.origin == "" || hs.attach || dropped[hs.origin] || len(hs.alters) == 0 && !hs.moved {
			continue
		}
		origin := hs.origin
		var before sequence.Info // this database's view
		err := cache.Change(ctx, origin, func(ctx context.Context) error {
			var err error
			if before, _, err = s.describe(ctx, origin); err != nil {
				return err
			}
			if hs.moved && !hs.reset && before.Position != hs.base {
				return &sequence.Error{Code: sequence.CodeSerializationFailure, Kind: sequence.ErrConflict, Message: fmt.Sprintf(
					"seqshim: sequence %q was used by another session while this transaction altered it and drew from it; retry the transaction", sequence.RelName(origin))}
			}
			undo = append(undo, func(ctx context.Context) error { return s.restore(ctx, origin, before) })
			for _, c := range hs.alters {
				if err := s.alterStore(ctx, origin, c); err != nil {
					return err
				}
			}
			if hs.moved {
				_, err = st.SetVal(ctx, origin, hs.pos.Last, hs.pos.Called)
			}
			return err
		})
		if err != nil {
			return undo, s.eng.storeErr(err)
		}
	}
	h.gone = map[string]bool{}
	for _, origin := range uniqueNames(h.drops) {
		var before sequence.Info // the store's, every database's view in it
		var dropped bool
		err := cache.Change(ctx, origin, func(ctx context.Context) error {
			var err error
			if before, err = st.Describe(ctx, origin); err != nil {
				return err
			}
			dropped, err = s.undeclare(ctx, origin)
			return err
		})
		if errors.Is(err, sequence.ErrNotFound) {
			continue // dropped meanwhile by someone else: as asked
		}
		if err != nil {
			return undo, s.eng.storeErr(err)
		}
		h.gone[origin] = dropped
		undo = append(undo, func(ctx context.Context) error {
			if !dropped {
				// The counter lives on: this database's view comes back.
				view, _ := before.Spec.View(s.dbID)
				m := s.viewMember(view.OwnedBy, view.Defaults)
				m.Native = nativeRange(before.Spec, s.dbID)
				_, err := s.eng.store.Attach(ctx, origin, m, before.Spec)
				return err
			}
			// Back where it was, so nothing handed out comes again.
			err := st.Create(ctx, origin, before.Spec, before.Position)
			cache.Invalidate(origin)
			return err
		})
	}
	for _, r := range h.renames {
		if dropped[r.origin] {
			continue
		}
		err := cache.Change(ctx, r.from, func(ctx context.Context) error { return st.Rename(ctx, r.from, r.to) })
		if err != nil {
			return undo, s.eng.storeErr(err)
		}
		cache.Invalidate(r.to)
		undo = append(undo, func(ctx context.Context) error {
			err := cache.Change(ctx, r.to, func(ctx context.Context) error { return st.Rename(ctx, r.to, r.from) })
			cache.Invalidate(r.from)
			return err
		})
	}
	for _, name := range names {
		hs := h.seqs[name]
		if hs.origin != "" && !hs.attach {
			continue
		}
		attached, err := s.declare(ctx, name, hs.spec, hs.pos)
		if err != nil {
			return undo, s.eng.storeErr(err)
		}
		hs.attached = attached
		if !attached {
			cache.Invalidate(name) // it may remember "does not exist"
		}
		undo = append(undo, func(ctx context.Context) error {
			return cache.Change(ctx, name, func(ctx context.Context) error {
				_, err := s.undeclare(ctx, name)
				return err
			})
		})
	}
	return undo, nil
}

// restore puts a store sequence's spec back as it was before the
// transaction altered it (this database's view too), and its position too
// when nobody drew from it since: never behind a value handed out.
func (s *Session[A]) restore(ctx context.Context, name string, before sequence.Info) error {
	e := s.eng
	return e.cache.Change(ctx, name, func(ctx context.Context) error {
		sp := before.Spec
		c := sequence.Clauses{Type: &sp.Type, Increment: &sp.Increment, MinValue: &sp.Min, MaxValue: &sp.Max,
			Start: &sp.Start, Cache: &sp.Cache, Cycle: &sp.Cycle, OwnedBy: &sp.OwnedBy, Defaults: &sp.Defaults}
		now, err := e.store.Describe(ctx, name)
		if err != nil {
			return err
		}
		if err := s.alterStore(ctx, name, c); err != nil {
			return err
		}
		if now.Position != before.Position && !passed(sp, now.Position, before.Position) {
			_, err = e.store.SetVal(ctx, name, before.Position.Last, before.Position.Called)
		}
		return err
	})
}

// passed reports whether position now is beyond before in the sequence's
// direction (ignoring CYCLE): putting before back would hand values again.
func passed(sp sequence.Spec, now, before sequence.Position) bool {
	if sp.Increment > 0 {
		return now.Last > before.Last
	}
	return now.Last < before.Last
}

// undo runs undo functions, last first, and joins their errors.
func (s *Session[A]) undo(ctx context.Context, undo []undoFn) error {
	ctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), abortTimeout)
	defer cancel()
	var errs []error
	for i := len(undo) - 1; i >= 0; i-- {
		if err := undo[i](ctx); err != nil {
			errs = append(errs, err)
		}
	}
	return errors.Join(errs...)
}

// Hook is a step of the commit protocol, for fault tests.
type Hook int

// Steps of the commit protocol.
const (
	HookBeforeStore  Hook = iota + 1 // COMMIT asked; nothing applied yet
	HookStoreApplied                 // the store has the DDL; the database has not committed
	HookCommitted                    // both committed
)

// testHook is called at each step of the commit protocol; tests of this
// module set it (SetTestHook) to kill the process there.
var testHook = func(Hook) {}

// SetTestHook sets the function called at each step of the commit protocol.
// For fault tests only: not safe to call while sessions commit.
func SetTestHook(f func(Hook)) {
	if f == nil {
		f = func(Hook) {}
	}
	testHook = f
}

var errMixedControl = &sequence.Error{Code: sequence.CodeFeatureNotSupported, Kind: sequence.ErrInvalid,
	Message: "seqshim: a transaction-control statement in a multi-statement string after sequence DDL in the transaction is not supported; send COMMIT, ROLLBACK or SAVEPOINT on its own"}

// checkControl refuses a plan whose statements sent to the database end or
// cut back a transaction that holds, or is about to hold, sequence DDL.
func (s *Session[A]) checkControl(pl *rewrite.Plan) error {
	hasDDL := s.tx != nil
	for i := range pl.Statements {
		if pl.Statements[i].Kind == rewrite.SequenceDDL {
			hasDDL = true
		}
	}
	if !hasDDL {
		return nil
	}
	for i := range pl.Statements {
		st := &pl.Statements[i]
		if st.Kind != rewrite.PassThrough && st.Kind != rewrite.Rewrite {
			continue
		}
		if st.Tx.Op != rewrite.TxNone {
			return errMixedControl
		}
	}
	return nil
}
