// Package seqdwire converts between package sequence's model and the sequence
// service's messages (package seqdv1), both ways, for the server and the
// client store: one mapping, so the two sides cannot drift apart.
package seqdwire

import (
	"errors"
	"fmt"
	"time"

	"connectrpc.com/connect"

	"github.com/seqshim/seqshim/seqd/seqdv1"
	"github.com/seqshim/seqshim/sequence"
)

// Policy converts a cache policy.
func Policy(p sequence.Policy) *seqdv1.Policy {
	return &seqdv1.Policy{BufferMs: p.Buffer.Milliseconds(), MinBlock: p.MinBlock, MaxBlock: p.MaxBlock,
		RevalidateMs: p.Revalidate.Milliseconds()}
}

// FromPolicy converts a cache policy back; nil is the zero policy.
func FromPolicy(p *seqdv1.Policy) sequence.Policy {
	return sequence.Policy{Buffer: time.Duration(p.GetBufferMs()) * time.Millisecond, MinBlock: p.GetMinBlock(),
		MaxBlock: p.GetMaxBlock(), Revalidate: time.Duration(p.GetRevalidateMs()) * time.Millisecond}
}

// Block converts a block.
func Block(b sequence.Block) *seqdv1.Block {
	return &seqdv1.Block{First: b.First, Step: b.Step, Count: b.Count, Policy: Policy(b.Policy), Gen: b.Gen}
}

// FromBlock converts a block back, checking what a client must not trust
// blindly: a block has values, and a step.
func FromBlock(b *seqdv1.Block) (sequence.Block, error) {
	if b == nil || b.GetCount() < 1 || b.GetStep() == 0 {
		return sequence.Block{}, fmt.Errorf("seqd: a block without values (count %d, step %d)", b.GetCount(), b.GetStep())
	}
	return sequence.Block{First: b.GetFirst(), Step: b.GetStep(), Count: b.GetCount(), Policy: FromPolicy(b.GetPolicy()), Gen: b.GetGen()}, nil
}

// Defaults converts column defaults.
func Defaults(ds []sequence.ColumnDefault) []*seqdv1.ColumnDefault {
	if len(ds) == 0 {
		return nil
	}
	out := make([]*seqdv1.ColumnDefault, len(ds))
	for i, d := range ds {
		out[i] = &seqdv1.ColumnDefault{Table: d.Table, Column: d.Column, Kind: d.Kind.Name()}
	}
	return out
}

// FromDefaults converts column defaults back.
func FromDefaults(ds []*seqdv1.ColumnDefault) ([]sequence.ColumnDefault, error) {
	if len(ds) == 0 {
		return nil, nil
	}
	out := make([]sequence.ColumnDefault, len(ds))
	for i, d := range ds {
		k, err := sequence.ParseIdentity(d.GetKind())
		if err != nil {
			return nil, err
		}
		out[i] = sequence.ColumnDefault{Table: d.GetTable(), Column: d.GetColumn(), Kind: k}
	}
	return out, nil
}

// Member converts a member.
func Member(m sequence.Member) *seqdv1.Member {
	out := &seqdv1.Member{Db: m.DB, OwnedBy: m.OwnedBy, Defaults: Defaults(m.Defaults)}
	if m.Native != nil {
		out.Native = &seqdv1.NativeRange{First: m.Native.First, Last: m.Native.Last}
	}
	return out
}

// FromMember converts a member back.
func FromMember(m *seqdv1.Member) (sequence.Member, error) {
	ds, err := FromDefaults(m.GetDefaults())
	if err != nil {
		return sequence.Member{}, err
	}
	out := sequence.Member{DB: m.GetDb(), OwnedBy: m.GetOwnedBy(), Defaults: ds}
	if n := m.GetNative(); n != nil {
		out.Native = &sequence.NativeRange{First: n.GetFirst(), Last: n.GetLast()}
	}
	return out, nil
}

// Spec converts a spec.
func Spec(s sequence.Spec) *seqdv1.Spec {
	out := &seqdv1.Spec{Type: s.Type.String(), Increment: s.Increment, Min: s.Min, Max: s.Max, Start: s.Start,
		Cache: s.Cache, Cycle: s.Cycle, OwnedBy: s.OwnedBy, Defaults: Defaults(s.Defaults), DailyLimit: s.DailyLimit,
		Policy: Policy(s.Policy)}
	for _, m := range s.Members {
		out.Members = append(out.Members, Member(m))
	}
	return out
}

