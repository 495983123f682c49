package sqlstore

import (
	"errors"
	"fmt"
	"testing"

	"github.com/jackc/pgx/v5/pgconn"

	"github.com/seqshim/seqshim/sequence"
)

// sqliteErr has the Code method of modernc.org/sqlite's *Error.
type sqliteErr int

func (e sqliteErr) Error() string { return fmt.Sprintf("sqlite error %d", int(e)) }
func (e sqliteErr) Code() int     { return int(e) }

// TestWrapThrottled: SQLite busy or locked and PostgreSQL's lock timeout
// are sequence.ErrThrottled (transient, back-pressure for a cache); other
// errors are not.
func TestWrapThrottled(t *testing.T) {
	tests := []struct {
		name string
		err  error
		want bool
	}{
		{"sqlite busy", sqliteErr(5), true},
		{"sqlite busy snapshot", sqliteErr(5 | 2<<8), true},
		{"sqlite locked", sqliteErr(6), true},
		{"sqlite i/o error", sqliteErr(10), false},
		{"postgres lock timeout", &pgconn.PgError{Code: "55P03", Message: "canceling statement due to lock timeout"}, true},
		{"postgres serialization failure", &pgconn.PgError{Code: "40001"}, false},
		{"other", errors.New("connection reset"), false},
	}
	s := &Store{where: "SQLite database", explain: func(error) (string, bool) { return "", false }}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			err := s.wrap("reserve", "s", tt.err)
			if got := errors.Is(err, sequence.ErrThrottled); got != tt.want {
				t.Errorf("wrap(%v): errors.Is ErrThrottled = %v, want %v", tt.err, got, tt.want)
			}
			if !errors.Is(err, tt.err) || !sequence.IsTransient(err) {
				t.Errorf("wrap(%v) = %v: want a transient error wrapping the cause", tt.err, err)
			}
		})
	}
}
