package sequence

import (
	"errors"
	"fmt"
	"strings"
	"unicode/utf8"
)

// Sentinel kinds. Every *Error wraps exactly one of them, so callers test the
// kind with errors.Is and keep PostgreSQL's message text in Error().
var (
	// ErrNotFound: the sequence does not exist (SQLSTATE 42P01).
	ErrNotFound = errors.New("sequence does not exist")
	// ErrExists: a sequence of that name exists already (SQLSTATE 42P07).
	ErrExists = errors.New("sequence already exists")
	// ErrLimit: the sequence reached MAXVALUE or MINVALUE without CYCLE (SQLSTATE 2200H).
	ErrLimit = errors.New("sequence limit reached")
	// ErrInvalid: a sequence definition or argument PostgreSQL would reject
	// (SQLSTATE 22023, 22003, 42601, 42602 or 0A000).
	ErrInvalid = errors.New("invalid sequence parameter")
	// ErrNotDefined: currval or lastval before nextval in this session (SQLSTATE 55000).
	ErrNotDefined = errors.New("value not yet defined in this session")
	// ErrConflict: a store lost a compare-and-set race more often than it retries;
	// the operation had no effect and may be repeated.
	ErrConflict = errors.New("concurrent update of sequence")
	// ErrMisconfigured: the store's configuration is wrong (no table, a file
	// that cannot be opened, no or rejected credentials, no region, missing
	// permissions); retrying will not help, a change of configuration will.
	// Stores mark such errors with [Misconfigured]; they are not *Error values.
	ErrMisconfigured = errors.New("store misconfigured")
	// ErrDailyLimit: the sequence handed out every value its daily limit
	// allows this UTC day (SQLSTATE 54000); the limit resets at midnight UTC.
	ErrDailyLimit = errors.New("sequence daily limit reached")
	// ErrThrottled: the store refused a request for want of capacity
	// (DynamoDB's ThrottlingException or ProvisionedThroughputExceededException,
	// a busy SQLite file, PostgreSQL's lock_not_available 55P03). It is
	// transient, and a cache takes it as back-pressure: it asks the store less
	// often. Stores mark such errors with [Throttled]; they are not *Error
	// values.
	ErrThrottled = errors.New("store throttled the request")
)

// SQLSTATE codes of sequence errors, PostgreSQL's own.
const (
	CodeUndefinedTable           = "42P01"
	CodeDuplicateTable           = "42P07"
	CodeLimitExceeded            = "2200H"
	CodeInvalidParameterValue    = "22023"
	CodeNumericOutOfRange        = "22003"
	CodeInvalidName              = "42602"
	CodeSyntaxError              = "42601"
	CodeObjectNotInState         = "55000"
	CodeFeatureNotSupported      = "0A000"
	CodeSerializationFailure     = "40001"
	CodeProgramLimitExceeded     = "54000"
	CodeCharacterNotInRepertoire = "22021"
)

// Error is a sequence error as PostgreSQL reports it: a SQLSTATE and the
// server's exact message text. It wraps one of the sentinel kinds above.
type Error struct {
	Code    string // SQLSTATE, e.g. "2200H"
	Message string // PostgreSQL's message text, e.g. `nextval: reached maximum value of sequence "s" (10)`
	Kind    error  // ErrNotFound, ErrLimit, ...
	Detail  string // PostgreSQL's DETAIL, if any
	Hint    string // PostgreSQL's HINT, if any
}

func (e *Error) Error() string { return e.Message }

// Unwrap returns the error's kind.
func (e *Error) Unwrap() error { return e.Kind }

// SQLState returns the PostgreSQL SQLSTATE code, the same method name
// *pgconn.PgError has.
func (e *Error) SQLState() string { return e.Code }

func newError(kind error, code, format string, args ...any) *Error {
	return &Error{Code: code, Message: fmt.Sprintf(format, args...), Kind: kind}
}

// NotFoundError is PostgreSQL's error for a missing relation.
func NotFoundError(name string) *Error {
	return newError(ErrNotFound, CodeUndefinedTable, `relation "%s" does not exist`, displayName(name))
}

// ConflictError is a store's error for an update of a sequence that kept
// losing compare-and-set races to other processes (SQLSTATE 40001,
// transient: the caller may try again).
func ConflictError(name string) *Error {
	return newError(ErrConflict, CodeSerializationFailure, `could not update sequence "%s": too many concurrent updates, try again`, RelName(name))
}

// ExistsError is PostgreSQL's error for CREATE SEQUENCE of an existing name.
func ExistsError(name string) *Error {
	return newError(ErrExists, CodeDuplicateTable, `relation "%s" already exists`, RelName(name))
}

