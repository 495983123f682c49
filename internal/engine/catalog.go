// One namespace with the database's catalog: names taken by relations,
// OWNED BY, ALTER TABLE/COMMENT/GRANT/REVOKE on store sequences, and the
// database's errors about them.

package engine

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strconv"
	"strings"

	"github.com/jackc/pgx/v5/pgconn"

	"github.com/seqshim/seqshim/rewrite"
	"github.com/seqshim/seqshim/sequence"
)

// In PostgreSQL a sequence is a relation: it shares one namespace with
// tables, views and indexes, and OWNED BY ties it to a column. A store
// sequence is not in the database's catalog, so seqshim looks there itself,
// with the session's own name resolution (to_regclass), where PostgreSQL
// would: before CREATE SEQUENCE, when the store says a sequence does not
// exist (the name may be a table: 42809, not 42P01), for OWNED BY, and
// after statements that may drop an owning column. Never on the hot path:
// a nextval of an existing sequence asks nothing.

// query runs a catalog query on the session; ok is false when the session
// has no catalog (a dialect other than postgres).
func (s *Session[A]) query(ctx context.Context, sql string) (rows [][]string, ok bool, err error) {
	if s.db == nil {
		return nil, false, nil
	}
	rows, err = s.db.Query(ctx, sql)
	return rows, true, err
}

// literal quotes s as a SQL string literal (standard_conforming_strings on,
// as PostgreSQL 15 has it by default; E” is used where a backslash is).
func literal(s string) string {
	s = strings.ReplaceAll(s, "'", "''")
	if strings.Contains(s, `\`) {
		return "E'" + strings.ReplaceAll(s, `\`, `\\`) + "'"
	}
	return "'" + s + "'"
}

// relkind returns the pg_class relkind of the relation name (canonical)
// names in the session, 0 when there is none or the session cannot tell:
// when unqualified, as PostgreSQL resolves a name written without a
// schema (through the search_path, a temporary relation first); otherwise
// in its schema, public when it has none (a name to create there).
func (s *Session[A]) relkind(ctx context.Context, name string, unqualified bool) (byte, error) {
	arg := name
	if !unqualified {
		arg = tableArg(name)
	}
	rows, ok, err := s.query(ctx, "SELECT relkind FROM pg_catalog.pg_class WHERE oid = pg_catalog.to_regclass("+literal(arg)+")")
	if !ok || err != nil || len(rows) == 0 || len(rows[0]) == 0 || rows[0][0] == "" {
		return 0, err
	}
	return rows[0][0][0], nil
}

// notSequence turns the store's "does not exist" for name into what
// PostgreSQL says when the name is a relation of another kind: 42809 "… is
// not a sequence", or, for a sequence of the database
// itself, a 0A000 saying that seqshim serves store sequences only. Any other
// error, or a name the catalog does not know either, is returned as is.
// unqualified: the name was written without a schema (relkind).
func (s *Session[A]) notSequence(ctx context.Context, name string, unqualified bool, err error) error {
	if !errors.Is(err, sequence.ErrNotFound) {
		return err
	}
	kind, qerr := s.relkind(ctx, name, unqualified)
	if qerr != nil || kind == 0 {
		return err
	}
	return notSequenceError(name, kind)
}

func notSequenceError(name string, kind byte) error {
	rel := sequence.RelName(name)
	if kind == 'S' {
		return &sequence.Error{Code: sequence.CodeFeatureNotSupported, Kind: sequence.ErrInvalid, Message: fmt.Sprintf(
			`seqshim: "%s" is a sequence of the database, not of seqshim's sequence store: `+
				`create it through seqshim (CREATE SEQUENCE) and move its value there with setval, or reach it without seqshim`, rel)}
	}
	return &sequence.Error{Code: codeWrongObjectType, Kind: sequence.ErrInvalid, Message: fmt.Sprintf(`"%s" is not a sequence`, rel)}
}

// codeWrongObjectType is PostgreSQL's wrong_object_type.
const codeWrongObjectType = "42809"

// checkFree fails CREATE SEQUENCE of a name a relation of the database
// already has (42P07); ok is false when it does and IF NOT EXISTS skips it.
func (s *Session[A]) checkFree(ctx context.Context, name string, ifNotExists bool) (ok bool, err error) {
	kind, err := s.relkind(ctx, name, false)
	if err != nil || kind == 0 {
		return err == nil, err
	}
	if ifNotExists {
		return false, nil // PostgreSQL: a notice, nothing created
	}
	return false, sequence.ExistsError(name)
}

