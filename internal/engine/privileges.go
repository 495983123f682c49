package engine

// Privileges, one concept in one file: a store sequence with a fenced twin
// (fenced.go) has the twin's owner and ACL — GRANT, REVOKE and OWNER TO go
// to the twin — and the session enforces them as PostgreSQL does, against
// its current role: nextval needs USAGE or UPDATE, currval and lastval
// USAGE or SELECT, setval UPDATE (42501 "permission denied for sequence
// s"), and ALTER, RENAME, SET SCHEMA and DROP ownership (42501 "must be
// owner of sequence s"), a member of the owning role counting as an owner.
// A superuser bypasses them, as natively: the server reports is_superuser
// after every change of role, so a superuser's session pays nothing.
//
// What a role may do is read from the database (has_sequence_privilege, one
// query per sequence) and kept by the session until a statement may have
// changed the role or the privileges — SET ROLE, SET SESSION
// AUTHORIZATION, RESET, DISCARD ALL, set_config, the end of a transaction
// (SET LOCAL), GRANT, REVOKE, CREATE, ALTER or DROP in any session of the
// process — and at most privilegesTTL, for the GRANTs of other processes.
// A store sequence without a twin (seqctl create, or made before twins)
// has no privileges in the database: every role may use it.

import (
	"context"
	"time"

	"github.com/seqshim/seqshim/internal/fence"
	"github.com/seqshim/seqshim/rewrite"
	"github.com/seqshim/seqshim/sequence"
)

// privilegesTTL bounds how long a session keeps what it read of the twins'
// privileges, for changes made by other processes.
const privilegesTTL = 10 * time.Second

// Privilege bits of a sequence for the session's current role.
const (
	privRead     uint8 = 1 << iota // read from the database
	privTwin                       // the sequence has a relation in the database
	privUsage                      // USAGE
	privSelect                     // SELECT
	privUpdate                     // UPDATE
	privOwner                      // a member of its owning role
	privIdentity                   // an identity column's sequence
)

type privileges struct {
	// started: of, gen, at and super are current (of may be empty).
	started bool
	// super is the server's is_superuser for the current role, read when
	// of is started: only a change of role changes it, and that clears of.
	super bool
	gen   uint64           // Engine.relGen when of was started
	of    map[string]uint8 // canonical name → privilege bits
	at    time.Time        // when of was started
}

// privilegesQuery reads the privileges of the current role on the relation
// its parameter names (a regclass input): no row when there is none.
const privilegesQuery = `SELECT pg_catalog.has_sequence_privilege(c.oid, 'USAGE')::text, pg_catalog.has_sequence_privilege(c.oid, 'SELECT')::text,
	pg_catalog.has_sequence_privilege(c.oid, 'UPDATE')::text, pg_catalog.pg_has_role(c.relowner, 'USAGE')::text,
	EXISTS (SELECT FROM pg_catalog.pg_depend d WHERE d.classid = 'pg_catalog.pg_class'::pg_catalog.regclass AND d.objid = c.oid AND d.deptype = 'i')::text
FROM pg_catalog.pg_class c WHERE c.oid = pg_catalog.to_regclass($1) AND c.relkind = 'S'`

// forgetPrivileges notes that the role or the privileges may have changed.
func (s *Session[A]) forgetPrivileges() { s.privs.started = false }

// privileges returns the privilege bits of the current role on store
// sequence name (canonical); 0 with ok false when there is nothing to
// check: no database session, a superuser, seqshim.ddl=both.
// Session.drawAgain checks the first two cases itself.
func (s *Session[A]) privileges(ctx context.Context, name string) (bits uint8, ok bool, err error) {
	if !s.twins() {
		return 0, false, nil
	}
	p := &s.privs
	gen := s.eng.relGen.Load()
	if p.started && p.super && gen == p.gen {
		return 0, false, nil // the common case of a superuser's session: no clock read
	}
	if !p.started || gen != p.gen || time.Since(p.at) > privilegesTTL {
		if p.of == nil {
			p.of = map[string]uint8{}
		}
		clear(p.of)
		p.gen, p.at, p.started = gen, time.Now(), true
		p.super = s.db.ParameterStatus("is_superuser") == "on"
	}
	if p.super {
		return 0, false, nil
	}
	if bits, ok := p.of[name]; ok {
		return bits, true, nil
	}
	row, err := s.queryRow(ctx, privilegesQuery, fence.Quote(name))
	if err != nil {
		return 0, false, err
	}
	bits = privRead
	if len(row) == 5 {
		bits |= privTwin
		for i, b := range []uint8{privUsage, privSelect, privUpdate, privOwner, privIdentity} {
			if fence.IsTrue(row[i]) {
				bits |= b
			}
		}
	}
	p.of[name] = bits
	return bits, true, nil
}

// callAllowed returns PostgreSQL's 42501 when the current role may not
// call fn on store sequence name: nextval needs USAGE or UPDATE, currval
// and lastval USAGE or SELECT, setval UPDATE; an identity column's default
// needs nothing.
func (s *Session[A]) callAllowed(ctx context.Context, fn rewrite.Func, name string) error {
	bits, ok, err := s.privileges(ctx, name)
	if err != nil || !ok || bits&privTwin == 0 {
		return err
	}
	var need uint8
	switch fn {
	case rewrite.Nextval:
		need = privUsage | privUpdate
	case rewrite.Currval, rewrite.Lastval:
		need = privUsage | privSelect
	case rewrite.Setval:
		need = privUpdate
	default:
		return nil
	}
	if bits&need != 0 {
		return nil
	}
	if bits&privIdentity != 0 && fn == rewrite.Nextval && (s.dmlVerb == "INSERT" || s.dmlVerb == "MERGE") {
		// PostgreSQL checks no privilege on an identity's sequence when
		// the column takes its default, which is what seqshim wrote into
		// this INSERT (an INSERT calling nextval of an identity's sequence
		// in its own text is let through too: see README, Caveats).
		return nil
	}
	return &sequence.Error{Code: codeInsufficientPrivilege, Kind: sequence.ErrInvalid,
		Message: "permission denied for sequence " + sequence.RelName(name)}
}

// ownerAllowed returns PostgreSQL's 42501 when the current role does not
// own store sequence name (is not a member of its owning role), for DDL
// that needs ownership.
func (s *Session[A]) ownerAllowed(ctx context.Context, name string) error {
	bits, ok, err := s.privileges(ctx, name)
	if err != nil || !ok || bits&privTwin == 0 || bits&privOwner != 0 {
		return err
	}
	return &sequence.Error{Code: codeInsufficientPrivilege, Kind: sequence.ErrInvalid,
		Message: "must be owner of sequence " + sequence.RelName(name)}
}
