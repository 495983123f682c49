package sequence

import (
	"errors"
	"math"
	"testing"
)

func TestClausesCreate(t *testing.T) {
	tests := []struct {
		name    string
		c       Clauses
		want    Spec
		wantErr string
	}{
		{"defaults", Clauses{}, Spec{Bigint, 1, 1, math.MaxInt64, 1, 1, false, "", nil, 0, Policy{}, nil}, ""},
		{"descending", Clauses{Increment: Int64(-1)}, Spec{Bigint, -1, math.MinInt64, -1, -1, 1, false, "", nil, 0, Policy{}, nil}, ""},
		{"smallint", Clauses{Type: TypeOf(Smallint)}, Spec{Smallint, 1, 1, math.MaxInt16, 1, 1, false, "", nil, 0, Policy{}, nil}, ""},
		{"integer descending", Clauses{Type: TypeOf(Integer), Increment: Int64(-2)}, Spec{Integer, -2, math.MinInt32, -1, -1, 1, false, "", nil, 0, Policy{}, nil}, ""},
		{"start defaults to min", Clauses{MinValue: Int64(5), Increment: Int64(3)}, Spec{Bigint, 3, 5, math.MaxInt64, 5, 1, false, "", nil, 0, Policy{}, nil}, ""},
		{"start defaults to max descending", Clauses{MaxValue: Int64(100), Increment: Int64(-1)}, Spec{Bigint, -1, math.MinInt64, 100, 100, 1, false, "", nil, 0, Policy{}, nil}, ""},
		{"all options", Clauses{Type: TypeOf(Integer), Increment: Int64(5), MinValue: Int64(10), MaxValue: Int64(1000), Start: Int64(20), Cache: Int64(7), Cycle: Bool(true)},
			Spec{Integer, 5, 10, 1000, 20, 7, true, "", nil, 0, Policy{}, nil}, ""},
		{"zero increment", Clauses{Increment: Int64(0)}, Spec{}, "INCREMENT must not be zero"},
		{"min not below max", Clauses{MinValue: Int64(10), MaxValue: Int64(1)}, Spec{}, "MINVALUE (10) must be less than MAXVALUE (1)"},
		{"min equals max", Clauses{MinValue: Int64(5), MaxValue: Int64(5)}, Spec{}, "MINVALUE (5) must be less than MAXVALUE (5)"},
		{"start below min", Clauses{Start: Int64(0)}, Spec{}, "START value (0) cannot be less than MINVALUE (1)"},
		{"start above max", Clauses{MaxValue: Int64(10), Start: Int64(11)}, Spec{}, "START value (11) cannot be greater than MAXVALUE (10)"},
		{"max out of smallint", Clauses{Type: TypeOf(Smallint), MaxValue: Int64(100000)}, Spec{}, "MAXVALUE (100000) is out of range for sequence data type smallint"},
		{"min out of integer", Clauses{Type: TypeOf(Integer), MinValue: Int64(-3000000000), Increment: Int64(-1)}, Spec{}, "MINVALUE (-3000000000) is out of range for sequence data type integer"},
		{"cache zero", Clauses{Cache: Int64(0)}, Spec{}, "CACHE (0) must be greater than zero"},
		{"descending max positive min default", Clauses{Increment: Int64(-1), MaxValue: Int64(10)}, Spec{Bigint, -1, math.MinInt64, 10, 10, 1, false, "", nil, 0, Policy{}, nil}, ""},
		{"restart with on create", Clauses{RestartAt: Int64(50)}, Spec{Bigint, 1, 1, math.MaxInt64, 1, 1, false, "", nil, 0, Policy{}, nil}, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, pos, err := tt.c.Create()
			if tt.wantErr != "" {
				if err == nil || err.Error() != tt.wantErr {
					t.Fatalf("err = %v, want %q", err, tt.wantErr)
				}
				var e *Error
				if !errors.As(err, &e) || e.Code != CodeInvalidParameterValue || !errors.Is(err, ErrInvalid) {
					t.Fatalf("err = %#v, want *Error 22023 ErrInvalid", err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if !got.Equal(tt.want) {
				t.Fatalf("spec = %+v, want %+v", got, tt.want)
			}
			if err := got.Validate(); err != nil {
				t.Fatalf("Validate: %v", err)
			}
			wantPos := Position{Last: got.Start}
			if tt.c.RestartAt != nil {
				wantPos = Position{Last: *tt.c.RestartAt}
			}
			if pos != wantPos {
				t.Fatalf("pos = %+v, want %+v", pos, wantPos)
			}
		})
	}
}

func TestClausesAlter(t *testing.T) {
	base, basePos, err := Clauses{}.Create()
	if err != nil {
		t.Fatal(err)
	}
	called := Position{Last: 500, Called: true}
	tests := []struct {
		name    string
		spec    Spec
		pos     Position
		c       Clauses
		want    Spec
		wantPos Position
		wantErr string
	}{
		{"no change", base, called, Clauses{}, base, called, ""},
		{"restart", base, called, Clauses{Restart: true}, base, basePos, ""},
		{"restart with", base, called, Clauses{RestartAt: Int64(42)}, base, Position{Last: 42}, ""},
		{"increment keeps bounds", base, called, Clauses{Increment: Int64(-1)}, Spec{Bigint, -1, 1, math.MaxInt64, 1, 1, false, "", nil, 0, Policy{}, nil}, called, ""},
		{"type change moves default max", base, called, Clauses{Type: TypeOf(Integer)}, Spec{Integer, 1, 1, math.MaxInt32, 1, 1, false, "", nil, 0, Policy{}, nil}, called, ""},
		{"type change keeps explicit max", Spec{Bigint, 1, 1, 1000, 1, 1, false, "", nil, 0, Policy{}, nil}, called, Clauses{Type: TypeOf(Smallint)}, Spec{Smallint, 1, 1, 1000, 1, 1, false, "", nil, 0, Policy{}, nil}, called, ""},
		{"type too small for max", Spec{Bigint, 1, 1, 100000, 1, 1, false, "", nil, 0, Policy{}, nil}, called, Clauses{Type: TypeOf(Smallint)}, Spec{}, Position{}, "MAXVALUE (100000) is out of range for sequence data type smallint"},
		{"max below position", base, called, Clauses{MaxValue: Int64(100)}, Spec{}, Position{}, "RESTART value (500) cannot be greater than MAXVALUE (100)"},
		{"min above position", base, called, Clauses{MinValue: Int64(600)}, Spec{}, Position{}, "START value (1) cannot be less than MINVALUE (600)"},
		{"no maxvalue resets", Spec{Bigint, 1, 1, 1000, 1, 1, false, "", nil, 0, Policy{}, nil}, called, Clauses{NoMaxValue: true}, base, called, ""},
		{"no minvalue descending", Spec{Bigint, -1, -100, -1, -1, 1, false, "", nil, 0, Policy{}, nil}, Position{Last: -5, Called: true}, Clauses{NoMinValue: true}, Spec{Bigint, -1, math.MinInt64, -1, -1, 1, false, "", nil, 0, Policy{}, nil}, Position{Last: -5, Called: true}, ""},
		{"cycle", base, called, Clauses{Cycle: Bool(true), Cache: Int64(20)}, Spec{Bigint, 1, 1, math.MaxInt64, 1, 20, true, "", nil, 0, Policy{}, nil}, called, ""},
		{"restart out of range", base, called, Clauses{RestartAt: Int64(0)}, Spec{}, Position{}, "RESTART value (0) cannot be less than MINVALUE (1)"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, pos, err := tt.c.Alter(tt.spec, tt.pos)
			if tt.wantErr != "" {
				if err == nil || err.Error() != tt.wantErr {
					t.Fatalf("err = %v, want %q", err, tt.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if !got.Equal(tt.want) || pos != tt.wantPos {
				t.Fatalf("got %+v %+v, want %+v %+v", got, pos, tt.want, tt.wantPos)
			}
		})
	}
}

func TestParseType(t *testing.T) {
	for in, want := range map[string]Type{"smallint": Smallint, "INT2": Smallint, "integer": Integer, "int": Integer, "int4": Integer, "bigint": Bigint, "Int8": Bigint} {
		got, err := ParseType(in)
		if err != nil || got != want {
			t.Errorf("ParseType(%q) = %v, %v; want %v", in, got, err, want)
		}
	}
	if _, err := ParseType("numeric"); err == nil || err.Error() != "sequence type must be smallint, integer, or bigint" {
		t.Errorf("ParseType(numeric) err = %v", err)
	}
}

func TestSetVal(t *testing.T) {
	spec := Spec{Bigint, 1, 1, 10, 1, 1, false, "", nil, 0, Policy{}, nil}
	if pos, err := spec.SetVal("s", 5, false); err != nil || pos != (Position{5, false}) {
		t.Fatalf("SetVal = %v, %v", pos, err)
	}
	b, _, err := spec.Reserve("s", Position{5, false}, 1)
	if err != nil || b.First != 5 {
		t.Fatalf("after setval(5, false) nextval = %v, %v; want 5", b, err)
	}
	b, _, err = spec.Reserve("s", Position{5, true}, 1)
	if err != nil || b.First != 6 {
		t.Fatalf("after setval(5, true) nextval = %v, %v; want 6", b, err)
	}
	_, err = spec.SetVal(`"My"`, 11, true)
	const want = `setval: value 11 is out of bounds for sequence "My" (1..10)`
	var e *Error
	if err == nil || err.Error() != want || !errors.As(err, &e) || e.Code != CodeNumericOutOfRange {
		t.Fatalf("SetVal(11) err = %v, want %q", err, want)
	}
}
