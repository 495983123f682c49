// Schema moves, one concept in one file: ALTER SEQUENCE … SET SCHEMA (and
// ALTER TABLE … SET SCHEMA of a sequence) of a store sequence, and ALTER
// TABLE t SET SCHEMA of a table whose columns own store sequences, which
// move with it as PostgreSQL's AlterSeqNamespaces moves them. A move is a
// rename in the store (the counter keeps its position, values and column
// defaults), checked as PostgreSQL's AlterTableNamespace checks it. Like
// RENAME, it is refused for a counter other databases share: its name is
// theirs too, and they would lose it.

package engine

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"

	"github.com/seqshim/seqshim/rewrite"
	"github.com/seqshim/seqshim/sequence"
)

// moveTarget checks ALTER SEQUENCE names[i] SET SCHEMA outside a
// transaction block, as PostgreSQL does, in its order: the sequence is
// found (42P01, 42809 for another relation, IF EXISTS skips it), then
// moveTo. It returns the sequence's new name, "" when there is nothing to
// do.
func (s *Session[A]) moveTarget(ctx context.Context, d *rewrite.DDL, i int, name string) (string, error) {
	info, visible, err := s.describe(ctx, name)
	if err == nil && !visible {
		err = notHere(name)
	}
	if err != nil {
		err = s.notSequence(ctx, name, d.IsUnqualified(i), err)
		if d.IfExists && errors.Is(err, sequence.ErrNotFound) {
			return "", nil
		}
		return "", s.eng.storeErr(s.ddlError(ctx, d, i, name, err))
	}
	return s.moveTo(ctx, name, info.Spec.OwnedBy, d.RenameTo)
}

// moveTo checks the move of sequence name, found with OWNED BY ownedBy in
// this database, to the canonical name to, in PostgreSQL's order: an
// owned sequence moves only with its table (0A000), the schema must exist
// (3F000) and be neither temporary nor TOAST (0A000), and its name must be
// free there (42P07). It returns to, or "" when the sequence is in that
// schema already: nothing to do, as in PostgreSQL.
func (s *Session[A]) moveTo(ctx context.Context, name, ownedBy, to string) (string, error) {
	if ownedBy != "" {
		return "", s.ownedMoveError(ctx, name, ownedBy)
	}
	schema, _ := sequence.SplitName(to)
	if err := s.checkTargetSchema(ctx, schema); err != nil {
		return "", err
	}
	if from, _ := sequence.SplitName(name); from == schema {
		return "", nil
	}
	if err := s.checkMoveFree(ctx, to, false); err != nil {
		return "", err
	}
	return to, nil
}

// ownedMoveError is PostgreSQL's error for moving an owned sequence alone,
// with its DETAIL naming the table.
func (s *Session[A]) ownedMoveError(ctx context.Context, name, ownedBy string) error {
	err := &sequence.Error{Code: sequence.CodeFeatureNotSupported, Kind: sequence.ErrInvalid,
		Message: "cannot move an owned sequence into another schema"}
	if _, rel, _, ok := parseOwnerRef(ownedBy); ok && s.db != nil {
		row, qerr := s.queryRow(ctx, "SELECT relname FROM pg_catalog.pg_class WHERE oid = $1::pg_catalog.oid", fmt.Sprint(rel))
		if qerr == nil && len(row) == 1 {
			err.Detail = fmt.Sprintf(`Sequence "%s" is linked to table "%s".`, sequence.RelName(name), row[0])
		}
	}
	return err
}

// targetSchemaQuery tells what kind of schema its one parameter names: no
// row when there is none; "toast", "temp" (the session's own temporary
// schemas), "other" (another session's) or "" (an ordinary schema).
const targetSchemaQuery = `SELECT CASE WHEN n.nspname = 'pg_toast' THEN 'toast'
	WHEN pg_catalog.pg_is_other_temp_schema(n.oid) THEN 'other'
	WHEN pg_catalog.starts_with(n.nspname, 'pg_temp_') OR pg_catalog.starts_with(n.nspname, 'pg_toast_temp_') THEN 'temp'
	ELSE '' END
FROM pg_catalog.pg_namespace n WHERE n.nspname = $1`

// checkTargetSchema returns PostgreSQL's error for SET SCHEMA schema of a
// sequence: 3F000 when it does not exist, 0A000 for a temporary or TOAST
// schema; and seqshim's 0A000 for pg_catalog, where seqshim's name
// resolution never looks for a store sequence (PostgreSQL lets a superuser
// move a sequence there, where it would be found before any other).
func (s *Session[A]) checkTargetSchema(ctx context.Context, schema string) error {
	unsupported := func(msg string) error {
		return &sequence.Error{Code: sequence.CodeFeatureNotSupported, Kind: sequence.ErrInvalid, Message: msg}
	}
	if schema == "pg_temp" {
		return unsupported("cannot move objects into or out of temporary schemas")
	}
	if s.db == nil {
		return nil
	}
	row, err := s.queryRow(ctx, targetSchemaQuery, schema)
	switch {
	case err != nil:
		return err
	case len(row) != 1:
		return schemaError(codeUndefinedSchema, `schema "%s" does not exist`, schema)
	case row[0] == "toast":
		return unsupported("cannot move objects into or out of TOAST schema")
	case row[0] == "temp":
		return unsupported("cannot move objects into or out of temporary schemas")
	case row[0] == "other":
		return unsupported("cannot create relations in temporary schemas of other sessions")
	case schema == "pg_catalog":
		return unsupported("seqshim: a store sequence cannot move into pg_catalog, where seqshim does not look for store sequences: choose another schema")
	}
	return nil
}