// FromSpec converts a spec back. It does not validate it: the store does.
func FromSpec(p *seqdv1.Spec) (sequence.Spec, error) {
	if p == nil {
		return sequence.Spec{}, invalid("a request without its sequence spec")
	}
	t, err := sequence.ParseType(p.GetType())
	if err != nil {
		return sequence.Spec{}, invalid(err.Error())
	}
	ds, err := FromDefaults(p.GetDefaults())
	if err != nil {
		return sequence.Spec{}, invalid(err.Error())
	}
	s := sequence.Spec{Type: t, Increment: p.GetIncrement(), Min: p.GetMin(), Max: p.GetMax(), Start: p.GetStart(),
		Cache: p.GetCache(), Cycle: p.GetCycle(), OwnedBy: p.GetOwnedBy(), Defaults: ds, DailyLimit: p.GetDailyLimit(),
		Policy: FromPolicy(p.GetPolicy())}
	for _, m := range p.GetMembers() {
		x, err := FromMember(m)
		if err != nil {
			return sequence.Spec{}, invalid(err.Error())
		}
		s.Members = append(s.Members, x)
	}
	return s, nil
}

// Position converts a position.
func Position(p sequence.Position) *seqdv1.Position {
	return &seqdv1.Position{Last: p.Last, Called: p.Called}
}

// FromPosition converts a position back.
func FromPosition(p *seqdv1.Position) sequence.Position {
	return sequence.Position{Last: p.GetLast(), Called: p.GetCalled()}
}

// Info converts a described sequence.
func Info(i sequence.Info) *seqdv1.Info {
	out := &seqdv1.Info{Name: i.Name, Spec: Spec(i.Spec), Position: Position(i.Position), Version: i.Version, Gen: i.Gen,
		Reservations: i.Reservations, ValuesReserved: i.ValuesReserved,
		DayUsageDay: int64(i.DayUsage.Day), DayUsageUsed: i.DayUsage.Used}
	if !i.LastReserved.IsZero() {
		out.LastReservedUnixNano = i.LastReserved.UnixNano()
	}
	return out
}

// FromInfo converts a described sequence back.
func FromInfo(p *seqdv1.Info) (sequence.Info, error) {
	spec, err := FromSpec(p.GetSpec())
	if err != nil {
		return sequence.Info{}, err
	}
	i := sequence.Info{Name: p.GetName(), Spec: spec, Position: FromPosition(p.GetPosition()), Version: p.GetVersion(),
		Gen: p.GetGen(), Reservations: p.GetReservations(), ValuesReserved: p.GetValuesReserved(),
		DayUsage: sequence.Usage{Day: sequence.Day(p.GetDayUsageDay()), Used: p.GetDayUsageUsed()}}
	if ns := p.GetLastReservedUnixNano(); ns != 0 {
		i.LastReserved = time.Unix(0, ns).UTC()
	}
	return i, nil
}

// Clauses converts ALTER SEQUENCE clauses.
func Clauses(c sequence.Clauses) *seqdv1.Clauses {
	out := &seqdv1.Clauses{Increment: c.Increment, MinValue: c.MinValue, NoMinValue: c.NoMinValue,
		MaxValue: c.MaxValue, NoMaxValue: c.NoMaxValue, Start: c.Start, Restart: c.Restart, RestartAt: c.RestartAt,
		Cache: c.Cache, Cycle: c.Cycle, OwnedBy: c.OwnedBy, DailyLimit: c.DailyLimit}
	if c.Type != nil {
		t := c.Type.String()
		out.Type = &t
	}
	if c.Defaults != nil {
		out.Defaults = &seqdv1.ColumnDefaults{Defaults: Defaults(*c.Defaults)}
	}
	if p := c.Policy; p != nil {
		out.Policy = &seqdv1.PolicyClauses{MinBlock: p.MinBlock, MaxBlock: p.MaxBlock}
		if p.Buffer != nil {
			out.Policy.BufferMs = ptr(p.Buffer.Milliseconds())
		}
		if p.Revalidate != nil {
			out.Policy.RevalidateMs = ptr(p.Revalidate.Milliseconds())
		}
	}
	return out
}