// ownedBy resolves OWNED BY as written (quoted parts joined by '.') for the
// sequence name, as PostgreSQL's process_owned_by checks it, into the
// reference the store keeps: "" for NONE, otherwise
// "pg:DATABASE/DATABASE_OID/TABLE_OID/ATTNUM". The reference survives
// renames of the table and the column, as PostgreSQL's dependency does.
func (s *Session[A]) ownedBy(ctx context.Context, name, written string) (string, error) {
	if written == "none" {
		return "", nil
	}
	parts, ok := splitQuoted(written)
	if !ok || len(parts) < 2 {
		return "", &sequence.Error{Code: sequence.CodeSyntaxError, Kind: sequence.ErrInvalid, Message: "invalid OWNED BY option"}
	}
	table, column := parts[:len(parts)-1], parts[len(parts)-1]
	if len(table) > 2 {
		return "", &sequence.Error{Code: sequence.CodeFeatureNotSupported, Kind: sequence.ErrInvalid,
			Message: fmt.Sprintf(`cross-database references are not implemented: "%s"`, strings.Join(table, "."))}
	}
	quoted := make([]string, len(table))
	for i, p := range table {
		quoted[i] = `"` + strings.ReplaceAll(p, `"`, `""`) + `"`
	}
	rows, ok, err := s.query(ctx, `SELECT c.relkind, n.nspname, c.relname, c.oid, a.attnum, pg_catalog.current_database(), d.oid
FROM pg_catalog.pg_class c
JOIN pg_catalog.pg_namespace n ON n.oid = c.relnamespace
JOIN pg_catalog.pg_database d ON d.datname = pg_catalog.current_database()
LEFT JOIN pg_catalog.pg_attribute a ON a.attrelid = c.oid AND a.attname = `+literal(column)+` AND NOT a.attisdropped
WHERE c.oid = pg_catalog.to_regclass(`+literal(strings.Join(quoted, "."))+`)`)
	if err != nil {
		return "", err
	}
	if !ok {
		return "", &sequence.Error{Code: sequence.CodeFeatureNotSupported, Kind: sequence.ErrInvalid,
			Message: "seqshim: OWNED BY needs the database's catalog, which this connection cannot query: use the pgx inner driver, or leave OWNED BY out"}
	}
	if len(rows) == 0 {
		schema, rel := sequence.DefaultSchema, table[len(table)-1]
		if len(table) == 2 {
			schema = table[0]
		}
		if _, err := s.eng.store.Describe(ctx, sequence.FormatName(schema, rel)); err == nil {
			return "", &sequence.Error{Code: codeWrongObjectType, Kind: sequence.ErrInvalid,
				Message: fmt.Sprintf(`sequence cannot be owned by relation "%s"`, rel)}
		}
		return "", &sequence.Error{Code: sequence.CodeUndefinedTable, Kind: sequence.ErrNotFound,
			Message: fmt.Sprintf(`relation "%s" does not exist`, strings.Join(table, "."))}
	}
	r := rows[0]
	kind, nsp, rel, relOID, attnum, db, dbOID := r[0], r[1], r[2], r[3], r[4], r[5], r[6]
	switch kind {
	case "r", "f", "v", "p":
	default:
		return "", &sequence.Error{Code: codeWrongObjectType, Kind: sequence.ErrInvalid,
			Message: fmt.Sprintf(`sequence cannot be owned by relation "%s"`, rel)}
	}
	if schema, _ := sequence.SplitName(name); schema != nsp {
		return "", &sequence.Error{Code: sequence.CodeObjectNotInState, Kind: sequence.ErrInvalid,
			Message: "sequence must be in same schema as table it is linked to"}
	}
	if attnum == "" {
		return "", &sequence.Error{Code: codeUndefinedColumn, Kind: sequence.ErrInvalid,
			Message: fmt.Sprintf(`column "%s" of relation "%s" does not exist`, column, rel)}
	}
	return ownerRef(db, dbOID, relOID, attnum), nil
}

// codeNotNullViolation is PostgreSQL's not_null_violation.
const codeNotNullViolation = "23502"

// codeUndefinedColumn is PostgreSQL's undefined_column.
const codeUndefinedColumn = "42703"

// ownerRef is the reference Spec.OwnedBy keeps for a column.
func ownerRef(db, dbOID, relOID, attnum string) string {
	return "pg:" + db + "/" + dbOID + "/" + relOID + "/" + attnum
}

