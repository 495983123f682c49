package sequence

import (
	"errors"
	"math"
	"testing"
	"time"
)

func TestDayOf(t *testing.T) {
	tests := []struct {
		t    time.Time
		want Day
		str  string
	}{
		{time.Date(1970, 1, 1, 0, 0, 0, 0, time.UTC), 0, "1970-01-01"},
		{time.Date(1970, 1, 1, 23, 59, 59, 999, time.UTC), 0, "1970-01-01"},
		{time.Date(1970, 1, 2, 0, 0, 0, 0, time.UTC), 1, "1970-01-02"},
		{time.Date(1969, 12, 31, 23, 59, 59, 0, time.UTC), -1, "1969-12-31"},
		// Days are UTC days whatever the zone of t.
		{time.Date(2026, 3, 1, 1, 30, 0, 0, time.FixedZone("CET", 3600)), DayOf(time.Date(2026, 3, 1, 0, 30, 0, 0, time.UTC)), "2026-03-01"},
		{time.Date(2026, 3, 1, 0, 30, 0, 0, time.FixedZone("CET", 3600)), DayOf(time.Date(2026, 2, 28, 23, 30, 0, 0, time.UTC)), "2026-02-28"},
	}
	for _, tt := range tests {
		d := DayOf(tt.t)
		if d != tt.want || d.String() != tt.str {
			t.Errorf("DayOf(%v) = %d (%s), want %d (%s)", tt.t, d, d, tt.want, tt.str)
		}
		if s := d.Start(); DayOf(s) != d || !s.Before(tt.t.Add(time.Nanosecond)) || s.Add(24*time.Hour).Compare(tt.t) <= 0 {
			t.Errorf("Day %s starts at %v, which does not hold %v", d, s, tt.t)
		}
	}
}

