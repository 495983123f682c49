// Temporary objects: a temporary sequence or table lives and dies with
// one database session, so the database serves it, untouched, and the
// session only has to tell its names from the store's.

package engine

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"github.com/seqshim/seqshim/rewrite"
	"github.com/seqshim/seqshim/sequence"
)

// PostgreSQL searches the session's temporary schema first for relations
// (unless the search_path lists pg_temp elsewhere): a temporary s hides
// public.s, and an INSERT into an unqualified t that is a temporary table
// is the temporary table's. Temporary relations cannot collide with
// anything outside their session, so no store is involved: what concerns
// them goes to the database as written — calls of temporary sequences
// (rewrite.Natives: a statement mixing them with store calls has those
// rewritten as usual), DDL of temporary sequences and tables, INSERTs into
// temporary tables, which get no store defaults.
//
// Which names are temporary, the session asks the database rather than
// following its own statements: temporary relations are also created by
// CREATE TEMP TABLE … AS, by functions, by SELECT … INTO TEMP, dropped with
// their table (a serial's sequence) or by CASCADE, renamed, dropped at
// COMMIT (ON COMMIT DROP), undone by a rollback to a savepoint or of the
// creating transaction, and emptied by DISCARD TEMP and DISCARD ALL —
// rules a copy kept by parsing would have to re-implement, and would get
// wrong on a statement that failed halfway. The catalog is exact.
//
// What it costs: nothing for a session that never had a temporary
// relation. A session knows it may have some once a statement that may
// create one went through it (rewrite.CreatesTemp: CREATE TEMP …, a name
// in pg_temp, a search_path naming pg_temp); until then nothing is looked
// at and nothing is read. Once it may, the session reads its temporary
// schema's relations (one catalog query, tempQuery) when it first needs
// them — to resolve an unqualified sequence name or INSERT target — and
// keeps them until a statement that may change them (rewrite.ChangesTemps:
// CREATE, DROP, ALTER, DISCARD), or the end of a transaction block in which
// one ran. A read that finds none (DISCARD TEMP, the last one dropped)
// ends it: the session is as one that never had any. A name written in a
// temporary schema (pg_temp.s) is the database's in any session, without a
// read.

// temps is what a session knows of its temporary relations.
type temps struct {
	maybe     bool               // the session may have temporary relations: look at them
	known     bool               // rels is what the temporary schema held when last read
	txChanged bool               // a statement that may change them ran in the open transaction block, whose end may undo it
	gen       uint64             // counts the times rels may have changed: texts with column defaults written out are made again
	schema    string             // the session's temporary schema (pg_temp_N), "" when it has none
	rels      map[string]tempRel // its relations by name
}

// tempRel is a temporary relation.
type tempRel struct {
	kind     byte     // pg_class.relkind
	defaults []string // a table's columns whose default draws from a sequence (serial, identity, nextval)
	columns  []string // a table's columns in order, once read (INSERT without a column list)
}

// tempQuery reads the session's temporary schema and its relations, with
// each table's columns whose default draws from a sequence; no row when the
// session has no temporary schema, one with an empty name when it has no
// relation.
const tempQuery = `SELECT n.nspname, coalesce(c.relname, ''), coalesce(c.relkind::text, ''),
coalesce(pg_catalog.string_agg(pg_catalog.quote_ident(a.attname), ',' ORDER BY a.attnum) FILTER (WHERE a.attidentity <> '' OR pg_catalog.pg_get_expr(d.adbin, d.adrelid) LIKE '%nextval(%'), '')
FROM pg_catalog.pg_namespace n
LEFT JOIN pg_catalog.pg_class c ON c.relnamespace = n.oid
LEFT JOIN pg_catalog.pg_attribute a ON a.attrelid = c.oid AND a.attnum > 0 AND NOT a.attisdropped
LEFT JOIN pg_catalog.pg_attrdef d ON d.adrelid = a.attrelid AND d.adnum = a.attnum
WHERE n.oid = pg_catalog.pg_my_temp_schema()
GROUP BY n.nspname, c.oid, c.relname, c.relkind`

