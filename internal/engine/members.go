// Many databases, one id space: the databases that share a store share
// its counters, each with a catalog of its own over them (see
// sequence.Member). A session's sequence DDL declares and undeclares its own
// database: CREATE attaches it to a counter the store has, DROP detaches
// it, and the counter goes with its last database; OWNED BY and column
// defaults are each database's own view.

package engine

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"github.com/seqshim/seqshim/rewrite"
	"github.com/seqshim/seqshim/seqcache"
	"github.com/seqshim/seqshim/sequence"
)

// maxMemberTries bounds the retries of a membership change that raced with
// another database's (a sequence dropped or created between two reads).
const maxMemberTries = 8

// describe returns sequence name as this session's database sees it: its
// spec's view (sequence.Spec.View: this database's OWNED BY and column
// defaults) and whether the database has it at all — a member, or a
// sequence without members, which every database sees. A session without a
// database identity (the other dialects) sees every sequence.
func (s *Session[A]) describe(ctx context.Context, name string) (info sequence.Info, visible bool, err error) {
	info, err = s.eng.store.Describe(ctx, name)
	if err != nil {
		return info, false, err
	}
	info.Spec, visible = s.view(info.Spec)
	return info, visible, nil
}

// view is spec as this session's database sees it (see describe).
func (s *Session[A]) view(spec sequence.Spec) (sequence.Spec, bool) {
	if s.dbID == "" {
		return spec, true
	}
	return spec.View(s.dbID)
}

// exists reports whether this session's database has sequence name.
func (s *Session[A]) exists(ctx context.Context, name string) (bool, error) {
	_, visible, err := s.describe(ctx, name)
	if errors.Is(err, sequence.ErrNotFound) {
		return false, nil
	}
	if err != nil {
		return false, s.eng.storeErr(err)
	}
	return visible, nil
}

// sees reports whether this session sees store sequence name: one the open
// transaction created or kept, or one the store has for this database.
func (s *Session[A]) sees(ctx context.Context, name string) (bool, error) {
	if s.tx != nil {
		hs, storeName, err := s.heldCall(rewrite.Currval, name)
		switch {
		case err != nil:
			return false, nil // dropped or renamed away in this transaction
		case hs != nil:
			return true, nil
		}
		name = storeName
	}
	return s.exists(ctx, name)
}

// lookUp is PostgreSQL's look-up of sequence name in this session's
// database: 42P01 when it has none (the store may have it for others).
func (s *Session[A]) lookUp(ctx context.Context, name string) error {
	ok, err := s.exists(ctx, name)
	if err == nil && !ok {
		err = notHere(name)
	}
	return err
}

// notHere is the store's answer for a sequence this database has not
// declared: PostgreSQL's 42P01, as the database's own catalog has none.
func notHere(name string) error { return sequence.NotFoundError(name) }

// declare creates sequence name with spec at pos as this session's
// database's, or, when the store has a sequence of that name this database
// has not declared, attaches the database to it: the counter's shape must
// be spec's (sequence.CounterError otherwise), and it does not move. A
// sequence this database has already is sequence.ErrExists (42P07).
// attached reports that the counter was there.
func (s *Session[A]) declare(ctx context.Context, name string, spec sequence.Spec, pos sequence.Position) (attached bool, err error) {
	st := s.eng.store
	m := s.viewMember(spec.OwnedBy, spec.Defaults)
	if s.dbID != "" {
		spec.Members = []sequence.Member{m}
		spec.OwnedBy, spec.Defaults = "", nil
	}
	for range maxMemberTries {
		err := st.Create(ctx, name, spec, pos)
		if !errors.Is(err, sequence.ErrExists) || s.dbID == "" {
			return false, err
		}
		visible, err := s.exists(ctx, name)
		switch {
		case err != nil:
			return false, err
		case visible:
			return false, sequence.ExistsError(name)
		}
		_, err = s.eng.store.Attach(ctx, name, m, spec)
		if !errors.Is(err, sequence.ErrNotFound) {
			return err == nil, err
		}
		// Dropped since: create it.
	}
	return false, fmt.Errorf("seqshim: sequence %s: another database kept creating and dropping it", name)
}

// viewMember is this session's database as a member with the view ownedBy,
// defaults.
func (s *Session[A]) viewMember(ownedBy string, defaults []sequence.ColumnDefault) sequence.Member {
	return sequence.Member{DB: s.dbID, OwnedBy: ownedBy, Defaults: defaults}
}

// nativeRange is the range the store reserved for database db's native
// sequence (seqctl export of a shared counter), kept when a DDL statement
// replaces the database's view.
func nativeRange(spec sequence.Spec, db string) *sequence.NativeRange {
	m, _ := spec.Member(db)
	return m.Native
}

// undeclare removes this session's database from sequence name: dropped
// reports that it was the last, and the counter went with it.
func (s *Session[A]) undeclare(ctx context.Context, name string) (dropped bool, err error) {
	if s.dbID == "" {
		return true, s.eng.store.Drop(ctx, name)
	}
	return s.eng.store.Detach(ctx, name, s.dbID)
}