// parseOwnerRef reads a reference of ownerRef; ok is false for others.
func parseOwnerRef(ref string) (db string, relOID uint32, attnum int16, ok bool) {
	rest, ok := strings.CutPrefix(ref, "pg:")
	if !ok {
		return "", 0, 0, false
	}
	i := strings.LastIndexByte(rest, '/')
	j := strings.LastIndexByte(rest[:max(i, 0)], '/')
	if i < 0 || j < 0 {
		return "", 0, 0, false
	}
	rel, err1 := strconv.ParseUint(rest[j+1:i], 10, 32)
	att, err2 := strconv.ParseInt(rest[i+1:], 10, 16)
	if err1 != nil || err2 != nil {
		return "", 0, 0, false
	}
	return rest[:j], uint32(rel), int16(att), true
}

// splitQuoted splits OWNED BY as the rewrite package writes it: parts
// quoted where needed (sequence.QuoteIdent), joined by '.'.
func splitQuoted(s string) ([]string, bool) {
	var parts []string
	for len(s) > 0 {
		var part string
		if s[0] == '"' {
			var b strings.Builder
			i := 1
			for ; i < len(s); i++ {
				if s[i] == '"' {
					if i+1 < len(s) && s[i+1] == '"' {
						b.WriteByte('"')
						i++
						continue
					}
					break
				}
				b.WriteByte(s[i])
			}
			if i >= len(s) {
				return nil, false
			}
			part, s = b.String(), s[i+1:]
		} else {
			k := strings.IndexByte(s, '.')
			if k < 0 {
				k = len(s)
			}
			part, s = s[:k], s[k:]
		}
		parts = append(parts, part)
		if len(s) > 0 {
			if s[0] != '.' {
				return nil, false
			}
			s = s[1:]
		}
	}
	return parts, len(parts) > 0
}

// dropOrphans drops the store sequences owned by a column of this database
// that no longer exists: what PostgreSQL's dependency does when DROP TABLE,
// ALTER TABLE … DROP COLUMN or DROP SCHEMA … CASCADE drops the column. In a
// transaction block it waits for the block to end (the drop may roll back):
// the next statement with sequence work after it does it.
func (s *Session[A]) dropOrphans(ctx context.Context) error {
	if s.db == nil {
		return nil
	}
	if s.db.TxStatus() != 'I' {
		s.orphansPending = true
		return nil
	}
	s.orphansPending = false
	list, err := s.eng.store.List(ctx)
	if err != nil {
		return s.eng.storeErr(err)
	}
	var (
		names         []string
		rels, attnums []string
		db, haveIdent string
	)
	for _, info := range list {
		view, visible := s.view(info.Spec)
		if !visible {
			continue // another database's
		}
		d, rel, att, ok := parseOwnerRef(view.OwnedBy)
		if !ok {
			continue
		}
		if haveIdent == "" {
			rows, ok, err := s.query(ctx, "SELECT pg_catalog.current_database() || '/' || oid FROM pg_catalog.pg_database WHERE datname = pg_catalog.current_database()")
			if err != nil || !ok || len(rows) == 0 {
				return err
			}
			db, haveIdent = rows[0][0], "yes"
		}
		if d != db {
			continue // owned by a column of another database sharing the store
		}
		names = append(names, info.Name)
		rels = append(rels, strconv.FormatUint(uint64(rel), 10))
		attnums = append(attnums, strconv.Itoa(int(att)))
	}
	if len(names) == 0 {
		return nil
	}
	rows, _, err := s.query(ctx, `SELECT x.i FROM unnest('{`+strings.Join(rels, ",")+`}'::pg_catalog.oid[], '{`+
		strings.Join(attnums, ",")+`}'::pg_catalog.int2[]) WITH ORDINALITY AS x(r, a, i)
WHERE NOT EXISTS (SELECT FROM pg_catalog.pg_attribute WHERE attrelid = x.r AND attnum = x.a AND NOT attisdropped)`)
	if err != nil {
		return err
	}
	for _, r := range rows {
		i, err := strconv.Atoi(r[0])
		if err != nil || i < 1 || i > len(names) {
			return fmt.Errorf("seqshim: unexpected row %q of the ownership query", r)
		}
		name := names[i-1]
		dropped, err := s.dropHere(ctx, name)
		if err != nil && !errors.Is(err, sequence.ErrNotFound) {
			return s.eng.storeErr(err)
		}
		if dropped {
			s.eng.cache.Retire(name) // the process's other sessions see it gone
		}
		s.seq.drop(name)
		s.eng.forgetDefaults()
	}
	return nil
}