// staleTemps notes that the temporary relations may have changed: they
// are read again when next needed.
func (s *Session[A]) staleTemps() {
	if !s.temps.maybe {
		return
	}
	s.temps.known = false
	s.temps.gen++
	if s.path.tempAt > 0 {
		clear(s.path.resolved) // a schema after the temporary one may have been hidden, or shown
	}
}

// noteTemps follows what a statement that reached the database may have
// done to the temporary relations (rewrite.Statement.Temps).
func (s *Session[A]) noteTemps(e rewrite.TempEffect) {
	if e == 0 || s.db == nil {
		return
	}
	if e&rewrite.CreatesTemp != 0 {
		s.temps.maybe = true
	}
	s.staleTemps()
	if s.temps.maybe && s.db.TxStatus() != 'I' {
		s.temps.txChanged = true // its end may undo it
	}
}

// tempsTxEnd follows the end of a transaction block (ended) or a rollback
// to a savepoint: one in which the temporary relations may have changed
// may have undone that, or dropped them (ON COMMIT DROP).
func (s *Session[A]) tempsTxEnd(ended bool) {
	if !s.temps.txChanged {
		return
	}
	s.staleTemps()
	if ended {
		s.temps.txChanged = false
	}
}

// readTemps reads the temporary relations, if not known. One that finds
// none ends the session's looking, unless its transaction may bring them
// back or its search_path makes CREATE create them.
func (s *Session[A]) readTemps(ctx context.Context) error {
	if s.temps.known {
		return nil
	}
	rows, err := s.db.Query(ctx, tempQuery)
	if err != nil {
		return err
	}
	s.temps.schema = ""
	clear(s.temps.rels)
	for _, r := range rows {
		if len(r) != 4 {
			return fmt.Errorf("seqshim: reading the temporary relations: got %d columns, want 4", len(r))
		}
		s.temps.schema = r[0]
		if r[1] == "" || r[2] == "" {
			continue
		}
		rel := tempRel{kind: r[2][0]}
		if r[3] != "" {
			rel.defaults, _ = sequence.SplitIdentifiers(r[3])
		}
		if s.temps.rels == nil {
			s.temps.rels = make(map[string]tempRel)
		}
		s.temps.rels[r[1]] = rel
	}
	s.temps.known = true
	s.temps.maybe = len(s.temps.rels) > 0 || s.path.tempListed || s.temps.txChanged
	return nil
}

// tempRelation returns the session's temporary relation an unqualified
// name (canonical) names, as a name in its temporary schema
// (rewrite.IsTempName); ok is false when it has none of that name.
func (s *Session[A]) tempRelation(ctx context.Context, name string) (temp string, ok bool, err error) {
	if err := s.readTemps(ctx); err != nil {
		return "", false, err
	}
	if len(s.temps.rels) == 0 {
		return "", false, nil
	}
	rel := name
	if strings.IndexByte(name, '"') >= 0 {
		rel = sequence.RelName(name)
	}
	if _, ok := s.temps.rels[rel]; !ok {
		return "", false, nil
	}
	return sequence.FormatName(s.temps.schema, rel), true, nil
}

// tempTable returns the session's temporary relation that a canonical name
// in a temporary schema names, nil when there is none (or it is another
// session's).
func (s *Session[A]) tempTable(ctx context.Context, name string) (*tempRel, error) {
	if err := s.readTemps(ctx); err != nil {
		return nil, err
	}
	schema, rel := sequence.SplitName(name)
	if schema != "pg_temp" && schema != s.temps.schema {
		return nil, nil
	}
	r, ok := s.temps.rels[rel]
	if !ok {
		return nil, nil
	}
	return &r, nil
}

// createsTemp reports whether CREATE of an unqualified name creates a
// temporary relation: the search_path lists pg_temp first.
func (s *Session[A]) createsTemp(ctx context.Context) (bool, error) {
	if s.db == nil {
		return false, nil
	}
	if !s.path.known {
		if err := s.learnPath(ctx); err != nil {
			return false, err
		}
	}
	return s.path.tempListed && s.path.tempAt == 0, nil
}

