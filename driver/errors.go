package driver

import (
	"database/sql/driver"
	"errors"
	"fmt"
)

// engineErr is what database/sql gets for an error of the engine, which has
// already made it what the application would get from the database
// (engine.Session.Fail). Its chain is kept, except that nothing ever matches
// driver.ErrBadConn: database/sql would retry the statement on another
// connection, drawing values again or repeating DDL.
func engineErr(err error) error {
	if errors.Is(err, driver.ErrBadConn) {
		return fmt.Errorf("seqshim: %v", err) // %v: cut the chain on purpose
	}
	return err
}
