package sequence

import (
	"errors"
	"fmt"
	"testing"
)

type codedErr struct{ code string }

func (e codedErr) Error() string     { return "api error " + e.code }
func (e codedErr) ErrorCode() string { return e.code }

func TestThrottled(t *testing.T) {
	if Throttled(nil) != nil {
		t.Error("Throttled(nil) != nil")
	}
	cause := fmt.Errorf("dynamostore: reserve s: %w", codedErr{"ThrottlingException"})
	err := Throttled(cause)
	if err.Error() != cause.Error() {
		t.Errorf("message %q, want the cause's %q", err, cause)
	}
	var ce codedErr
	if !errors.Is(err, ErrThrottled) || !errors.As(err, &ce) || ce.code != "ThrottlingException" {
		t.Errorf("%v: errors.Is ErrThrottled %v, errors.As the cause %v; want both", err, errors.Is(err, ErrThrottled), ce.code)
	}
	if errors.Is(cause, ErrThrottled) {
		t.Error("the cause itself became throttled")
	}
	for _, e := range []error{err, fmt.Errorf("refill: %w", err)} {
		if !IsTransient(e) {
			t.Errorf("IsTransient(%v) = false, want true: throttling goes away by itself", e)
		}
	}
}