// catalogDDL does what a CatalogDDL statement asks of store sequences
// before the database runs it. served is true when the engine did the whole
// statement, which then is not sent: ALTER TABLE s RENAME TO on a store
// sequence. A statement about names that are not store sequences goes to
// the database, which answers as it would without seqshim.
func (s *Session[A]) catalogDDL(ctx context.Context, c *rewrite.Catalog) (served bool, err error) {
	switch c.Op {
	case rewrite.DropsOwners:
		return false, nil // once the database ran it: afterStatements
	case rewrite.AlterTable:
		name, err := s.storeRelation(ctx, c.Names[0], c.Unqualified)
		if err != nil || name == "" {
			return false, err
		}
		if ro, err := s.readOnly(ctx); err != nil || ro {
			if err == nil {
				err = readOnlyError("ALTER TABLE") // before anything else, as in PostgreSQL
			}
			return false, err
		}
		switch c.Action {
		case "RENAME TO":
			schema, _ := sequence.SplitName(name)
			to := sequence.FormatName(schema, sequence.RelName(c.RenameTo))
			return true, s.sequenceDDL(ctx, &rewrite.DDL{Op: rewrite.Rename, Names: []string{name}, RenameTo: to})
		case "SET SCHEMA":
			return true, s.sequenceDDL(ctx, &rewrite.DDL{Op: rewrite.Move, Names: []string{name}, RenameTo: c.RenameTo})
		case "SET LOGGED", "SET UNLOGGED":
			// A store sequence has no persistence of its own (the store is
			// durable); its twin's follows.
			return true, s.sequenceDDL(ctx, &rewrite.DDL{Op: rewrite.SetLogged, Names: []string{name}, Unlogged: c.Action == "SET UNLOGGED"})
		}
		if s.isFenced(ctx, name) {
			return false, nil // OWNER TO and the like: its twin's, in the database
		}
		what := "TABLE"
		if c.Sequence {
			what = "SEQUENCE"
		}
		return false, unsupportedf(`seqshim: ALTER %s … %s is not supported for "%s", a sequence of seqshim's sequence store made without a twin in the database (seqctl create): `+
			`it has no owner there; leave the statement out, or make it through seqshim (CREATE SEQUENCE)`, what, c.Action, sequence.RelName(name))
	case rewrite.ColumnDefaults:
		return false, nil // nothing about store sequences as relations: see tableddl.go
	case rewrite.OnSequence:
		for _, name := range c.Names {
			if ok, err := s.storeOnly(ctx, name); err != nil {
				return false, err
			} else if ok {
				return false, unsupportedf(`seqshim: %s on "%s" is not supported: it is a sequence of seqshim's sequence store, `+
					`which has no comments or privileges (who may use it is who may use the store): leave the statement out`, c.Action, sequence.RelName(name))
			}
		}
		return false, nil
	}
	return false, fmt.Errorf("seqshim: unknown catalog operation %v", c.Op)
}

// storeOnly reports whether name is a store sequence and no relation of the
// database.
func (s *Session[A]) storeOnly(ctx context.Context, name string) (bool, error) {
	if kind, err := s.relkind(ctx, name, true); err != nil || kind != 0 {
		return false, err // as written: ALTER TABLE s … is a temporary s's
	}
	if ok, err := s.exists(ctx, name); err != nil || !ok {
		return false, err
	}
	return true, nil
}

// storeRelation returns the store sequence that ALTER TABLE name (canonical;
// written without a schema when unqualified) addresses, resolved as
// PostgreSQL resolves a relation name: through the search_path to the first
// schema with a relation of the database or a store sequence of that name.
// It returns "" when that is a relation of the database, or nothing: the
// database answers. A sequence the open transaction holds counts.
func (s *Session[A]) storeRelation(ctx context.Context, name string, unqualified bool) (string, error) {
	_, rel := sequence.SplitName(name)
	if !unqualified || s.db == nil {
		if kind, err := s.relkind(ctx, name, false); err != nil || kind != 0 && !(kind == 'S' && s.isFenced(ctx, name)) {
			return "", err
		}
		if ok, err := s.visibleSeq(ctx, name); err != nil || !ok {
			return "", err
		}
		return name, nil
	}
	seq, err := s.resolve(ctx, name)
	switch {
	case errors.Is(err, sequence.ErrNotFound):
		seq = "" // unless the open transaction created it (the name as in public)
		if s.tx != nil && s.tx.seqs[name] != nil {
			seq = name
		}
	case err != nil:
		return "", err
	default:
		if ok, err := s.visibleSeq(ctx, seq); err != nil || !ok {
			return "", err // a trivial path resolves without looking
		}
	}
	if seq == "" {
		return "", nil
	}
	table, isRel, err := s.findTable(ctx, sequence.QuoteIdent(rel))
	if err != nil {
		return "", err
	}
	if isRel && !(table.canonical() == seq && s.isFenced(ctx, seq)) {
		schema, _ := sequence.SplitName(seq)
		if slices.Index(s.path.schemas, table.schema) <= slices.Index(s.path.schemas, schema) {
			return "", nil // the database's relation comes first (pg_catalog and pg_temp before all)
		}
	}
	return seq, nil
}