// LimitError is PostgreSQL's error for nextval past MAXVALUE (or MINVALUE for
// a descending sequence) without CYCLE.
func LimitError(name string, spec Spec) *Error {
	if spec.Increment > 0 {
		return newError(ErrLimit, CodeLimitExceeded, `nextval: reached maximum value of sequence "%s" (%d)`, RelName(name), spec.Max)
	}
	return newError(ErrLimit, CodeLimitExceeded, `nextval: reached minimum value of sequence "%s" (%d)`, RelName(name), spec.Min)
}

// DailyLimitError is the error of a reservation refused because sequence
// name handed out the limit values its daily limit allows on day (UTC): SQLSTATE
// 54000 (program_limit_exceeded), wrapping [ErrDailyLimit], with a message
// naming the sequence, the limit and when it resets, and a hint on how to
// change it.
func DailyLimitError(name string, limit int64, day Day) *Error {
	e := newError(ErrDailyLimit, CodeProgramLimitExceeded,
		`nextval: sequence "%s" reached its daily limit of %d values; the limit resets at %s`,
		RelName(name), limit, (day + 1).Start().Format("2006-01-02 15:04:05 UTC"))
	e.Detail = fmt.Sprintf("%d values of sequence %s were reserved on %s (UTC).", limit, name, day)
	e.Hint = fmt.Sprintf("Raise the limit with: seqctl alter %s --daily-limit N (or remove it with --no-daily-limit).", name)
	return e
}

// InvalidEncodingError is PostgreSQL's error for a text that is not
// UTF-8, the client encoding pgx requires: it names the bytes of the
// first bad character (all those its first byte announces), as
// report_invalid_encoding does, and a NUL byte is one too.
func InvalidEncodingError(text string) *Error {
	i := 0
	for i < len(text) {
		r, n := utf8.DecodeRuneInString(text[i:])
		if r == utf8.RuneError && n <= 1 || r == 0 {
			break
		}
		i += n
	}
	if i == len(text) {
		i = 0 // a valid text: the error names its first byte
	}
	n := 1 // pg_utf_mblen: the length the first byte announces
	if i < len(text) {
		switch c := text[i]; {
		case c&0xe0 == 0xc0:
			n = 2
		case c&0xf0 == 0xe0:
			n = 3
		case c&0xf8 == 0xf0:
			n = 4
		}
	}
	var b strings.Builder
	for j := i; j < i+n && j < len(text); j++ {
		if j > i {
			b.WriteByte(' ')
		}
		fmt.Fprintf(&b, "0x%02x", text[j])
	}
	return newError(ErrInvalid, CodeCharacterNotInRepertoire, `invalid byte sequence for encoding "UTF8": %s`, b.String())
}

// CurrvalNotDefinedError is PostgreSQL's error for currval before nextval.
func CurrvalNotDefinedError(name string) *Error {
	return newError(ErrNotDefined, CodeObjectNotInState, `currval of sequence "%s" is not yet defined in this session`, RelName(name))
}

// LastvalNotDefinedError is PostgreSQL's error for lastval before any nextval.
func LastvalNotDefinedError() *Error {
	return newError(ErrNotDefined, CodeObjectNotInState, "lastval is not yet defined in this session")
}

// Misconfigured marks err, a store error that names the store and the fix, as
// a configuration error: errors.Is(result, [ErrMisconfigured]) holds, errors.Is
// and errors.As still reach err's own chain, and the message is err's,
// unchanged. Misconfigured(nil) is nil.
func Misconfigured(err error) error {
	if err == nil {
		return nil
	}
	return &misconfigured{err}
}

type misconfigured struct{ err error }

func (e *misconfigured) Error() string   { return e.err.Error() }
func (e *misconfigured) Unwrap() []error { return []error{ErrMisconfigured, e.err} }

// Throttled marks err, a store error, as the store refusing a request for
// want of capacity: errors.Is(result, [ErrThrottled]) holds, errors.Is and
// errors.As still reach err's own chain, and the message is err's,
// unchanged. Throttled(nil) is nil.
func Throttled(err error) error {
	if err == nil {
		return nil
	}
	return &throttled{err}
}

type throttled struct{ err error }

func (e *throttled) Error() string   { return e.err.Error() }
func (e *throttled) Unwrap() []error { return []error{ErrThrottled, e.err} }

// IsTransient reports whether err may go away by itself (a timeout, a
// throttled ([ErrThrottled]) or unreachable store, a lost compare-and-set race), as opposed to
// a definitive answer such as ErrNotFound, ErrLimit or ErrDailyLimit (which
// lasts until midnight UTC: retrying sooner cannot succeed), or a
// configuration error ([ErrMisconfigured]), which waiting does not fix either.
func IsTransient(err error) bool {
	if errors.Is(err, ErrMisconfigured) {
		return false
	}
	var e *Error
	if errors.As(err, &e) {
		return errors.Is(e.Kind, ErrConflict)
	}
	return true
}