// setView replaces this database's view of sequence name: its OWNED BY,
// its column defaults, or both (nil: kept). A sequence without members
// (made before membership was kept) becomes this database's.
func (s *Session[A]) setView(ctx context.Context, name string, ownedBy *string, defaults *[]sequence.ColumnDefault) error {
	if s.dbID == "" {
		_, err := s.eng.store.Alter(ctx, name, sequence.Clauses{OwnedBy: ownedBy, Defaults: defaults})
		return err
	}
	for range maxMemberTries {
		info, visible, err := s.describe(ctx, name)
		if err != nil {
			return err
		}
		if !visible {
			return notHere(name)
		}
		m := s.viewMember(info.Spec.OwnedBy, info.Spec.Defaults)
		m.Native = nativeRange(info.Spec, s.dbID)
		if ownedBy != nil {
			m.OwnedBy = *ownedBy
		}
		if defaults != nil {
			m.Defaults = *defaults
		}
		_, err = s.eng.store.Attach(ctx, name, m, info.Spec)
		if !errors.Is(err, sequence.ErrExists) {
			return err
		}
		// The counter changed between the read and the attach (an ALTER
		// of another database): read it again.
	}
	return fmt.Errorf("seqshim: sequence %s: its counter kept changing", name)
}

// alterStore applies ALTER SEQUENCE clauses to store sequence name: the
// counter's (shared by every database) with the store's Alter, this
// database's OWNED BY and column defaults to its view. A change of a
// counter other databases share is told to the client in a notice.
func (s *Session[A]) alterStore(ctx context.Context, name string, c sequence.Clauses) error {
	ownedBy, defaults := c.OwnedBy, c.Defaults
	c.OwnedBy, c.Defaults = nil, nil
	if c != (sequence.Clauses{}) {
		info, err := s.eng.store.Alter(ctx, name, c)
		if err != nil {
			return err
		}
		s.noticeShared(ctx, info, "ALTER SEQUENCE")
	}
	if ownedBy != nil || defaults != nil {
		return s.setView(ctx, name, ownedBy, defaults)
	}
	return nil
}

// others reports whether databases other than this session's have
// declared sequence name.
func (s *Session[A]) others(info sequence.Info) bool {
	for _, m := range info.Spec.Members {
		if m.DB != s.dbID {
			return true
		}
	}
	return false
}

// here checks, before nextval draws from the sequence of h, that this
// session's database has it: PostgreSQL's 42P01 for a sequence the
// database's catalog lacks, though the store has it for other databases.
// It reads the store once per name and DDL generation of the engine,
// shared by the database's sessions in the process; nextval of the
// sequence the session checked last costs a comparison. A sequence another
// process undeclared for this database is seen at this engine's next DDL.
// held is true for a sequence the open transaction has (created, or
// attached to, not committed yet).
//
// A store that cannot be read does not fail nextval here: the check is
// made again at the next call, and the draw itself goes to the cache,
// which serves its block through a store outage as it always did (or
// fails with the outage's error). Meanwhile a nextval of a sequence this
// database lacks draws from the counter other databases share — unique
// values still — rather than fail with 42P01. Session.drawAgain checks
// its first two cases itself.
func (s *Session[A]) here(ctx context.Context, h *seqcache.Handle, held bool) error {
	if s.dbID == "" || held {
		return nil
	}
	g := s.eng.ddlGen.Load()
	if h == s.hereHandle && g == s.hereGen {
		return nil
	}
	name := h.Name()
	if v, ok := s.defs.known.Load(name); !ok || v.(uint64) != g {
		_, visible, err := s.describe(ctx, name)
		switch {
		case errors.Is(err, sequence.ErrNotFound) || err == nil && !visible:
			return notHere(name)
		case err != nil:
			return nil // unchecked: see above; checked again next time
		}
		s.defs.known.Store(name, g)
	}
	s.hereHandle, s.hereGen = h, g
	return nil
}

// sharedCounter reports whether CREATE SEQUENCE name in this database, in
// a transaction, is to attach to a counter the store has for other
// databases: then spec's counter must be that one's (CounterError). A
// sequence of this database's alone (one the transaction dropped before)
// is not: the transaction's new one is its own, as in PostgreSQL.
func (s *Session[A]) sharedCounter(ctx context.Context, name string, spec sequence.Spec) (bool, error) {
	if s.dbID == "" {
		return false, nil
	}
	info, err := s.eng.store.Describe(ctx, name)
	if errors.Is(err, sequence.ErrNotFound) {
		return false, nil
	}
	if err != nil {
		return false, s.eng.storeErr(err)
	}
	if !s.others(info) {
		return false, nil
	}
	if !info.Spec.SameCounter(spec) {
		return false, sequence.CounterError(name, info.Spec, info.Spec.Members)
	}
	return true, nil
}

// noticeShared tells the client, in a NOTICE as PostgreSQL's own, that what
// it did to sequence info (ALTER SEQUENCE, setval) changed the counter
// other databases share: they see it too. Sent on the session's database,
// it costs a round trip, only for shared counters.
func (s *Session[A]) noticeShared(ctx context.Context, info sequence.Info, what string) {
	if s.db == nil || !s.others(info) {
		return
	}
	var dbs []string
	for _, m := range info.Spec.Members {
		if m.DB != s.dbID {
			dbs = append(dbs, m.DB)
		}
	}
	msg := fmt.Sprintf("seqshim: %s changed the counter of sequence %q for the other databases that share it too (%s): they draw from one id space",
		what, sequence.RelName(info.Name), strings.Join(dbs, ", "))
	// A notice that cannot be sent changes nothing: the change stands.
	_, _ = s.db.Exec(ctx, raiseSQL("NOTICE", "00000", msg))
}
