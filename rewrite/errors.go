package rewrite

import (
	"fmt"
	"github.com/seqshim/seqshim/sequence"
)

// codeSyntaxError is PostgreSQL's SQLSTATE for a syntax error.
const codeSyntaxError = "42601"

// unsupported is a 0A000 error: a call seqshim cannot serve where it is.
func unsupported(format string, args ...any) *sequence.Error {
	return &sequence.Error{Code: sequence.CodeFeatureNotSupported, Message: fmt.Sprintf(format, args...), Kind: ErrUnsupported}
}

// syntaxErr is a 42601 error with a message of its own.
func syntaxErr(format string, args ...any) *sequence.Error {
	return &sequence.Error{Code: codeSyntaxError, Message: fmt.Sprintf(format, args...), Kind: sequence.ErrInvalid}
}

// sqlError is an error with any SQLSTATE, for PostgreSQL's other DDL errors.
func sqlError(code, format string, args ...any) *sequence.Error {
	return &sequence.Error{Code: code, Message: fmt.Sprintf(format, args...), Kind: sequence.ErrInvalid}
}
