package rewrite

import (
	"fmt"

	"github.com/seqshim/seqshim/sequence"
)

// SQLSTATE codes of DDL errors only the rewrite reports; the codes of
// sequence errors are sequence.Code*.
const (
	codeInvalidTextRepresentation = "22P02" // a number that does not parse
	codeInternalError             = "XX000" // PostgreSQL's own elog(ERROR) code
)

// unsupported is a 0A000 error: a call seqshim cannot serve where it is.
func unsupported(format string, args ...any) *sequence.Error {
	return &sequence.Error{Code: sequence.CodeFeatureNotSupported, Message: fmt.Sprintf(format, args...), Kind: ErrUnsupported}
}

// syntaxErr is a 42601 error with a message of its own.
func syntaxErr(format string, args ...any) *sequence.Error {
	return &sequence.Error{Code: sequence.CodeSyntaxError, Message: fmt.Sprintf(format, args...), Kind: sequence.ErrInvalid}
}

// sqlError is an error with any SQLSTATE, for PostgreSQL's other DDL errors.
func sqlError(code, format string, args ...any) *sequence.Error {
	return &sequence.Error{Code: code, Message: fmt.Sprintf(format, args...), Kind: sequence.ErrInvalid}
}
