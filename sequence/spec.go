package sequence

import (
	"fmt"
	"math"
	"slices"
	"strings"
)

// Type is a sequence's data type, which bounds its values.
type Type uint8

// The sequence data types of PostgreSQL. The zero value means bigint.
const (
	Bigint   Type = iota // AS bigint (int8), the default
	Smallint             // AS smallint (int2)
	Integer              // AS integer (int4)
)

// ParseType accepts the type names PostgreSQL accepts for AS: smallint, int2,
// integer, int, int4, bigint, int8 (any case).
func ParseType(s string) (Type, error) {
	switch strings.ToLower(s) {
	case "smallint", "int2":
		return Smallint, nil
	case "integer", "int", "int4":
		return Integer, nil
	case "bigint", "int8":
		return Bigint, nil
	}
	return 0, newError(ErrInvalid, CodeInvalidParameterValue, "sequence type must be smallint, integer, or bigint")
}

// String returns the name PostgreSQL's format_type gives the type.
func (t Type) String() string {
	switch t {
	case Smallint:
		return "smallint"
	case Integer:
		return "integer"
	default:
		return "bigint"
	}
}

// Range returns the smallest and largest value of the type.
func (t Type) Range() (lo, hi int64) {
	switch t {
	case Smallint:
		return math.MinInt16, math.MaxInt16
	case Integer:
		return math.MinInt32, math.MaxInt32
	default:
		return math.MinInt64, math.MaxInt64
	}
}

// Spec is a complete sequence definition, every field resolved: what
// pg_sequences shows. Build one with [Clauses.Create] to get PostgreSQL's
// defaults, or fill it in and call [Spec.Validate].
type Spec struct {
	Type      Type
	Increment int64 // never 0; negative for a descending sequence
	Min       int64 // MINVALUE
	Max       int64 // MAXVALUE
	Start     int64 // START WITH; RESTART without a value goes back here
	Cache     int64 // CACHE, kept as a hint; at least 1
	Cycle     bool
	// OwnedBy is the column that owns the sequence (OWNED BY), as a
	// reference the front end encodes and reads back, opaque to the model
	// and the stores; "" for none. Dropping the column drops the sequence.
	OwnedBy string
	// Defaults are the table columns whose default draws from the sequence
	// (serial, identity, DEFAULT nextval), in (table, column) order; nil for
	// none. Stores keep them as [EncodeDefaults] writes them.
	Defaults []ColumnDefault
	// DailyLimit is the most values the sequence hands out in one UTC day,
	// over every process; 0 for no limit. Not SQL: an operator's budget
	// (seqctl alter --daily-limit), enforced by the store at each
	// reservation (see [Spec.ReserveAt]).
	DailyLimit int64
	// Policy is the sequence's cache policy (seqctl alter --buffer,
	// --min-block, --max-block, --revalidate): it overrides the process
	// defaults of every cache serving the sequence from the next block it
	// receives ([Block.Policy]). The zero value overrides nothing. Not SQL.
	Policy Policy
	// Members are the databases that declared the sequence, each with its
	// view (its OWNED BY and column defaults), in DB order; nil for a
	// sequence no database declared (made by seqctl, or before membership
	// was kept), which every database sees, with OwnedBy and Defaults as
	// its view. See [Member] and [Spec.View]. Not SQL.
	Members []Member
}

// DefaultSpec is CREATE SEQUENCE with no options: bigint, 1, 2, 3, ...
func DefaultSpec() Spec {
	s, _, _ := Clauses{}.Create()
	return s
}

// Descending reports whether the sequence counts down.
func (s Spec) Descending() bool { return s.Increment < 0 }

// Validate checks a spec the way CREATE SEQUENCE checks its options and returns
// PostgreSQL's error for the first problem found. Its members, if any, must
// each name a database, in DB order, each database once.
func (s Spec) Validate() error {
	if s.Increment == 0 {
		return invalidf("INCREMENT must not be zero")
	}
	lo, hi := s.Type.Range()
	if s.Max < lo || s.Max > hi {
		return invalidf("MAXVALUE (%d) is out of range for sequence data type %s", s.Max, s.Type)
	}
	if s.Min < lo || s.Min > hi {
		return invalidf("MINVALUE (%d) is out of range for sequence data type %s", s.Min, s.Type)
	}
	if s.Min >= s.Max {
		return invalidf("MINVALUE (%d) must be less than MAXVALUE (%d)", s.Min, s.Max)
	}
	if s.Start < s.Min {
		return invalidf("START value (%d) cannot be less than MINVALUE (%d)", s.Start, s.Min)
	}
	if s.Start > s.Max {
		return invalidf("START value (%d) cannot be greater than MAXVALUE (%d)", s.Start, s.Max)
	}
	if s.Cache <= 0 {
		return invalidf("CACHE (%d) must be greater than zero", s.Cache)
	}
	if s.DailyLimit < 0 {
		return dailyLimitInvalid(s.DailyLimit)
	}
	if err := validateMembers(s.Members); err != nil {
		return err
	}
	return s.Policy.Validate()
}

