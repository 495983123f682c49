package sequence

import (
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"strings"
)

// Many databases, one id space. A store prefix is one id space: the
// databases that share a store — the shards of a service, the databases of
// services that exchange ids, a database dropped and created again — share
// its counters, so that no id is handed out twice across them. In
// PostgreSQL each database has a catalog of its own; through seqshim they
// share the store's, and a sequence records which databases declared it
// ([Spec.Members]), each with the sequence as that database sees it: its
// OWNED BY and its column defaults (the column t.c of one database is not
// t.c of another). The counter itself — position, increment, bounds,
// cycle, policy, daily limit — is one, shared by all.
//
// CREATE SEQUENCE in a database that has not declared a sequence the store
// has attaches that database ([Memberships.Attach]) without moving the
// counter; DROP SEQUENCE detaches it ([Memberships.Detach]), and the
// counter goes with its last database. A sequence without members (made by
// an earlier version, or by seqctl) is seen by every database.

// Member is one database that declared a sequence, and the sequence as that
// database sees it.
type Member struct {
	// DB identifies the database, as the front end names it: for
	// PostgreSQL "SYSTEM_IDENTIFIER/OID/NAME" (see [DatabaseID]), which
	// survives reconnects and changes when the database is created again.
	DB string `json:"db"`
	// OwnedBy is OWNED BY in that database, as [Spec.OwnedBy]; "" for none.
	OwnedBy string `json:"owned_by,omitempty"`
	// Defaults are that database's columns whose default draws from the
	// sequence, as [Spec.Defaults].
	Defaults []ColumnDefault `json:"defaults,omitempty"`
	// Native is the range the store reserved for this database's native
	// sequence (see [NativeRange]); nil when the database draws from the
	// store.
	Native *NativeRange `json:"native,omitempty"`
}

// NativeRange is a range of a counter's values, First to Last in the
// counter's direction, that the store reserved for a member database's own
// native sequence when that database went back to native sequences
// (seqctl export of one database of a shared counter): the store never
// hands them out again, and the database's native sequence hands out only
// them.
type NativeRange struct {
	First int64 `json:"first"`
	Last  int64 `json:"last"`
}

// DatabaseID is the identity of a PostgreSQL database in [Member.DB]: the
// cluster's system identifier (pg_control_system()), the database's OID and
// its name. A database dropped and created again, or restored elsewhere,
// has another OID or cluster, so it is a new member: the ids handed out
// before are never handed out again, as the counter only moves forward.
func DatabaseID(systemID, oid, name string) string { return systemID + "/" + oid + "/" + name }

// ParseDatabaseID splits a [DatabaseID]; ok is false for other forms.
func ParseDatabaseID(db string) (systemID, oid, name string, ok bool) {
	systemID, rest, ok1 := strings.Cut(db, "/")
	oid, name, ok2 := strings.Cut(rest, "/")
	return systemID, oid, name, ok1 && ok2 && systemID != "" && oid != "" && name != ""
}

// Memberships is the part of the store contract ([Admin] includes it) that
// keeps the databases of a sequence ([Spec.Members]), each operation atomic
// against every other and against reservations: two databases attaching or
// detaching at once never lose each other's membership, and a counter is
// never dropped while a database that attached meanwhile uses it. Create
// writes the members of its spec; every other operation but Drop keeps
// them as they are.
type Memberships interface {
	// Attach makes m.DB a member of the sequence name with m as its view,
	// or replaces the view it had, and returns the sequence as stored
	// after. The stored counter must be counter's ([Spec.SameCounter]),
	// else it fails with [CounterError] and changes nothing; counter's
	// START, CACHE and everything but the counter's shape are ignored, and
	// the position, version and incarnation never move. A sequence without
	// members gets m as its first (its OwnedBy and Defaults stay as they
	// are). ErrNotFound when no sequence has the name; ErrInvalid for a
	// member without a database ([Member.Validate]).
	Attach(ctx context.Context, name string, m Member, counter Spec) (Info, error)
	// Detach removes db from the members of name. When it was the last
	// member (or the sequence has none), the sequence is dropped in the
	// same step, as Drop drops it, and dropped is true; an Attach that came
	// first keeps it. A db that is not a member of a sequence that has
	// members changes nothing. ErrNotFound when no sequence has the name.
	Detach(ctx context.Context, name, db string) (dropped bool, err error)
}

// Validate checks a member a store is asked to keep: it names its
// database. ErrInvalid (22023) otherwise.
func (m Member) Validate() error {
	if m.DB == "" {
		return invalidf("a sequence member must name its database")
	}
	return nil
}

// validateMembers checks [Spec.Members]: each member valid, in DB order,
// each database once.
func validateMembers(members []Member) error {
	for i, m := range members {
		if err := m.Validate(); err != nil {
			return err
		}
		if i > 0 && m.DB <= members[i-1].DB {
			return invalidf("sequence members must be in database order, each database once (%q after %q)", m.DB, members[i-1].DB)
		}
	}
	return nil
}

