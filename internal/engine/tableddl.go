package engine

import (
	"context"
	"errors"

	"github.com/seqshim/seqshim/sequence"
)

// Table DDL that creates, changes or drops store-backed column defaults
// (serial and identity columns, DEFAULT nextval of a store sequence): the
// database receives the statement without the defaults, and the store gets
// the sequences and the record of which columns draw from them. The two
// commit together: outside a transaction block the session wraps the
// statement in one (BEGIN, the statement, then the commit protocol of
// held DDL: the store first, then COMMIT — see the package doc); inside
// one, the store's part is held until the transaction commits, like any
// sequence DDL.

// runTableDDL sends dbText (the table statement without its store
// defaults; "" for nothing) to the database, then applies ops — sequence
// DDL on store sequences, with their column defaults and OWNED BY — as one
// unit with it.
func (s *Session[A]) runTableDDL(ctx context.Context, dbText string, ops []func(context.Context) error) error {
	if s.db == nil {
		return errors.New("seqshim: table DDL with store-backed column defaults needs the inner driver's session (pgx)")
	}
	wrap := !s.inTx()
	if wrap {
		if err := s.db.Exec(ctx, "BEGIN"); err != nil {
			return err
		}
	}
	rollback := func(ctx context.Context) error { return s.db.Exec(context.WithoutCancel(ctx), "ROLLBACK") }
	fail := func(err error) error {
		if wrap {
			return errors.Join(err, s.Rollback(ctx, rollback))
		}
		return err
	}
	if dbText != "" {
		if err := s.db.Exec(ctx, dbText); err != nil {
			return fail(err)
		}
	}
	for _, op := range ops {
		if err := op(ctx); err != nil {
			return fail(err)
		}
	}
	if !wrap {
		return nil
	}
	return s.Commit(ctx, func(ctx context.Context) error { return s.db.Exec(ctx, "COMMIT") }, rollback)
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
		d := hs.spec.Defaults
		for _, c := range hs.alters {
			if c.Defaults != nil {
				d = *c.Defaults
			}
		}
		if hs.local || d != nil {
			defs[name] = d
		}
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
