package engine

import (
	"errors"
	"fmt"
	"slices"
	"testing"

	"github.com/jackc/pgx/v5/pgconn"
)

// message is err's SQLSTATE and message.
func message(err error) string {
	var pe *pgconn.PgError
	if errors.As(err, &pe) {
		return pe.Code + " " + pe.Message
	}
	return fmt.Sprint(err)
}

// privilegeReads counts the session's reads of privileges.
func privilegeReads(db *fakeDB) int {
	n := 0
	for _, q := range db.queries {
		if q == privilegesQuery {
			n++
		}
	}
	return n
}

// TestPrivilegesCached: the privileges of the session's role on a store
// sequence with a twin are read once, enforced on every call (42501 with
// PostgreSQL's messages), read again after a statement that may change the
// role, and never read for a superuser.
func TestPrivilegesCached(t *testing.T) {
	none := []string{"false", "false", "false", "false", "false"}
	usage := []string{"true", "false", "false", "false", "false"}
	db := &fakeDB{params: map[string]string{"is_superuser": "off"}, privs: map[string][]string{`"public"."s"`: none}}
	s := newSession(t, db)

	for range 2 {
		if _, _, err := run(t, s, "SELECT nextval('s')"); message(err) != "42501 permission denied for sequence s" {
			t.Fatalf("nextval without USAGE or UPDATE: %v, want 42501", err)
		}
	}
	if n := privilegeReads(db); n != 1 {
		t.Errorf("%d reads of the privileges for two calls, want 1", n)
	}
	if _, _, err := run(t, s, "ALTER SEQUENCE s RESTART"); message(err) != "42501 must be owner of sequence s" {
		t.Errorf("ALTER by a role that does not own it: %v, want 42501", err)
	}

	// The role changes: read again.
	db.privs[`"public"."s"`] = usage
	run(t, s, "SET ROLE app")
	if _, _, err := run(t, s, "SELECT nextval('s'), currval('s')"); err != nil {
		t.Fatalf("nextval and currval with USAGE: %v", err)
	}
	if n := privilegeReads(db); n != 2 {
		t.Errorf("%d reads of the privileges after SET ROLE, want 2", n)
	}
	if _, _, err := run(t, s, "SELECT setval('s', 5)"); code(err) != "42501" {
		t.Errorf("setval without UPDATE: %v, want 42501", err)
	}

	// A superuser: nothing is read, nothing refused.
	db.params["is_superuser"] = "on"
	db.privs[`"public"."s"`] = none
	run(t, s, "RESET ROLE")
	before := privilegeReads(db)
	if _, _, err := run(t, s, "SELECT setval('s', 5), nextval('s')"); err != nil {
		t.Fatalf("a superuser: %v", err)
	}
	if n := privilegeReads(db); n != before {
		t.Errorf("%d reads of the privileges for a superuser, want none", n-before)
	}

	// A store sequence without a twin has no privileges to check.
	db.params["is_superuser"] = "off"
	delete(db.privs, `"public"."s"`)
	run(t, s, "RESET ROLE")
	if _, _, err := run(t, s, "SELECT nextval('s')"); err != nil {
		t.Errorf("a store sequence without a twin: %v", err)
	}
	if !slices.Contains(db.queries, privilegesQuery) {
		t.Error("no read of the privileges at all")
	}
}