func unsupportedf(format string, args ...any) error {
	return &sequence.Error{Code: sequence.CodeFeatureNotSupported, Kind: sequence.ErrInvalid, Message: fmt.Sprintf(format, args...)}
}

// DatabaseError is err, an error the database returned for a text the
// session passed through, unless it is PostgreSQL's 42P01 about a relation
// that is a store sequence this session sees (not one its transaction
// dropped, nor another database's) — SELECT last_value FROM s, \d-style
// catalog reads of it, a table-only command: the database cannot know it,
// and "does not exist" would mislead. Then it is a 0A000 saying what to do
// instead. It costs nothing unless err is a 42P01 (one store read then).
//
// A NOT NULL violation (23502), or a fenced twin's 2200H (fenced.go), may
// be an INSERT into a table whose store-backed column defaults another
// process created since this one read them: the next statement that may
// need them reads them again.
func (s *Session[A]) DatabaseError(ctx context.Context, err error) error {
	s.heardFrom()
	var pe *pgconn.PgError
	if errors.As(err, &pe) && (pe.Code == codeNotNullViolation || pe.Code == sequence.CodeLimitExceeded) {
		s.eng.forgetDefaults()
	}
	if !errors.As(err, &pe) || pe.Code != sequence.CodeUndefinedTable {
		return err
	}
	written, ok := strings.CutPrefix(pe.Message, `relation "`)
	if !ok {
		return err
	}
	written, ok = strings.CutSuffix(written, `" does not exist`)
	if !ok {
		return err
	}
	name, qualified, perr := sequence.ParseRelation(written)
	if perr != nil {
		return err
	}
	if !qualified {
		if r, rerr := s.resolve(ctx, name); rerr == nil {
			name = r
		}
	}
	if found, serr := s.sees(ctx, name); serr != nil || !found {
		return err // not a store sequence of this session's: PostgreSQL is right
	}
	return s.eng.convert(&sequence.Error{Code: sequence.CodeFeatureNotSupported, Kind: sequence.ErrInvalid, Message: fmt.Sprintf(
		`seqshim: "%s" is a sequence of seqshim's store, not a relation of the database: the statement cannot read or change it; `+
			`use nextval, currval and setval, or seqctl show for its state`, written)})
}

// codeUndefinedObject is PostgreSQL's undefined_object: AS a type that does
// not exist.
const codeUndefinedObject = "42704"

// typeError is err, a planning error, unless it says that the type of AS
// does not exist (rewrite knows the built-in types only) while the database
// has a type of that name — a domain, an enum, a table's row type: then it
// is PostgreSQL's 22023 for a type that exists but is not an integer type.
// It costs a catalog query on that error path only.
func (s *Session[A]) typeError(ctx context.Context, err error) error {
	var se *sequence.Error
	if s.db == nil || !errors.As(err, &se) || se.Code != codeUndefinedObject {
		return err
	}
	typ, ok := strings.CutPrefix(se.Message, `type "`)
	if !ok {
		return err
	}
	if typ, ok = strings.CutSuffix(typ, `" does not exist`); !ok {
		return err
	}
	parts := strings.Split(typ, ".")
	for i, p := range parts {
		// Quoted always: the message holds names as PostgreSQL looked them
		// up, and "bigint" (quoted) names no type, where bigint would.
		parts[i] = `"` + strings.ReplaceAll(p, `"`, `""`) + `"`
	}
	row, qerr := s.queryRow(ctx, "SELECT pg_catalog.to_regtype($1) IS NOT NULL", strings.Join(parts, "."))
	if qerr != nil || len(row) != 1 || (row[0] != "t" && row[0] != "true") {
		return err
	}
	_, notInt := sequence.ParseType("")
	return notInt
}