// FromClauses converts ALTER SEQUENCE clauses back.
func FromClauses(p *seqdv1.Clauses) (sequence.Clauses, error) {
	c := sequence.Clauses{Increment: p.Increment, MinValue: p.MinValue, NoMinValue: p.GetNoMinValue(),
		MaxValue: p.MaxValue, NoMaxValue: p.GetNoMaxValue(), Start: p.Start, Restart: p.GetRestart(),
		RestartAt: p.RestartAt, Cache: p.Cache, Cycle: p.Cycle, OwnedBy: p.OwnedBy, DailyLimit: p.DailyLimit}
	if p.Type != nil {
		t, err := sequence.ParseType(*p.Type)
		if err != nil {
			return c, invalid(err.Error())
		}
		c.Type = &t
	}
	if p.GetDefaults() != nil {
		ds, err := FromDefaults(p.GetDefaults().GetDefaults())
		if err != nil {
			return c, invalid(err.Error())
		}
		if ds == nil {
			ds = []sequence.ColumnDefault{}
		}
		c.Defaults = &ds
	}
	if pp := p.GetPolicy(); pp != nil {
		c.Policy = &sequence.PolicyClauses{MinBlock: pp.MinBlock, MaxBlock: pp.MaxBlock}
		if pp.BufferMs != nil {
			c.Policy.Buffer = ptr(time.Duration(*pp.BufferMs) * time.Millisecond)
		}
		if pp.RevalidateMs != nil {
			c.Policy.Revalidate = ptr(time.Duration(*pp.RevalidateMs) * time.Millisecond)
		}
	}
	return c, nil
}

func ptr[T any](v T) *T { return &v }

// invalid is a sequence error of kind ErrInvalid for a malformed request.
func invalid(msg string) error {
	return &sequence.Error{Code: sequence.CodeInvalidParameterValue, Kind: sequence.ErrInvalid, Message: "seqd: " + msg}
}

// kinds are the error kinds as SequenceError.kind names them.
var kinds = []struct {
	name string
	kind error
	code connect.Code
}{
	{"not_found", sequence.ErrNotFound, connect.CodeNotFound},
	{"exists", sequence.ErrExists, connect.CodeAlreadyExists},
	{"limit", sequence.ErrLimit, connect.CodeOutOfRange},
	{"daily_limit", sequence.ErrDailyLimit, connect.CodeResourceExhausted},
	{"invalid", sequence.ErrInvalid, connect.CodeInvalidArgument},
	{"not_defined", sequence.ErrNotDefined, connect.CodeFailedPrecondition},
	{"conflict", sequence.ErrConflict, connect.CodeAborted},
	{"misconfigured", sequence.ErrMisconfigured, connect.CodeFailedPrecondition},
	{"throttled", sequence.ErrThrottled, connect.CodeUnavailable},
}

// Error is the error a server answers for err, a store's error: a
// SequenceError detail says what it was, so that the client store returns
// the same kind. Anything else is Unavailable: transient.
func Error(err error) *connect.Error {
	var ce *connect.Error
	if errors.As(err, &ce) {
		return ce
	}
	d := &seqdv1.SequenceError{Message: err.Error()}
	code := connect.CodeUnavailable
	var se *sequence.Error
	if errors.As(err, &se) {
		d.Sqlstate, d.Message, d.Detail, d.Hint = se.Code, se.Message, se.Detail, se.Hint
	}
	for _, k := range kinds {
		if errors.Is(err, k.kind) {
			d.Kind, code = k.name, k.code
			break
		}
	}
	out := connect.NewError(code, errors.New(d.Message))
	if det, derr := connect.NewErrorDetail(d); derr == nil {
		out.AddDetail(det)
	}
	return out
}

// FromError is the error a client store returns for a call's err: the
// store's error as the server reported it (a *sequence.Error, or one
// marked misconfigured or throttled); a refused credential or permission,
// misconfigured (a change of configuration fixes it); a rate limit,
// throttled; anything else as it is, transient.
func FromError(err error) error {
	var ce *connect.Error
	if !errors.As(err, &ce) {
		return err
	}
	for _, det := range ce.Details() {
		v, derr := det.Value()
		d, ok := v.(*seqdv1.SequenceError)
		if derr != nil || !ok {
			continue
		}
		for _, k := range kinds {
			if k.name != d.GetKind() {
				continue
			}
			msg := errors.New("seqd: " + d.GetMessage())
			switch k.kind {
			case sequence.ErrMisconfigured:
				return sequence.Misconfigured(msg)
			case sequence.ErrThrottled:
				return sequence.Throttled(msg)
			}
			return &sequence.Error{Code: d.GetSqlstate(), Message: d.GetMessage(), Kind: k.kind, Detail: d.GetDetail(), Hint: d.GetHint()}
		}
		return err
	}
	switch ce.Code() {
	case connect.CodeUnauthenticated, connect.CodePermissionDenied:
		return sequence.Misconfigured(fmt.Errorf("seqd: %s: %w", ce.Message(), err))
	case connect.CodeResourceExhausted:
		return sequence.Throttled(err)
	}
	return err
}
