package sequence

import (
	"errors"
	"strings"
	"testing"
	"time"
)

func TestPolicyValidate(t *testing.T) {
	tests := []struct {
		name    string
		p       Policy
		wantErr string
	}{
		{"zero", Policy{}, ""},
		{"all set", Policy{Buffer: 30 * time.Second, MinBlock: 1000, MaxBlock: 100000, Revalidate: 5 * time.Second}, ""},
		{"min equals max", Policy{MinBlock: 7, MaxBlock: 7}, ""},
		{"min only", Policy{MinBlock: 1 << 30}, ""},
		{"largest", Policy{Buffer: MaxPolicyDuration, MinBlock: MaxPolicyBlock, MaxBlock: MaxPolicyBlock, Revalidate: MaxPolicyDuration}, ""},
		{"negative buffer", Policy{Buffer: -time.Second}, "buffer (-1s) must be between 0 and 24h0m0s"},
		{"buffer too long", Policy{Buffer: 25 * time.Hour}, "buffer (25h0m0s) must be between 0 and 24h0m0s"},
		{"buffer not whole ms", Policy{Buffer: 1500 * time.Microsecond}, "buffer (1.5ms) must be a whole number of milliseconds"},
		{"negative min block", Policy{MinBlock: -1}, "min block (-1) must be between 1 and 1099511627776"},
		{"max block too large", Policy{MaxBlock: MaxPolicyBlock + 1}, "max block (1099511627777) must be between 1 and 1099511627776"},
		{"min above max", Policy{MinBlock: 1000, MaxBlock: 10}, "min block (1000) must not be greater than max block (10)"},
		{"revalidate too short", Policy{Revalidate: 10 * time.Millisecond}, "revalidate (10ms) must be at least 100ms"},
		{"negative revalidate", Policy{Revalidate: -time.Millisecond}, "revalidate (-1ms) must be between 0 and 24h0m0s"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			err := tt.p.Validate()
			if tt.wantErr == "" {
				if err != nil {
					t.Fatalf("Validate(%+v) = %v, want nil", tt.p, err)
				}
				return
			}
			if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
				t.Fatalf("Validate(%+v) = %v, want %q", tt.p, err, tt.wantErr)
			}
			var se *Error
			if !errors.As(err, &se) || !errors.Is(err, ErrInvalid) || se.Code != CodeInvalidParameterValue {
				t.Errorf("Validate error %#v: want *Error, ErrInvalid, 22023", err)
			}
			// Spec.Validate holds a stored spec to the same rules.
			s := DefaultSpec()
			s.Policy = tt.p
			if err := s.Validate(); err == nil || !strings.Contains(err.Error(), tt.wantErr) {
				t.Errorf("Spec.Validate with policy %+v = %v, want %q", tt.p, err, tt.wantErr)
			}
		})
	}
}

