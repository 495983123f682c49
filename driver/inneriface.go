package driver

import (
	"context"
	"database/sql/driver"
)

// innerIfaces are an inner connection's optional interfaces, looked up once,
// and the methods that forward to the ones seqshim passes through as they
// are (Ping, CheckNamedValue, ResetSession, IsValid). The seqshim
// connection and the shadow-mode one both embed it.
type innerIfaces struct {
	execer    driver.ExecerContext
	queryer   driver.QueryerContext
	preparer  driver.ConnPrepareContext
	beginner  driver.ConnBeginTx
	pinger    driver.Pinger
	checker   driver.NamedValueChecker
	resetter  driver.SessionResetter
	validator driver.Validator
}

func lookupIfaces(inner driver.Conn) innerIfaces {
	var f innerIfaces
	f.execer, _ = inner.(driver.ExecerContext)
	f.queryer, _ = inner.(driver.QueryerContext)
	f.preparer, _ = inner.(driver.ConnPrepareContext)
	f.beginner, _ = inner.(driver.ConnBeginTx)
	f.pinger, _ = inner.(driver.Pinger)
	f.checker, _ = inner.(driver.NamedValueChecker)
	f.resetter, _ = inner.(driver.SessionResetter)
	f.validator, _ = inner.(driver.Validator)
	return f
}

// Ping forwards to the inner connection, if it can ping.
func (f *innerIfaces) Ping(ctx context.Context) error {
	if f.pinger == nil {
		return nil
	}
	return f.pinger.Ping(ctx)
}

// CheckNamedValue forwards to the inner connection, so arguments reach it
// exactly as they would without seqshim (pgx accepts any value, including
// its own option arguments such as pgx.QueryExecMode).
func (f *innerIfaces) CheckNamedValue(nv *driver.NamedValue) error {
	if f.checker == nil {
		return driver.ErrSkip // database/sql's default conversion
	}
	return f.checker.CheckNamedValue(nv)
}

// ResetSession forwards to the inner connection. currval and lastval are
// kept: they belong to the physical session, which the pool reuses as is.
func (f *innerIfaces) ResetSession(ctx context.Context) error {
	if f.resetter == nil {
		return nil
	}
	return f.resetter.ResetSession(ctx)
}

// IsValid forwards to the inner connection, if it can tell.
func (f *innerIfaces) IsValid() bool {
	if f.validator == nil {
		return true
	}
	return f.validator.IsValid()
}