func dailyLimitInvalid(v int64) *Error {
	return invalidf("daily limit (%d) must not be negative (0 removes it)", v)
}

func invalidf(format string, args ...any) *Error {
	return newError(ErrInvalid, CodeInvalidParameterValue, format, args...)
}

// Position is a sequence's state as PostgreSQL keeps it: the last value and
// whether it was handed out. With Called false, the next value is Last itself
// (a new sequence, after RESTART, or after setval(s, v, false)).
type Position struct {
	Last   int64
	Called bool
}

// Initial is the position of a new sequence: the next value is Start.
func (s Spec) Initial() Position { return Position{Last: s.Start} }

// Clauses are the options of CREATE SEQUENCE or ALTER SEQUENCE. A nil pointer
// is a clause not written; NoMinValue and NoMaxValue are NO MINVALUE and
// NO MAXVALUE. The zero value is CREATE SEQUENCE s with no options.
type Clauses struct {
	Type       *Type
	Increment  *int64
	MinValue   *int64
	NoMinValue bool
	MaxValue   *int64
	NoMaxValue bool
	Start      *int64
	Restart    bool   // RESTART
	RestartAt  *int64 // RESTART WITH n (implies Restart)
	Cache      *int64
	Cycle      *bool
	OwnedBy    *string // OWNED BY: the new Spec.OwnedBy, "" for OWNED BY NONE
	// Defaults replaces Spec.Defaults (an empty slice: none); nil keeps
	// them. Not SQL: the front end sets it for the column DDL it serves,
	// seqctl for --default.
	Defaults *[]ColumnDefault
	// DailyLimit replaces Spec.DailyLimit (0: no limit); nil keeps it. Not
	// SQL: seqctl sets it for --daily-limit.
	DailyLimit *int64
	// Policy changes the fields of Spec.Policy it sets; nil keeps the
	// policy. Not SQL: seqctl sets it for --buffer, --min-block,
	// --max-block and --revalidate.
	Policy *PolicyClauses
}

// Int64 returns a pointer to v, for filling in Clauses.
func Int64(v int64) *int64 { return &v }

// Bool returns a pointer to v, for filling in Clauses.
func Bool(v bool) *bool { return &v }

// TypeOf returns a pointer to t, for filling in Clauses.
func TypeOf(t Type) *Type { return &t }

// Create resolves CREATE SEQUENCE options into a spec and the new sequence's
// position, with PostgreSQL's defaults and errors.
func (c Clauses) Create() (Spec, Position, error) {
	return c.apply(Spec{}, Position{}, true)
}

// Alter applies ALTER SEQUENCE options to an existing sequence, with
// PostgreSQL's rules: a type change moves MINVALUE/MAXVALUE that sat at the old
// type's bounds to the new type's; RESTART moves the position; the current
// position must stay within the new bounds.
func (c Clauses) Alter(spec Spec, pos Position) (Spec, Position, error) {
	return c.apply(spec, pos, false)
}