func TestReserveAt(t *testing.T) {
	noon := time.Date(2026, 1, 2, 12, 0, 0, 0, time.UTC)
	today := DayOf(noon)
	limited := func(limit int64, c Clauses) Spec {
		c.DailyLimit = Int64(limit)
		s, _, err := c.Create()
		if err != nil {
			t.Fatal(err)
		}
		return s
	}
	tests := []struct {
		name      string
		spec      Spec
		pos       Position
		u         Usage
		now       time.Time
		n         int64
		want      Block
		wantUsage Usage
		wantErr   error // a *Error, compared by code and message
	}{
		{
			name: "no limit: Reserve, usage untouched",
			spec: DefaultSpec(), pos: Position{Last: 1}, u: Usage{Day: today - 3, Used: 7}, now: noon, n: 10,
			want: Block{First: 1, Step: 1, Count: 10}, wantUsage: Usage{Day: today - 3, Used: 7},
		},
		{
			name: "first reservation of the day",
			spec: limited(100, Clauses{}), pos: Position{Last: 1}, now: noon, n: 10,
			want: Block{First: 1, Step: 1, Count: 10}, wantUsage: Usage{Day: today, Used: 10},
		},
		{
			name: "within the day's budget",
			spec: limited(100, Clauses{}), pos: Position{Last: 10, Called: true}, u: Usage{Day: today, Used: 10}, now: noon, n: 90,
			want: Block{First: 11, Step: 1, Count: 90}, wantUsage: Usage{Day: today, Used: 100},
		},
		{
			name: "truncated to what is left",
			spec: limited(100, Clauses{}), pos: Position{Last: 95, Called: true}, u: Usage{Day: today, Used: 95}, now: noon, n: 1000,
			want: Block{First: 96, Step: 1, Count: 5}, wantUsage: Usage{Day: today, Used: 100},
		},
		{
			name: "descending, truncated",
			spec: limited(3, Clauses{Increment: Int64(-2)}), pos: Position{Last: -1}, u: Usage{Day: today, Used: 1}, now: noon, n: 5,
			want: Block{First: -1, Step: -2, Count: 2}, wantUsage: Usage{Day: today, Used: 3},
		},
		{
			name: "used up: refused, nothing changes",
			spec: limited(100, Clauses{}), pos: Position{Last: 100, Called: true}, u: Usage{Day: today, Used: 100}, now: noon, n: 1,
			wantUsage: Usage{Day: today, Used: 100},
			wantErr:   DailyLimitError("s", 100, today),
		},
		{
			name: "lowered below the day's usage: refused",
			spec: limited(50, Clauses{}), pos: Position{Last: 80, Called: true}, u: Usage{Day: today, Used: 80}, now: noon, n: 1,
			wantUsage: Usage{Day: today, Used: 80},
			wantErr:   DailyLimitError("s", 50, today),
		},
		{
			name: "a new day starts from nothing",
			spec: limited(100, Clauses{}), pos: Position{Last: 100, Called: true}, u: Usage{Day: today - 1, Used: 100}, now: noon, n: 30,
			want: Block{First: 101, Step: 1, Count: 30}, wantUsage: Usage{Day: today, Used: 30},
		},
		{
			name: "a clock behind the last reservation's counts in the later day",
			spec: limited(100, Clauses{}), pos: Position{Last: 100, Called: true}, u: Usage{Day: today + 1, Used: 100}, now: noon, n: 1,
			wantUsage: Usage{Day: today + 1, Used: 100},
			wantErr:   DailyLimitError("s", 100, today+1),
		},
		{
			name: "MAXVALUE before the budget",
			spec: limited(100, Clauses{MaxValue: Int64(10)}), pos: Position{Last: 10, Called: true}, u: Usage{Day: today, Used: 100}, now: noon, n: 1,
			wantUsage: Usage{Day: today, Used: 100},
			wantErr:   LimitError("s", limited(100, Clauses{MaxValue: Int64(10)})),
		},
		{
			name: "truncated at MAXVALUE counts what was handed out",
			spec: limited(100, Clauses{MaxValue: Int64(10)}), pos: Position{Last: 8, Called: true}, u: Usage{Day: today, Used: 8}, now: noon, n: 50,
			want: Block{First: 9, Step: 1, Count: 2}, wantUsage: Usage{Day: today, Used: 10},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			b, pos, u, err := tt.spec.ReserveAt("s", tt.pos, tt.u, tt.now, tt.n)
			if tt.wantErr != nil {
				var got, want *Error
				if !errors.As(err, &got) || !errors.As(tt.wantErr, &want) || got.Code != want.Code || got.Message != want.Message {
					t.Fatalf("error %v, want %v", err, tt.wantErr)
				}
				if pos != tt.pos || u != tt.wantUsage {
					t.Errorf("refused, yet position %+v usage %+v (was %+v %+v)", pos, u, tt.pos, tt.u)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if b != tt.want || u != tt.wantUsage {
				t.Errorf("block %+v usage %+v, want %+v %+v", b, u, tt.want, tt.wantUsage)
			}
			if want := (Position{Last: b.Last(), Called: true}); pos != want {
				t.Errorf("position %+v, want %+v", pos, want)
			}
		})
	}
}

func TestAllowance(t *testing.T) {
	noon := time.Date(2026, 1, 2, 12, 0, 0, 0, time.UTC)
	today := DayOf(noon)
	if d, left := DefaultSpec().Allowance(Usage{}, noon); d != today || left != math.MaxInt64 {
		t.Errorf("no limit: %v %d", d, left)
	}
	s := DefaultSpec()
	s.DailyLimit = 10
	for _, tt := range []struct {
		u    Usage
		left int64
	}{{Usage{}, 10}, {Usage{Day: today, Used: 4}, 6}, {Usage{Day: today - 1, Used: 10}, 10}, {Usage{Day: today, Used: 12}, 0}} {
		if _, left := s.Allowance(tt.u, noon); left != tt.left {
			t.Errorf("Allowance(%+v) = %d, want %d", tt.u, left, tt.left)
		}
	}
}

func TestDailyLimitError(t *testing.T) {
	err := DailyLimitError("app.orders_seq", 1000, DayOf(time.Date(2026, 1, 2, 15, 0, 0, 0, time.UTC)))
	if err.Code != "54000" || !errors.Is(err, ErrDailyLimit) || IsTransient(err) {
		t.Errorf("code %s, Is ErrDailyLimit %v, transient %v", err.Code, errors.Is(err, ErrDailyLimit), IsTransient(err))
	}
	want := `nextval: sequence "orders_seq" reached its daily limit of 1000 values; the limit resets at 2026-01-03 00:00:00 UTC`
	if err.Message != want {
		t.Errorf("message %q, want %q", err.Message, want)
	}
	if err.Hint == "" || err.Detail == "" {
		t.Errorf("no hint or detail: %+v", err)
	}
}

func TestClausesDailyLimit(t *testing.T) {
	spec, pos, err := Clauses{DailyLimit: Int64(500)}.Create()
	if err != nil || spec.DailyLimit != 500 {
		t.Fatalf("Create: %v %+v", err, spec)
	}
	// Other clauses keep it; 0 removes it; negative is 22023.
	if s, _, err := (Clauses{Increment: Int64(2)}).Alter(spec, pos); err != nil || s.DailyLimit != 500 {
		t.Errorf("Alter without it: %v, limit %d", err, s.DailyLimit)
	}
	if s, _, err := (Clauses{DailyLimit: Int64(0)}).Alter(spec, pos); err != nil || s.DailyLimit != 0 {
		t.Errorf("Alter to 0: %v, limit %d", err, s.DailyLimit)
	}
	var e *Error
	if _, _, err := (Clauses{DailyLimit: Int64(-1)}).Alter(spec, pos); !errors.As(err, &e) || e.Code != CodeInvalidParameterValue {
		t.Errorf("Alter to -1: %v", err)
	}
	bad := spec
	bad.DailyLimit = -5
	if err := bad.Validate(); !errors.As(err, &e) || e.Code != CodeInvalidParameterValue {
		t.Errorf("Validate of a negative limit: %v", err)
	}
	other := spec
	other.DailyLimit = 7
	if spec.Equal(other) {
		t.Error("Equal ignores the daily limit")
	}
}