// tempDefaults is the column defaults lookup of an INSERT, UPDATE or COPY
// target (rewrite.TableLookup) for a temporary table: ok is true when table
// names one of the session's, or a relation in a temporary schema, whose
// defaults are the database's. The session's table's defaults are returned
// marked Native, for rewrite.InjectDefaults to say whether the statement
// draws from them (Session.prepare collects them); nil when it has none. ts
// is the store's column defaults, which a schema before the temporary one
// in the search_path may have the table in.
func (s *Session[A]) tempDefaults(ctx context.Context, ts *tableSet, table string, unqualified, columns bool) (*rewrite.TableDefaults, bool, error) {
	temp := table
	switch {
	case s.db == nil:
		return nil, false, nil
	case !unqualified:
		if !rewrite.IsTempName(table) {
			return nil, false, nil
		}
	case !s.temps.maybe:
		return nil, false, nil
	default:
		if !s.path.known {
			if err := s.learnPath(ctx); err != nil {
				return nil, false, err
			}
		}
		rel := sequence.RelName(table)
		for _, schema := range s.path.schemas[:min(s.path.tempAt, len(s.path.schemas))] {
			if ts != nil && ts.tables[sequence.FormatName(schema, rel)] != nil {
				return nil, false, nil // a store table earlier in the path
			}
		}
		var ok bool
		var err error
		if temp, ok, err = s.tempRelation(ctx, table); err != nil || !ok {
			return nil, false, err
		}
	}
	r, err := s.tempTable(ctx, temp)
	if err != nil || r == nil {
		return nil, err == nil, err // another session's, or none: the database answers
	}
	if r.kind == 'v' {
		return nil, false, nil // a temporary view: its base table's defaults (views.go)
	}
	s.tempTarget = true
	if len(r.defaults) == 0 {
		return nil, true, nil
	}
	t := &rewrite.TableDefaults{Table: temp, Native: true}
	for _, c := range r.defaults {
		t.Defaults = append(t.Defaults, rewrite.ColumnSequence{Column: c})
	}
	if columns {
		if r.columns == nil {
			row, err := s.queryRow(ctx, columnsQuery, tableArg(temp))
			if err != nil {
				return nil, false, err
			}
			if len(row) == 1 {
				r.columns, _ = sequence.SplitIdentifiers(row[0])
				_, rel := sequence.SplitName(temp)
				s.temps.rels[rel] = *r
			}
		}
		t.Columns = r.columns
	}
	s.injected = append(s.injected, t)
	return t, true, nil
}

// tempOrder is how the statements of a string depend on the temporary
// relations an earlier statement of the same string may change.
type tempOrder struct {
	// creates, changes, ends: a statement whose names the session
	// resolves before the string runs — a sequence name without a schema
	// or in a bind argument, sequence DDL, or an INSERT, UPDATE or DELETE
	// when the text got column defaults written out or has a temporary
	// table as a target — comes after one that may create temporary
	// relations, change them, or end the transaction or roll back to a
	// savepoint. The session would resolve its names against the
	// temporary relations of before the string, where PostgreSQL uses
	// those the earlier statement left: Session.evaluate refuses such a
	// string (errTempOrder) when the earlier statement may matter.
	creates, changes, ends bool
	// draws: an INSERT, UPDATE or MERGE comes after a statement that may
	// create a temporary table, whose defaults it may draw from unseen:
	// the session's lastval is unclear after the string.
	draws bool
}

// tempOrderOf finds the tempOrder of pl; injected is true when its text
// got column defaults written out or has a temporary table as a target.
func tempOrderOf(pl *rewrite.Plan, injected bool) tempOrder {
	var o tempOrder
	var seen rewrite.TempEffect
	ended := false
	for i := range pl.Statements {
		st := &pl.Statements[i]
		if hasUnqualified(st) || injected && st.Verb != "" {
			o.creates = o.creates || seen&rewrite.CreatesTemp != 0
			o.changes = o.changes || seen != 0
			o.ends = o.ends || ended
		}
		if st.Verb != "" && st.Verb != "DELETE" {
			o.draws = o.draws || seen&rewrite.CreatesTemp != 0
		}
		seen |= st.Temps
		ended = ended || st.Path&(rewrite.EndsTransaction|rewrite.RollsBackToSavepoint) != 0
	}
	return o
}