// apply is PostgreSQL's init_params, clause for clause and in its order, so the
// first error reported is the one PostgreSQL reports.
func (c Clauses) apply(s Spec, pos Position, isInit bool) (Spec, Position, error) {
	resetMax, resetMin := false, false
	if c.Type != nil {
		if !isInit {
			oldLo, oldHi := s.Type.Range()
			resetMax = s.Max == oldHi
			resetMin = s.Min == oldLo
		}
		s.Type = *c.Type
	} else if isInit {
		s.Type = Bigint
	}
	lo, hi := s.Type.Range()

	if c.Increment != nil {
		if *c.Increment == 0 {
			return s, pos, invalidf("INCREMENT must not be zero")
		}
		s.Increment = *c.Increment
	} else if isInit {
		s.Increment = 1
	}

	if c.Cycle != nil {
		s.Cycle = *c.Cycle
	} else if isInit {
		s.Cycle = false
	}

	if c.MaxValue != nil {
		s.Max = *c.MaxValue
	} else if isInit || c.NoMaxValue || resetMax {
		if s.Increment > 0 || resetMax {
			s.Max = hi
		} else {
			s.Max = -1
		}
	}
	if s.Max < lo || s.Max > hi {
		return s, pos, invalidf("MAXVALUE (%d) is out of range for sequence data type %s", s.Max, s.Type)
	}

	if c.MinValue != nil {
		s.Min = *c.MinValue
	} else if isInit || c.NoMinValue || resetMin {
		if s.Increment < 0 || resetMin {
			s.Min = lo
		} else {
			s.Min = 1
		}
	}
	if s.Min < lo || s.Min > hi {
		return s, pos, invalidf("MINVALUE (%d) is out of range for sequence data type %s", s.Min, s.Type)
	}

	if s.Min >= s.Max {
		return s, pos, invalidf("MINVALUE (%d) must be less than MAXVALUE (%d)", s.Min, s.Max)
	}

	if c.Start != nil {
		s.Start = *c.Start
	} else if isInit {
		if s.Increment > 0 {
			s.Start = s.Min
		} else {
			s.Start = s.Max
		}
	}
	if s.Start < s.Min {
		return s, pos, invalidf("START value (%d) cannot be less than MINVALUE (%d)", s.Start, s.Min)
	}
	if s.Start > s.Max {
		return s, pos, invalidf("START value (%d) cannot be greater than MAXVALUE (%d)", s.Start, s.Max)
	}

	if c.RestartAt != nil {
		pos = Position{Last: *c.RestartAt}
	} else if c.Restart || isInit {
		pos = Position{Last: s.Start}
	}
	if pos.Last < s.Min {
		return s, pos, invalidf("RESTART value (%d) cannot be less than MINVALUE (%d)", pos.Last, s.Min)
	}
	if pos.Last > s.Max {
		return s, pos, invalidf("RESTART value (%d) cannot be greater than MAXVALUE (%d)", pos.Last, s.Max)
	}

	if c.Cache != nil {
		if *c.Cache <= 0 {
			return s, pos, invalidf("CACHE (%d) must be greater than zero", *c.Cache)
		}
		s.Cache = *c.Cache
	} else if isInit {
		s.Cache = 1
	}

	if c.OwnedBy != nil {
		s.OwnedBy = *c.OwnedBy
	} else if isInit {
		s.OwnedBy = ""
	}

	if c.Defaults != nil {
		s.Defaults = slices.Clone(*c.Defaults)
		if len(s.Defaults) == 0 {
			s.Defaults = nil
		}
	} else if isInit {
		s.Defaults = nil
	}

	if c.DailyLimit != nil {
		if *c.DailyLimit < 0 {
			return s, pos, dailyLimitInvalid(*c.DailyLimit)
		}
		s.DailyLimit = *c.DailyLimit
	} else if isInit {
		s.DailyLimit = 0
	}

	if isInit {
		s.Policy = Policy{}
	}
	if c.Policy != nil {
		p := c.Policy.apply(s.Policy)
		if err := p.Validate(); err != nil {
			return s, pos, err
		}
		s.Policy = p
	}
	return s, pos, nil
}

// SetVal is setval(name, value, isCalled): the new position, or PostgreSQL's
// error when value is outside [MINVALUE, MAXVALUE].
func (s Spec) SetVal(name string, value int64, isCalled bool) (Position, error) {
	if value < s.Min || value > s.Max {
		return Position{}, newError(ErrInvalid, CodeNumericOutOfRange,
			`setval: value %d is out of bounds for sequence "%s" (%d..%d)`, value, RelName(name), s.Min, s.Max)
	}
	return Position{Last: value, Called: isCalled}, nil
}

// String renders the spec as the options of CREATE SEQUENCE.
func (s Spec) String() string {
	cycle := "NO CYCLE"
	if s.Cycle {
		cycle = "CYCLE"
	}
	return fmt.Sprintf("AS %s INCREMENT BY %d MINVALUE %d MAXVALUE %d START WITH %d CACHE %d %s",
		s.Type, s.Increment, s.Min, s.Max, s.Start, s.Cache, cycle)
}

// Equal reports whether s and o are the same definition, column defaults,
// daily limit, cache policy and members included.
func (s Spec) Equal(o Spec) bool {
	return s.Type == o.Type && s.Increment == o.Increment && s.Min == o.Min && s.Max == o.Max &&
		s.Start == o.Start && s.Cache == o.Cache && s.Cycle == o.Cycle && s.OwnedBy == o.OwnedBy &&
		slices.Equal(s.Defaults, o.Defaults) && s.DailyLimit == o.DailyLimit && s.Policy == o.Policy &&
		sameMembers(s.Members, o.Members)
}
