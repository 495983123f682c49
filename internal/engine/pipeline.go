// Pipelines: a front end that sends several statements at once (pgx's
// batches) may run them through the lifecycle one after another and send
// them together, when each is a plain statement: its sequence work done
// by Run needs nothing of the statements before it but their own draws,
// and its Finish nothing of the database but its answer.

package engine

import (
	"context"
	"errors"

	"github.com/jackc/pgx/v5/pgconn"

	"github.com/seqshim/seqshim/rewrite"
)

// Pipelinable reports whether query may be run now and sent later with
// others, its Finish called once the database answered: the session is
// ordinary (no transaction of its own with held DDL, no temporary
// relations, nothing left to drop, not in shadow mode), and query is one
// statement answered by Run from the store alone (SELECT nextval('s')), or
// one that goes to the database, as written or with its calls rewritten
// into values, without any effect on the session or the catalog (no DDL,
// no transaction control, no search_path change).
// False when it cannot tell, as for a text that fails to plan: the front
// end then runs it alone.
func (s *Session[A]) Pipelinable(ctx context.Context, query string) (ok bool) {
	defer func() {
		if recover() != nil {
			ok = false // Run will say what went wrong
		}
	}()
	if !s.ordinary() {
		return false
	}
	p, err := s.statement(ctx, query)
	if err != nil {
		return false
	}
	if p == passThrough {
		return true
	}
	pl := p.plan
	if pl == nil || len(pl.Statements) != 1 || pl.Err != nil || pl.Effects() || pl.Redefines || pl.HasTables() ||
		p.session || p.path != 0 || p.pathErr != nil || p.temp != (tempOrder{}) || p.drawsTemp || p.mayDraw || p.tempTarget {
		return false
	}
	st := &pl.Statements[0]
	switch {
	case st.Temps != 0:
		return false
	case st.Kind == rewrite.Local:
		return !st.Fallback() // answered by Run, from the store alone
	case st.Kind != rewrite.PassThrough && st.Kind != rewrite.Rewrite:
		return false
	}
	for i := range st.Calls {
		if st.Calls[i].Temp {
			return false
		}
	}
	return true
}

// AbortSQL is a statement that fails with err, as the application sees it
// (its SQLSTATE and message): a front end that sends statements together,
// one of which failed in Run, sends it in that one's place, so that the
// database answers the statements before it, then fails there, as it
// would have, and rolls back what one implicit transaction holds.
func AbortSQL(err error) string {
	code, msg := codeRaiseException, "seqshim: "+err.Error()
	var pe *pgconn.PgError
	if errors.As(err, &pe) {
		code, msg = pe.Code, pe.Message
	}
	return raiseSQL("EXCEPTION", code, msg)
}