// errTempOrder is the refusal of a string whose tempOrder matters.
var errTempOrder = &sequence.Error{Code: sequence.CodeFeatureNotSupported, Kind: rewrite.ErrUnsupported,
	Message: "seqshim: a statement that may create or drop temporary relations, or end a transaction that did, followed in the same query string by a sequence call, sequence DDL or an INSERT whose names seqshim resolves before the string runs: " +
		"PostgreSQL would resolve them with the temporary relations the earlier statement leaves; send them as separate statements, or qualify the names"}

// tempOrderErr is errTempOrder when p's statements depend on temporary
// relations an earlier statement of the same string may change, as far as
// the session may have them.
func (s *Session[A]) tempOrderErr(p *Statement) error {
	if o := p.temp; o.creates || o.changes && s.temps.maybe || o.ends && s.temps.txChanged {
		return errTempOrder
	}
	return nil
}

// natives marks the calls of st, the plan's call sites k, k+1, …, that the
// database evaluates ([rewrite.Natives]): those of the session's temporary
// sequences, and lastval when the session's last nextval is the
// database's at that point of the statement. drawsTemp says that the
// statement's plan draws from a temporary table's column default in the
// database. any reports whether it marked one; from is whose nextval is
// the session's last after st. A statement that cannot have one costs a
// look at each call, nothing more.
func (s *Session[A]) natives(ctx context.Context, st *rewrite.Statement, args A, k int, drawsTemp bool) (any bool, from lastFrom, err error) {
	from = s.seq.from
	candidate := false
	for i := range st.Calls {
		c := &st.Calls[i]
		if c.Temp || c.Func == rewrite.Lastval && (from != lastStore || drawsTemp) ||
			s.temps.maybe && c.Func != rewrite.Lastval && (c.Unqualified || c.NameArg >= 0) {
			candidate = true
			break
		}
	}
	if !candidate {
		return false, from, nil
	}
	for i := range st.Calls {
		c := &st.Calls[i]
		native := false
		if c.Func == rewrite.Lastval {
			if from == lastUnclear || drawsTemp && from != lastDatabase {
				return false, from, errUnclearLastval
			}
			native = from == lastDatabase
		} else {
			var null bool
			if native, null, err = s.tempCall(ctx, c, args); err != nil {
				return false, from, err
			}
			if c.Func == rewrite.Nextval && !c.Null && !null {
				from = lastStore
				if native {
					from = lastDatabase
				}
			}
		}
		if native {
			for len(s.native.Calls) <= k+i {
				s.native.Calls = append(s.native.Calls, false)
			}
			s.native.Calls[k+i], s.nativeAny, any = true, true, true
		}
	}
	return any, from, nil
}

// rescue reports whether the statements pl rejects are all ones whose
// calls may be temporary sequences' ([rewrite.Statement.NativeOnly]) and
// are: those of the session's, which the database evaluates once per row
// or later, as it does without seqshim. Each is then sent as written
// ([rewrite.Natives]). It costs nothing for a plan rejected otherwise, and
// a look at each call in a session without temporary relations.
func (s *Session[A]) rescue(ctx context.Context, pl *rewrite.Plan, args A) (bool, error) {
	if !s.temps.maybe || !pl.NativeOnly() {
		return false, nil
	}
	var rescued uint64
	for i := range pl.Statements {
		st := &pl.Statements[i]
		if st.Kind != rewrite.Reject {
			continue
		}
		if i >= 64 {
			return false, nil
		}
		for j := range st.NativeOnly {
			if temp, _, err := s.tempCall(ctx, &st.NativeOnly[j], args); err != nil || !temp {
				return false, err
			}
		}
		rescued |= 1 << i
	}
	s.native.Statements |= rescued
	s.nativeAny = true
	return true, nil
}

// mayRescue reports whether a plan rejected (Err) may be rescued at its
// execution (Session.rescue): the refusal waits until then.
func (s *Session[A]) mayRescue(pl *rewrite.Plan) bool {
	return s.temps.maybe && pl.NativeOnly()
}

// isNative reports whether call site k of the plan being evaluated is the
// database's.
func (s *Session[A]) isNative(k int) bool {
	return s.nativeAny && k < len(s.native.Calls) && s.native.Calls[k]
}

