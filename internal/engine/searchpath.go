package engine

import (
	"context"
	"errors"
	"fmt"
	"slices"

	"github.com/seqshim/seqshim/rewrite"
	"github.com/seqshim/seqshim/sequence"
)

// PostgreSQL resolves a sequence name written without a schema through the
// session's search_path: the first schema of the path that has a relation
// of that name, after the implicit pg_catalog, skipping schemas that do not
// exist; and creates one in the first schema of the path that exists. A
// session learns its effective path (current_schemas: "$user" replaced,
// missing schemas left out) with one query ([DB]) when the connection
// opens, and again only after a statement that may have changed it
// (rewrite.Statement.Path: SET, RESET, SET ROLE, CREATE/DROP/ALTER SCHEMA, …)
// or the end of a transaction that ran one: SET is transactional.
// Resolving a name reads the store (the store is the source of truth: the
// database may hold no sequences), once per name until the path changes or
// this engine applies sequence DDL, and not at all when the path is public
// alone (the default "$user", public without a schema of the user's name);
// a repeated nextval of an unqualified name costs a map lookup, and nothing
// reaches the database.

// The catalog queries. pathQuery is the effective path as a search_path
// setting: the schemas of current_schemas(false), which PostgreSQL's
// namespace.c computes ("$user" is current_user; schemas that do not exist,
// or that the user may not use, are left out).
const (
	pathQuery     = "SELECT coalesce(pg_catalog.string_agg(pg_catalog.quote_ident(s), ',' ORDER BY i), '') FROM pg_catalog.unnest(pg_catalog.current_schemas(false)) WITH ORDINALITY AS u(s, i)"
	creationQuery = "SELECT coalesce((pg_catalog.current_schemas(false))[1]::text, '')"
	// sessionQuery is what a session reads when it opens: the path, and
	// the database's identity (sequence.DatabaseID), in one round trip.
	sessionQuery = "SELECT (" + pathQuery + "), (SELECT system_identifier::text FROM pg_catalog.pg_control_system()) || '/' || " +
		"(SELECT oid::text FROM pg_catalog.pg_database WHERE datname = pg_catalog.current_database()) || '/' || pg_catalog.current_database()"
	schemaQuery = "SELECT count(*)::text FROM pg_catalog.pg_namespace WHERE nspname = $1"
)

// SQLSTATEs of schema errors, PostgreSQL's own.
const (
	codeUndefinedSchema       = "3F000"
	codeInsufficientPrivilege = "42501"
)

// searchPath is a session's view of its search_path.
type searchPath struct {
	known   bool   // schemas is the path in effect
	touched bool   // the path may have changed since the last transaction end
	trivial bool   // schemas is just public, the temporary schema searched first: nothing to resolve
	changes uint64 // counts the times the path was learned or may have changed

	schemas []string // where to look for an unqualified name, in order: the path's existing schemas, pg_catalog and pg_temp left out
	// tempAt is how many of schemas come before the session's temporary
	// schema: 0 when the path does not list it (pg_temp), as PostgreSQL
	// then searches it first for relations. tempListed: the path lists
	// it, which makes it where an unqualified name is created when first.
	tempAt     int
	tempListed bool

	resolved map[string]string // unqualified canonical name → the sequence it names
	gen      uint64            // the engine's DDL generation resolved was filled at
}

func (s *Session[A]) notePath(e rewrite.PathEffect) {
	s.heardFrom()
	if e != 0 {
		s.forgetPrivileges() // a role set, reset or ended with the transaction
	}
	if e&rewrite.ChangesPath != 0 {
		s.path.known = false
		s.path.changes++
		s.path.touched = true
	}
	if e&(rewrite.EndsTransaction|rewrite.RollsBackToSavepoint) != 0 {
		s.tempsTxEnd(e&rewrite.EndsTransaction != 0) // ON COMMIT DROP, a CREATE rolled back
	}
	if e&(rewrite.EndsTransaction|rewrite.RollsBackToSavepoint) != 0 && s.path.touched {
		s.path.known = false
		s.path.changes++
		// After ROLLBACK TO SAVEPOINT, the transaction may still undo
		// what came before the savepoint.
		s.path.touched = e&rewrite.EndsTransaction == 0
	}
}

// learnSession reads what a session needs when it opens: its search_path
// and its database's identity.
func (s *Session[A]) learnSession(ctx context.Context) error {
	s.heardFrom()
	row, err := s.queryRow(ctx, sessionQuery)
	if err != nil {
		return err
	}
	if len(row) != 2 || row[1] == "" {
		return fmt.Errorf("seqshim: reading the session's search_path and database: got %q", row)
	}
	s.dbID = row[1]
	s.setPath(row[0])
	return nil
}