func TestPolicyClauses(t *testing.T) {
	base := DefaultSpec()
	base.Policy = Policy{Buffer: 30 * time.Second, MinBlock: 100, MaxBlock: 1000}
	pos := Position{Last: 5, Called: true}
	tests := []struct {
		name    string
		c       *PolicyClauses
		want    Policy
		wantErr string
	}{
		{"nil keeps", nil, base.Policy, ""},
		{"one field", &PolicyClauses{MinBlock: Int64(500)}, Policy{Buffer: 30 * time.Second, MinBlock: 500, MaxBlock: 1000}, ""},
		{"reset to default", &PolicyClauses{Buffer: Duration(0), MaxBlock: Int64(0)}, Policy{MinBlock: 100}, ""},
		{"revalidate", &PolicyClauses{Revalidate: Duration(5 * time.Second)}, Policy{Buffer: 30 * time.Second, MinBlock: 100, MaxBlock: 1000, Revalidate: 5 * time.Second}, ""},
		{"min above the kept max", &PolicyClauses{MinBlock: Int64(2000)}, Policy{}, "min block (2000) must not be greater than max block (1000)"},
		{"both raised together", &PolicyClauses{MinBlock: Int64(2000), MaxBlock: Int64(5000)}, Policy{Buffer: 30 * time.Second, MinBlock: 2000, MaxBlock: 5000}, ""},
		{"invalid", &PolicyClauses{Buffer: Duration(-time.Second)}, Policy{}, "buffer (-1s) must be between 0"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			spec, gotPos, err := Clauses{Policy: tt.c}.Alter(base, pos)
			if tt.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tt.wantErr) || !errors.Is(err, ErrInvalid) {
					t.Fatalf("Alter = %v, want %q", err, tt.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatalf("Alter: %v", err)
			}
			if spec.Policy != tt.want {
				t.Errorf("policy %+v, want %+v", spec.Policy, tt.want)
			}
			if gotPos != pos {
				t.Errorf("position %+v, want %+v unchanged", gotPos, pos)
			}
			// Only the policy changed: SQL clauses leave it alone and Equal sees it.
			rest := spec
			rest.Policy = base.Policy
			if !rest.Equal(base) {
				t.Errorf("Alter changed more than the policy: %+v", spec)
			}
			if (spec.Policy != base.Policy) == spec.Equal(base) {
				t.Errorf("Equal(%+v, %+v) = %v", spec.Policy, base.Policy, spec.Equal(base))
			}
		})
	}

	// SQL clauses keep the policy; CREATE starts from the zero policy
	// unless clauses set one.
	spec, _, err := Clauses{Increment: Int64(3), Restart: true}.Alter(base, pos)
	if err != nil || spec.Policy != base.Policy {
		t.Errorf("ALTER INCREMENT changed the policy: %+v, %v", spec.Policy, err)
	}
	spec, _, err = Clauses{Policy: &PolicyClauses{MaxBlock: Int64(10)}}.Create()
	if err != nil || spec.Policy != (Policy{MaxBlock: 10}) {
		t.Errorf("Create with a policy: %+v, %v", spec.Policy, err)
	}
	if _, _, err := (Clauses{Policy: &PolicyClauses{MinBlock: Int64(-3)}}).Create(); !errors.Is(err, ErrInvalid) {
		t.Errorf("Create with an invalid policy: %v, want ErrInvalid", err)
	}
}

func TestReserveCarriesPolicy(t *testing.T) {
	s := DefaultSpec()
	s.Policy = Policy{MinBlock: 10, Revalidate: time.Second}
	b, _, err := s.Reserve("s", s.Initial(), 5)
	if err != nil {
		t.Fatal(err)
	}
	if b.Policy != s.Policy {
		t.Errorf("Reserve: block policy %+v, want the spec's %+v", b.Policy, s.Policy)
	}
	if b.First != 1 || b.Count != 5 {
		t.Errorf("Reserve: %+v, want 1..5 (the policy changes no arithmetic)", b)
	}
	s.DailyLimit = 3
	b, _, _, err = s.ReserveAt("s", s.Initial(), Usage{}, time.Unix(0, 0), 5)
	if err != nil || b.Policy != s.Policy || b.Count != 3 {
		t.Errorf("ReserveAt: %+v, %v; want 3 values carrying the policy", b, err)
	}
	if tail := b.Tail(1); !tail.Policy.IsZero() {
		t.Errorf("Tail keeps the policy: %+v", tail)
	}
}

func TestPolicyString(t *testing.T) {
	for _, tt := range []struct {
		p    Policy
		want string
	}{
		{Policy{}, "default"},
		{Policy{Buffer: 30 * time.Second, MaxBlock: 100000}, "buffer=30s max-block=100000"},
		{Policy{MinBlock: 1000, Revalidate: 5 * time.Second}, "min-block=1000 revalidate=5s"},
	} {
		if got := tt.p.String(); got != tt.want {
			t.Errorf("%+v.String() = %q, want %q", tt.p, got, tt.want)
		}
	}
}