// resetNatives forgets what the last evaluation left to the database.
func (s *Session[A]) resetNatives() {
	if s.nativeAny {
		clear(s.native.Calls)
		s.native.Calls = s.native.Calls[:0]
		s.native.Statements = 0
		s.nativeAny = false
	}
}

// tempCall reports whether call c names one of the session's temporary
// sequences (or, written in a temporary schema, any temporary relation),
// and whether its name is a NULL bind argument. A name that is not valid
// is not: the call reports it.
func (s *Session[A]) tempCall(ctx context.Context, c *rewrite.Call, args A) (temp, null bool, err error) {
	if c.Temp {
		return true, false, nil
	}
	name, unqualified := c.Name, c.Unqualified
	if c.NameArg >= 0 {
		text, null, err := argText(args, c.NameArg)
		if err != nil || null {
			return false, null, nil
		}
		n, qualified, err := sequence.ParseRelation(text)
		if err != nil {
			return false, false, nil
		}
		if qualified {
			return rewrite.IsTempName(n), false, nil
		}
		name, unqualified = n, true
	}
	if !unqualified || name == "" {
		return false, false, nil
	}
	temp, err = s.resolvesTemp(ctx, name)
	return temp, false, err
}

// resolvesTemp reports whether an unqualified name (canonical) resolves to
// one of the session's temporary relations.
func (s *Session[A]) resolvesTemp(ctx context.Context, name string) (bool, error) {
	if !s.temps.maybe || s.db == nil {
		return false, nil
	}
	if !s.path.known {
		if err := s.learnPath(ctx); err != nil {
			return false, err
		}
	}
	if s.path.tempAt == 0 {
		_, ok, err := s.tempRelation(ctx, name)
		return ok, err
	}
	r, err := s.resolve(ctx, name) // the schemas before the temporary one first
	if errors.Is(err, sequence.ErrNotFound) {
		return false, nil
	}
	return err == nil && rewrite.IsTempName(r), err
}

// nativeDDL reports whether sequence DDL is about the session's temporary
// sequences, which the database serves: then it is sent as it is. An
// unqualified CREATE creates one when the search_path lists pg_temp
// first. DDL naming both temporary and store sequences is refused.
func (s *Session[A]) nativeDDL(ctx context.Context, d *rewrite.DDL) (bool, error) {
	if !s.temps.maybe || s.db == nil {
		return false, nil
	}
	temp, other := 0, 0
	for i, name := range d.Names {
		isTemp := false
		if d.IsUnqualified(i) {
			var err error
			if d.Op == rewrite.Create {
				isTemp, err = s.createsTemp(ctx)
			} else {
				isTemp, err = s.resolvesTemp(ctx, name)
			}
			if err != nil {
				return false, err
			}
		}
		if isTemp {
			temp++
		} else {
			other++
		}
	}
	if temp > 0 && other > 0 {
		return false, unsupportedf("seqshim: %s names temporary sequences, which the database serves, and sequences of seqshim's store: run it once for each", d.Op)
	}
	return temp > 0, nil
}

// drewTemp notes that the database draws from a temporary table's default
// in the statement being run (Statement.drawsTemp), which also drew store
// values when stored is true: the session's lastval is the database's, or,
// after both, unclear.
func (s *Session[A]) drewTemp(stored bool) {
	s.seq.from = lastDatabase
	if stored {
		s.seq.from = lastUnclear
	}
}

// errUnclearLastval refuses lastval when the session's last nextval may
// be a store sequence's or, in the database, a temporary table's default.
var errUnclearLastval = &sequence.Error{Code: sequence.CodeFeatureNotSupported, Kind: rewrite.ErrUnsupported,
	Message: "seqshim: lastval() where the session's last nextval may be a store sequence's or, in the database, a temporary table's column default " +
		"(drawn by one statement, or lastval() in the statement that draws the default): seqshim cannot tell which was last; call currval() of the sequence you mean"}

// errTempPerRow refuses generate_series rows that call both a temporary
// sequence, which the database evaluates per row, and a store sequence.
var errTempPerRow = &sequence.Error{Code: sequence.CodeFeatureNotSupported, Kind: rewrite.ErrUnsupported,
	Message: "seqshim: a call of a store sequence once per row of generate_series, next to a call of a temporary sequence, which the database evaluates: " +
		"select them in separate statements"}