// learnPath reads the session's effective search_path.
func (s *Session[A]) learnPath(ctx context.Context) error {
	s.heardFrom()
	row, err := s.queryRow(ctx, pathQuery)
	if err != nil {
		return err
	}
	if len(row) != 1 {
		return fmt.Errorf("seqshim: reading the search_path: got %d columns, want 1", len(row))
	}
	s.setPath(row[0])
	return nil
}

// setPath is what learnPath learned: the effective search_path as a
// setting.
func (s *Session[A]) setPath(setting string) {
	s.path.schemas, s.path.tempAt, s.path.tempListed = pathTempSchemas(setting, "")
	s.path.trivial = len(s.path.schemas) == 1 && s.path.schemas[0] == sequence.DefaultSchema && s.path.tempAt == 0
	s.path.known = true
	s.path.changes++
	clear(s.path.resolved)
	if s.path.tempListed && !s.temps.maybe {
		s.temps.maybe, s.temps.known = true, false // the path names pg_temp: CREATE may make temporary relations
	}
}

// pathSchemas are the schemas a search_path setting names for lookup, in
// order, without repeats: "$user" is user, pg_catalog (which holds no store
// sequence: seqshim creates none there) and temporary schemas (the
// session's own, which the database serves: see temp.go) are left out. A
// malformed setting names none.
func pathSchemas(setting, user string) []string {
	out, _, _ := pathTempSchemas(setting, user)
	return out
}

// pathTempSchemas is pathSchemas, and how many of them come before the
// temporary schema and whether the setting lists it.
func pathTempSchemas(setting, user string) (out []string, tempAt int, tempListed bool) {
	names, _ := sequence.SplitIdentifiers(setting)
	out = make([]string, 0, len(names))
	for _, n := range names {
		if n == "$user" {
			n = user
		}
		if rewrite.IsTempSchema(n) && !tempListed {
			tempAt, tempListed = len(out), true
		}
		if n == "" || n == "pg_catalog" || rewrite.IsTempSchema(n) || contains(out, n) {
			continue
		}
		out = append(out, n)
	}
	return out, tempAt, tempListed
}

func contains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}

// resolve returns the sequence an unqualified name (canonical, as in
// public) names in this session: the first schema of the search_path whose
// sequence of that name the store has. A name none has is PostgreSQL's
// 42P01 for the name as written.
func (s *Session[A]) resolve(ctx context.Context, name string) (string, error) {
	if s.db == nil {
		return name, nil
	}
	if !s.path.known {
		if err := s.learnPath(ctx); err != nil {
			return "", err
		}
	}
	if s.temps.maybe && s.path.tempAt == 0 {
		if r, ok, err := s.tempRelation(ctx, name); ok || err != nil {
			return r, err // the session's temporary relation hides the store's
		}
	}
	if s.path.trivial {
		return name, nil
	}
	if g := s.eng.ddlGen.Load(); g != s.path.gen {
		clear(s.path.resolved)
		s.path.gen = g
	}
	if r, ok := s.path.resolved[name]; ok {
		return r, nil
	}
	rel := sequence.RelName(name)
	for i, schema := range s.path.schemas {
		if i == s.path.tempAt && i > 0 && s.temps.maybe {
			if r, ok, err := s.tempRelation(ctx, name); ok || err != nil {
				return r, err
			}
		}
		cand := sequence.FormatName(schema, rel)
		ok, err := s.exists(ctx, cand) // this database's
		if err != nil {
			return "", err
		}
		if !ok {
			continue
		}
		if s.path.resolved == nil {
			s.path.resolved = make(map[string]string)
		}
		s.path.resolved[name] = cand
		return cand, nil
	}
	if s.temps.maybe && s.path.tempAt > 0 && s.path.tempAt >= len(s.path.schemas) {
		if r, ok, err := s.tempRelation(ctx, name); ok || err != nil {
			return r, err
		}
	}
	return "", sequence.NotFoundError(name)
}

// forget drops a resolution that named a sequence that is gone.
func (s *Session[A]) forget(name string) { delete(s.path.resolved, name) }

// creationName returns the sequence CREATE SEQUENCE name creates: an
// unqualified name in the first schema of the search_path that exists
// (3F000 when none does), a qualified one in its schema, which must exist
// (3F000). pg_catalog is PostgreSQL's 42501. A temporary schema is the
// database's (temp.go): callers send such a CREATE as it is, and a store
// sequence is never created there (0A000).
func (s *Session[A]) creationName(ctx context.Context, name string, unqualified bool) (string, error) {
	if s.db == nil {
		return name, nil
	}
	schema, rel := sequence.SplitName(name)
	if unqualified {
		row, err := s.queryRow(ctx, creationQuery)
		if err != nil {
			return "", err
		}
		if len(row) != 1 || row[0] == "" {
			return "", schemaError(codeUndefinedSchema, "no schema has been selected to create in")
		}
		schema = row[0]
	} else if err := s.schemaExists(ctx, schema); err != nil {
		return "", err
	}
	switch {
	case schema == "pg_catalog":
		return "", schemaError(codeInsufficientPrivilege, `permission denied to create "%s.%s"`, schema, rel)
	case rewrite.IsTempSchema(schema):
		// The database's to create (rewrite passes a name written in
		// pg_temp through, and Session.nativeDDL a CREATE that the
		// search_path puts there): never a store sequence.
		return "", &sequence.Error{Code: sequence.CodeFeatureNotSupported, Kind: sequence.ErrInvalid,
			Message: "seqshim: a store sequence cannot be created in a temporary schema; create the temporary sequence in a statement of its own"}
	}
	return sequence.FormatName(schema, rel), nil
}