// checkMoveFree returns PostgreSQL's 42P07 when the canonical name to is
// taken, in the session's view: by a relation of the database, a sequence
// the open transaction holds, or a sequence of the store (of any database
// sharing it: the store has one namespace).
//
// twin: the relation at to is the sequence's own twin, moved already.
func (s *Session[A]) checkMoveFree(ctx context.Context, to string, twin bool) error {
	schema, rel := sequence.SplitName(to)
	taken := func() error {
		return &sequence.Error{Code: sequence.CodeDuplicateTable, Kind: sequence.ErrExists,
			Message: fmt.Sprintf(`relation "%s" already exists in schema "%s"`, rel, schema)}
	}
	if kind, err := s.relkind(ctx, to, false); err != nil {
		return err
	} else if kind != 0 && !twin {
		return taken()
	}
	if s.tx != nil {
		if hs, gone := s.tx.lookup(to); hs != nil {
			return taken()
		} else if gone {
			return nil // dropped or renamed away first, at COMMIT too
		}
	}
	_, err := s.eng.store.Describe(ctx, to)
	switch {
	case errors.Is(err, sequence.ErrNotFound):
		return nil
	case err != nil:
		return s.eng.storeErr(err)
	}
	return taken()
}

// sharedRenameError is the 0A000 of a rename or a move of a counter other
// databases share: their catalogs would lose it.
func sharedRenameError(name, to string, info sequence.Info, move bool) error {
	schema, rel := sequence.SplitName(to)
	what, create := "RENAME TO "+rel, rel
	if move {
		what, create = "SET SCHEMA "+schema, schema+"."+rel
	}
	return unsupportedf(`seqshim: ALTER SEQUENCE %s %s: the sequence is shared with other databases (%s), whose catalogs would lose it; `+
		`create %s (it continues no counter), or rename it in every database at once with seqctl`,
		sequence.RelName(name), what, strings.Join(sequence.MemberDBs(info.Spec.Members), ", "), create)
}

// checkShared refuses the rename or move of sequence name (origin in the
// store, "" for one the open transaction created) when other databases
// share its counter.
func (s *Session[A]) checkShared(ctx context.Context, name, origin, to string, move bool) error {
	if origin == "" || s.dbID == "" {
		return nil
	}
	info, err := s.eng.store.Describe(ctx, origin)
	switch {
	case errors.Is(err, sequence.ErrNotFound):
		return nil // the commit finds out
	case err != nil:
		return s.eng.storeErr(err)
	case s.others(info):
		return sharedRenameError(name, to, info, move)
	}
	return nil
}

// tableOwns returns the store sequences owned by a column of table (OWNED
// BY: serial and identity columns' sequences among them), as the session
// sees them, in the order of the owning columns: PostgreSQL moves them with
// the table.
func (s *Session[A]) tableOwns(ctx context.Context, table tableRef) ([]string, error) {
	if s.db == nil {
		return nil, nil
	}
	row, err := s.queryRow(ctx, `SELECT c.oid::text, pg_catalog.current_database(), d.oid::text
FROM pg_catalog.pg_class c, pg_catalog.pg_database d
WHERE c.oid = pg_catalog.to_regclass($1) AND d.datname = pg_catalog.current_database()`, table.quoted())
	if err != nil || len(row) != 3 {
		return nil, err
	}
	prefix := ownerRef(row[1], row[2], row[0], "")
	specs, err := s.sessionSpecs(ctx)
	if err != nil {
		return nil, err
	}
	type owned struct {
		name   string
		attnum int16
	}
	var found []owned
	for name, spec := range specs {
		if !strings.HasPrefix(spec.OwnedBy, prefix) {
			continue
		}
		if _, _, att, ok := parseOwnerRef(spec.OwnedBy); ok {
			found = append(found, owned{name, att})
		}
	}
	slices.SortFunc(found, func(a, b owned) int {
		return cmp.Or(cmp.Compare(a.attnum, b.attnum), strings.Compare(a.name, b.name))
	})
	names := make([]string, len(found))
	for i, o := range found {
		names[i] = o.name
	}
	return names, nil
}

// moveOwned is the op of ALTER TABLE … SET SCHEMA schema that moves
// sequence name, owned by the table, with it: held by the transaction the
// table statement runs in, like any sequence DDL. The database has checked
// the schema; the sequence's name must be free there (42P07).
func (s *Session[A]) moveOwned(schema, name string) func(context.Context) error {
	return func(ctx context.Context) error {
		defer s.eng.ddlGen.Add(1) // resolutions of unqualified names may be stale
		if s.tx == nil {
			s.tx = newHeld()
		}
		to := sequence.FormatName(schema, sequence.RelName(name))
		hs, err := s.hold(ctx, name, false)
		if err != nil {
			return err
		}
		// The database moved the table's fenced twins with it (the
		// statement ran first): a twin at to is this sequence's.
		if err := s.checkMoveFree(ctx, to, s.isFenced(ctx, to)); err != nil {
			return err
		}
		return s.holdRename(ctx, name, hs, to, true)
	}
}
