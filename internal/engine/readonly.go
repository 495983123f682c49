package engine

import (
	"context"

	"github.com/seqshim/seqshim/rewrite"
	"github.com/seqshim/seqshim/sequence"
)

// PostgreSQL refuses nextval, setval and sequence DDL in a read-only
// transaction (BEGIN READ ONLY, SET TRANSACTION READ ONLY,
// default_transaction_read_only, a hot standby) with 25006; currval and
// lastval are allowed. The session knows the mode without a round trip
// outside a transaction block: PostgreSQL 14 and later report
// default_transaction_read_only and in_hot_standby as parameter statuses.
// Inside one, the mode is known from the front end's BeginTx
// ([Session.Began]) or asked once (SHOW transaction_read_only) at the first
// statement that needs it, and asked again after a statement that may have
// changed it.

// txMode is what a session knows of its transaction block's mode.
type txMode uint8

const (
	modeUnknown txMode = iota // ask the database
	modeWrite
	modeReadOnly
	modeDefault // in a string: as a new transaction starts, by default
	modeUnclear // in a string: a statement before may have changed it
)

// codeReadOnly is PostgreSQL's read_only_sql_transaction.
const codeReadOnly = "25006"

func readOnlyError(what string) error {
	return &sequence.Error{Code: codeReadOnly, Kind: sequence.ErrInvalid,
		Message: "cannot execute " + what + " in a read-only transaction"}
}

// beganMode records the mode of a transaction block the front end began.
func (s *Session[A]) beganMode(readOnly bool) {
	switch {
	case s.db == nil:
	case readOnly || s.defaultReadOnly():
		s.txMode = modeReadOnly
	default:
		s.txMode = modeWrite
	}
}

// defaultReadOnly reports whether a new transaction is read-only, from the
// parameters the server reports. It reads them once between two
// statements that reach the database ([Session.heardFrom]): the server
// reports a change only in answer to one.
//
// A server that is not a hot standby never becomes one while the session
// lasts (a standby is promoted, a primary is not demoted without a
// restart), so once in_hot_standby reads off (or is never reported, before
// PostgreSQL 14) only default_transaction_read_only is read again.
// Session.drawAgain calls it too, before it draws.
func (s *Session[A]) defaultReadOnly() bool {
	if s.reports != nil {
		// A report is counted as its bytes are read, perhaps into
		// pgx's buffer ahead of pgconn taking it (one the server sent
		// on its own, after a ReadyForQuery): the map is read now, and
		// once more after the next round trip (heardFrom), by which
		// pgconn has taken everything read before it.
		if n := s.reports.Load(); n != s.roReports {
			s.roReports, s.roDefault, s.roRecheck = n, modeUnknown, true
		}
	}
	if s.roDefault == modeUnknown {
		s.roDefault = modeWrite
		if s.db.ParameterStatus("default_transaction_read_only") == "on" {
			s.roDefault = modeReadOnly
		} else if !s.primary {
			if s.db.ParameterStatus("in_hot_standby") == "on" {
				s.roDefault = modeReadOnly
			} else {
				s.primary = true
			}
		}
	}
	return s.roDefault == modeReadOnly
}

// heardFrom notes that the database may have answered since the session
// last read what it reports (parameter statuses): a statement went to it,
// or is about to, or the transaction block began or ended. The lifecycle
// calls it for every text that reaches the database ([Session.Run],
// [Session.Finish]), and so do the transaction methods, [Session.Fail] and
// [Session.DatabaseError]. A round trip the session does not see — the
// inner driver's ping before it reuses a pooled connection — can only bring
// a change the server makes on its own (a configuration reload, a
// standby's promotion): the session sees that at its next statement that
// reaches the database.
func (s *Session[A]) heardFrom() {
	if s.reports == nil || s.roRecheck {
		s.roDefault, s.roRecheck = modeUnknown, false
	}
}

// readOnly reports whether the statement being evaluated runs in a
// read-only transaction.
func (s *Session[A]) readOnly(ctx context.Context) (bool, error) {
	if s.db == nil {
		return false, nil
	}
	switch s.planMode {
	case modeDefault:
		return s.defaultReadOnly(), nil
	case modeUnclear:
		return false, &sequence.Error{Code: sequence.CodeFeatureNotSupported, Kind: rewrite.ErrUnsupported,
			Message: "seqshim: cannot tell whether the transaction is read-only after " + s.planChange +
				" in the same string: send that statement separately"}
	}
	if s.db.TxStatus() != 'T' {
		s.txMode = modeUnknown
		return s.defaultReadOnly(), nil
	}
	if s.txMode == modeUnknown {
		row, err := s.queryRow(ctx, "SHOW transaction_read_only")
		if err != nil {
			return false, err
		}
		s.txMode = modeWrite
		if len(row) == 1 && row[0] == "on" {
			s.txMode = modeReadOnly
		}
	}
	return s.txMode == modeReadOnly, nil
}

// writable returns PostgreSQL's error for nextval or setval (what) of
// sequence name in a read-only transaction: 42P01 first if it does not
// exist, as PostgreSQL opens the sequence before it checks.
func (s *Session[A]) writable(ctx context.Context, name, what string) error {
	ro, err := s.readOnly(ctx)
	if err != nil || !ro {
		return err
	}
	if name != "" {
		if err := s.lookUp(ctx, name); err != nil {
			return s.eng.storeErr(err)
		}
	}
	if v := s.dmlVerb; v != "" {
		what = v // PostgreSQL refuses the statement before it runs
	}
	return readOnlyError(what)
}

// ddlWritable returns PostgreSQL's error for sequence DDL in a read-only
// transaction, which comes before any other.
func (s *Session[A]) ddlWritable(ctx context.Context, d *rewrite.DDL) error {
	ro, err := s.readOnly(ctx)
	if err != nil || !ro {
		return err
	}
	return readOnlyError(d.Op.String())
}