// sameMembers reports whether a and b are the same members with the same
// views and native ranges; nil and empty are the same.
func sameMembers(a, b []Member) bool {
	return slices.EqualFunc(a, b, func(x, y Member) bool {
		return x.DB == y.DB && x.OwnedBy == y.OwnedBy && slices.Equal(x.Defaults, y.Defaults) &&
			sameNative(x.Native, y.Native)
	})
}

// sameNative reports whether a and b are the same native range: both nil,
// or both the same First and Last.
func sameNative(a, b *NativeRange) bool {
	return a == b || a != nil && b != nil && *a == *b
}

// SameCounter reports whether o counts as s does: the same type,
// increment, bounds and cycle. START, CACHE, OWNED BY, column defaults,
// policy and daily limit do not make another counter.
func (s Spec) SameCounter(o Spec) bool {
	return s.Type == o.Type && s.Increment == o.Increment && s.Min == o.Min && s.Max == o.Max && s.Cycle == o.Cycle
}

// Member returns the member db of the spec, if any.
func (s Spec) Member(db string) (Member, bool) {
	i := slices.IndexFunc(s.Members, func(m Member) bool { return m.DB == db })
	if i < 0 {
		return Member{}, false
	}
	return s.Members[i], true
}

// View returns the spec as database db sees it, and whether db sees it at
// all: a member's view has its OWNED BY and column defaults; a spec without
// members is every database's, as it is. Members is left as it is.
func (s Spec) View(db string) (Spec, bool) {
	if len(s.Members) == 0 {
		return s, true
	}
	m, ok := s.Member(db)
	if !ok {
		return s, false
	}
	s.OwnedBy, s.Defaults = m.OwnedBy, m.Defaults
	return s, true
}

// WithMember returns members with m in db order, replacing the member of
// the same database. The slice given is not modified.
func WithMember(members []Member, m Member) []Member {
	out := make([]Member, 0, len(members)+1)
	for _, x := range members {
		if x.DB != m.DB {
			out = append(out, x)
		}
	}
	out = append(out, m)
	slices.SortFunc(out, func(a, b Member) int { return strings.Compare(a.DB, b.DB) })
	return out
}

// WithoutMember returns members without db's. The slice given is not
// modified.
func WithoutMember(members []Member, db string) []Member {
	return slices.DeleteFunc(slices.Clone(members), func(m Member) bool { return m.DB == db })
}

// MemberDBs returns the databases of members, for messages.
func MemberDBs(members []Member) []string {
	out := make([]string, len(members))
	for i, m := range members {
		out[i] = m.DB
	}
	return out
}

// EncodeMembers writes members for a store, as JSON: "" for none.
func EncodeMembers(members []Member) string {
	if len(members) == 0 {
		return ""
	}
	b, err := json.Marshal(members)
	if err != nil { // strings and small structs only: cannot fail
		panic(err)
	}
	return string(b)
}

// DecodeMembers reads what [EncodeMembers] wrote; "" and "[]" are none.
func DecodeMembers(s string) ([]Member, error) {
	if s == "" || s == "[]" || s == "null" {
		return nil, nil
	}
	var members []Member
	if err := json.Unmarshal([]byte(s), &members); err != nil {
		return nil, fmt.Errorf("sequence: members: %w", err)
	}
	for i, m := range members {
		if m.DB == "" {
			return nil, fmt.Errorf("sequence: members: member %d has no database", i)
		}
		if len(m.Defaults) == 0 {
			members[i].Defaults = nil
		}
	}
	return members, nil
}

// CounterError is the error of an Attach (CREATE SEQUENCE, or a serial or
// identity column, in a database that has not declared a sequence the
// store has) whose options would make another counter than the stored
// one: SQLSTATE 42P07, naming the stored definition and the databases that
// use it.
func CounterError(name string, stored Spec, members []Member) *Error {
	dbs := "no database"
	if len(members) > 0 {
		dbs = "database " + strings.Join(MemberDBs(members), ", ")
	}
	return &Error{Code: CodeDuplicateTable, Kind: ErrExists, Message: fmt.Sprintf(
		"seqshim: sequence %q exists in the shared sequence store with another definition (%s), used by %s: "+
			"databases sharing a store share its counters, and one name is one counter",
		RelName(name), stored.CounterString(), dbs),
		Hint: "Declare it with the same type, INCREMENT, MINVALUE, MAXVALUE and CYCLE, or give this database's sequence another name (or this database a store prefix of its own)."}
}

// CounterString writes the counter's shape as CREATE SEQUENCE would.
func (s Spec) CounterString() string {
	cycle := "NO CYCLE"
	if s.Cycle {
		cycle = "CYCLE"
	}
	return fmt.Sprintf("AS %s INCREMENT %d MINVALUE %d MAXVALUE %d %s", s.Type, s.Increment, s.Min, s.Max, cycle)
}