// schemaExists returns PostgreSQL's 3F000 when the database has no schema
// of that name. pg_temp, which names the session's temporary schema, is
// left to the caller.
func (s *Session[A]) schemaExists(ctx context.Context, schema string) error {
	if s.db == nil || schema == "pg_temp" {
		return nil
	}
	row, err := s.queryRow(ctx, schemaQuery, schema)
	if err != nil {
		return err
	}
	if len(row) == 1 && row[0] == "0" {
		return schemaError(codeUndefinedSchema, `schema "%s" does not exist`, schema)
	}
	return nil
}

// missingSchema turns the store's "does not exist" for a schema-qualified
// name into PostgreSQL's 3F000 when the schema is what is missing, as
// PostgreSQL looks the schema up first. Other errors are returned as they
// are. It costs a catalog query, on the error path only.
func (s *Session[A]) missingSchema(ctx context.Context, name string, err error) error {
	if !errors.Is(err, sequence.ErrNotFound) {
		return err
	}
	schema, rel := sequence.SplitName(name)
	if e := s.schemaExists(ctx, schema); e != nil {
		return e
	}
	if schema == sequence.DefaultSchema && s.db != nil {
		// The name as written: the canonical name leaves public out.
		return &sequence.Error{Code: sequence.CodeUndefinedTable, Kind: sequence.ErrNotFound,
			Message: fmt.Sprintf(`relation "%s.%s" does not exist`, schema, rel)}
	}
	return err
}

func schemaError(code, format string, args ...any) *sequence.Error {
	return &sequence.Error{Code: code, Kind: sequence.ErrInvalid, Message: fmt.Sprintf(format, args...)}
}

// pathBefore checks a plan whose statements include one that may change
// the search_path before a statement with an unqualified name: the engine
// does a string's sequence work before the database runs any of it, so it
// would resolve the name with the path of before. PostgreSQL would use the
// new path: seqshim refuses.
func pathBefore(pl *rewrite.Plan) (rewrite.PathEffect, error) {
	var effects rewrite.PathEffect
	for i := range pl.Statements {
		st := &pl.Statements[i]
		if st.Kind == rewrite.PassThrough {
			effects |= st.Path
			continue
		}
		if st.Fallback() {
			continue // sent as it is after a change: see evaluate
		}
		if effects&rewrite.ChangesPath != 0 && hasUnqualified(st) {
			return effects, &sequence.Error{Code: sequence.CodeFeatureNotSupported, Kind: rewrite.ErrUnsupported,
				Message: "seqshim: a sequence name without a schema after a statement that may change the search_path, in the same query string, cannot be resolved as PostgreSQL would: send them as separate statements, or qualify the name"}
		}
	}
	return effects, nil
}

// hasUnqualified reports whether a statement names a sequence without a
// schema, or by a bind argument.
func hasUnqualified(st *rewrite.Statement) bool {
	for _, c := range st.Calls {
		if c.Unqualified || c.NameArg >= 0 {
			return true
		}
	}
	if st.DDL != nil {
		for _, u := range st.DDL.Unqualified {
			if u {
				return true
			}
		}
	}
	return false
}

// ddlNames resolves the names of ALTER or DROP SEQUENCE: an unqualified
// one through the search_path, "" when no schema has it and the statement
// says IF EXISTS.
func (s *Session[A]) ddlNames(ctx context.Context, d *rewrite.DDL) ([]string, error) {
	names := d.Names
	for i, name := range d.Names {
		if !d.IsUnqualified(i) || s.db == nil {
			continue
		}
		r, err := s.resolve(ctx, name)
		if err != nil && !(d.IfExists && errors.Is(err, sequence.ErrNotFound)) {
			if d.Op == rewrite.Drop {
				err = dropError(err)
			}
			return nil, err
		}
		if r != name {
			if &names[0] == &d.Names[0] {
				names = slices.Clone(d.Names) // the plan's are shared
			}
			names[i] = r
		}
	}
	return names, nil
}

// ddlError is the error of sequence DDL on names[i] (resolved): for a
// schema-qualified name whose schema is missing, PostgreSQL's 3F000.
func (s *Session[A]) ddlError(ctx context.Context, d *rewrite.DDL, i int, name string, err error) error {
	if i >= 0 && !d.IsUnqualified(i) {
		return s.missingSchema(ctx, name, err)
	}
	return err
}
