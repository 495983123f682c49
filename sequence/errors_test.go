package sequence

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"testing"
)

func TestIsTransient(t *testing.T) {
	cause := fmt.Errorf("open /nope/seq.db: %w", fs.ErrNotExist)
	tests := []struct {
		name string
		err  error
		want bool
	}{
		{"network", errors.New("dial tcp 127.0.0.1:1: connection refused"), true},
		{"timeout", fmt.Errorf("reserve: %w", context.DeadlineExceeded), true},
		{"conflict", &Error{Code: CodeSerializationFailure, Kind: ErrConflict}, true},
		{"conflict error", ConflictError("s"), true},
		{"not found", NotFoundError("s"), false},
		{"limit", LimitError("s", DefaultSpec()), false},
		{"misconfigured", Misconfigured(cause), false},
		{"misconfigured, wrapped", fmt.Errorf("reserve s: %w", Misconfigured(cause)), false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := IsTransient(tt.err); got != tt.want {
				t.Errorf("IsTransient(%v) = %v, want %v", tt.err, got, tt.want)
			}
		})
	}
}

func TestMisconfigured(t *testing.T) {
	if Misconfigured(nil) != nil {
		t.Error("Misconfigured(nil) != nil")
	}
	cause := fmt.Errorf("sqlstore: SQLite file /nope/seq.db cannot be opened: %w", fs.ErrNotExist)
	err := Misconfigured(cause)
	if err.Error() != cause.Error() {
		t.Errorf("message %q, want the cause's %q", err, cause)
	}
	if !errors.Is(err, ErrMisconfigured) || !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("%v: errors.Is ErrMisconfigured %v, fs.ErrNotExist %v; want both", err,
			errors.Is(err, ErrMisconfigured), errors.Is(err, fs.ErrNotExist))
	}
	if errors.Is(cause, ErrMisconfigured) {
		t.Error("the cause itself became misconfigured")
	}
}

type checked struct {
	Store
	err error
}

func (c checked) Check(context.Context) error { return c.err }

func TestCheck(t *testing.T) {
	if err := Check(t.Context(), struct{ Store }{}); err != nil {
		t.Errorf("Check of a store without Check: %v", err)
	}
	want := Misconfigured(errors.New("no table"))
	if err := Check(t.Context(), checked{err: want}); err != want {
		t.Errorf("Check = %v, want the store's %v", err, want)
	}
}
