package rewrite

import (
	"errors"
	"strconv"
	"strings"

	"github.com/seqshim/seqshim/sequence"
)

// SQLSTATE codes of errors in constant arguments of sequence calls.
const codeUndefinedFunction = "42883"

// isNull reports whether tokens [a, b) are a NULL literal, optionally cast.
func (s *stmt) isNull(a [2]int) bool {
	if !s.is(a[0], "null") || s.tok(a[0]).kind != tIdent {
		return false
	}
	for i := a[0] + 1; i < a[1]; i += 2 {
		if s.tok(i).kind != tCast || !s.isName(i+1) {
			return false
		}
	}
	return true
}

// valueOperand reads setval's value (args[1]) in the call spanning tokens
// [i, end]: a constant or a bind parameter. A constant PostgreSQL cannot
// read as bigint fails as there: a string with its input error (22P02,
// 22003), a number that is not an integer or does not fit a bigint with
// the failed function lookup of setval(…, numeric) (42883).
func (s *stmt) valueOperand(args [][2]int, i, end int) (Operand, error) {
	a := args[1]
	if o, ok := s.intOperand(a); ok {
		return o, nil
	}
	t := s.tok(a[0])
	switch {
	case t.kind == tString && s.casts(a[0]+1, a[1], intTypes...):
		if v, ok := s.l.stringValue(t); ok {
			_, err := ParseInt8(v)
			return Operand{}, err
		}
	case t.kind == tNumber && a[1] == a[0]+1, (s.punct(a[0], '-') || s.punct(a[0], '+')) && s.tok(a[0]+1).kind == tNumber && a[1] == a[0]+2:
		types := make([]string, len(args))
		for k, arg := range args {
			types[k] = s.argType(arg)
		}
		types[1] = "numeric"
		return Operand{}, sqlError(codeUndefinedFunction, "function setval(%s) does not exist", strings.Join(types, ", "))
	}
	return Operand{}, unsupported("the value of %s must be a constant or a bind parameter: compute it first and pass it as a parameter", s.src(i, end+1))
}

// isCalledOperand reads setval's is_called: a string PostgreSQL cannot
// read as boolean fails with its input error (22P02).
func (s *stmt) isCalledOperand(a [2]int, i, end int) (Operand, error) {
	if o, ok := s.boolOperand(a); ok {
		return o, nil
	}
	if t := s.tok(a[0]); t.kind == tString && s.casts(a[0]+1, a[1], "bool", "boolean") {
		if v, ok := s.l.stringValue(t); ok {
			_, err := ParseBool(v)
			return Operand{}, err
		}
	}
	return Operand{}, unsupported("the is_called argument of %s must be a constant or a bind parameter", s.src(i, end+1))
}

// argType names the type PostgreSQL's function lookup sees for a constant
// argument: unknown for an uncast string or parameter, else its cast.
func (s *stmt) argType(a [2]int) string {
	last := a[1] - 1
	if last > a[0] && s.tok(last-1).kind == tCast {
		switch w := strings.ToLower(s.text(last)); w {
		case "varchar":
			return "character varying"
		case "bool":
			return "boolean"
		case "int8":
			return "bigint"
		default:
			return w
		}
	}
	switch t := s.tok(a[0]); {
	case t.kind == tNumber:
		return "integer"
	case s.isAny(a[0], "true", "false"):
		return "boolean"
	}
	return "unknown"
}

// ParseInt8 reads text as PostgreSQL's bigint input does (int8in):
// surrounding white space, an optional sign and decimal digits; otherwise
// 22P02, and 22003 when the value does not fit.
func ParseInt8(text string) (int64, error) {
	v, err := strconv.ParseInt(strings.TrimSpace(text), 10, 64)
	if err == nil {
		return v, nil
	}
	if errors.Is(err, strconv.ErrRange) {
		return 0, sqlError(sequence.CodeNumericOutOfRange, "value \"%s\" is out of range for type bigint", text)
	}
	return 0, sqlError(codeInvalidTextRepresentation, "invalid input syntax for type bigint: \"%s\"", text)
}

// ParseBool reads text as PostgreSQL's boolean input does (boolin):
// surrounding white space, any case, t/true/y/yes/on/1 and f/false/n/no/off/0
// or a prefix of them that is not ambiguous; otherwise 22P02.
func ParseBool(text string) (bool, error) {
	v := strings.ToLower(strings.TrimSpace(text))
	switch v {
	case "t", "tr", "tru", "true", "y", "ye", "yes", "on", "1":
		return true, nil
	case "f", "fa", "fal", "fals", "false", "n", "no", "of", "off", "0":
		return false, nil
	}
	return false, sqlError(codeInvalidTextRepresentation, "invalid input syntax for type boolean: \"%s\"", text)
}
