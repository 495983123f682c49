package sqlstore

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/seqshim/seqshim/sequence"
)

// Dialect is the SQL database a Store talks to.
type Dialect string

// The supported dialects.
const (
	SQLite   Dialect = "sqlite"
	Postgres Dialect = "postgres"
)

// DefaultTable is the table sequences are kept in unless Options.Table says
// otherwise.
const DefaultTable = "seqshim_sequences"

// Options configure a Store.
type Options struct {
	// Table is the table sequences are kept in, optionally schema-qualified
	// (letters, digits and underscores; unquoted, so PostgreSQL folds it to
	// lower case). Default DefaultTable. It is created on first use.
	Table string
	// Now is the store's clock: it stamps Info.LastReserved and decides
	// which UTC day a reservation counts in under a daily limit
	// (sequence.Spec.DailyLimit). Default time.Now; tests set a fake one.
	Now func() time.Time
}

// Store is the store contract ([sequence.Store]) on a table of a SQL database. It is
// safe for concurrent use, and several processes may share one database.
type Store struct {
	db      *sql.DB
	dialect Dialect
	table   string
	ownDB   bool
	q       queries
	now     func() time.Time // the clock, see Options.Now

	// Written once before the Store is returned; they make error messages.
	where   string                     // the database, for messages: "SQLite file /var/lib/seq.db"
	fixURL  string                     // the store URL seqctl init takes, if known
	explain func(error) (string, bool) // the dialect's reading of an error, see [Store.wrap]

	// writeSem serializes this process's write transactions on SQLite: the
	// file lock would serialize them anyway, but waiting here is a channel
	// receive (honouring ctx) instead of SQLite's sleeping busy handler.
	writeSem chan struct{}

	initMu sync.Mutex
	ready  bool
}

var (
	_ sequence.Store     = (*Store)(nil)
	_ sequence.Releaser  = (*Store)(nil)
	_ sequence.Checker   = (*Store)(nil)
	_ sequence.Validator = (*Store)(nil)
	_ sequence.Recoverer = (*Store)(nil)
)

var tableName = regexp.MustCompile(`^[A-Za-z_][A-Za-z0-9_]*(\.[A-Za-z_][A-Za-z0-9_]*)?$`)

// New returns a Store on db, an open handle of the given dialect that stays
// the caller's: Close does not close it. For SQLite, the handle must have been
// opened with BEGIN IMMEDIATE transactions (modernc.org/sqlite: the DSN
// parameter _txlock=immediate) and a busy timeout; [Open] does this.
func New(db *sql.DB, dialect Dialect, optFns ...func(*Options)) (*Store, error) {
	var o Options
	for _, fn := range optFns {
		fn(&o)
	}
	if o.Table == "" {
		o.Table = DefaultTable
	}
	if !tableName.MatchString(o.Table) {
		return nil, fmt.Errorf("sqlstore: invalid table name %q (want [schema.]name of letters, digits, underscores)", o.Table)
	}
	if dialect != SQLite && dialect != Postgres {
		return nil, fmt.Errorf("sqlstore: unknown dialect %q (want %q or %q)", dialect, SQLite, Postgres)
	}
	if o.Now == nil {
		o.Now = time.Now
	}
	s := &Store{db: db, dialect: dialect, table: o.Table, q: makeQueries(dialect, o.Table), now: o.Now}
	if dialect == SQLite {
		s.writeSem = make(chan struct{}, 1)
		s.where, s.explain = "SQLite database", explainSQLite
	} else {
		s.where, s.explain = "PostgreSQL database", explainPostgres
	}
	return s, nil
}

// Close closes the database handle if the Store opened it ([Open]).
func (s *Store) Close() error {
	if s.ownDB {
		return s.db.Close()
	}
	return nil
}

// DB returns the database handle the Store uses.
func (s *Store) DB() *sql.DB { return s.db }

// Dialect returns the SQL database the Store talks to.
func (s *Store) Dialect() Dialect { return s.dialect }

// Table returns the name of the table sequences are kept in.
func (s *Store) Table() string { return s.table }

// queries are the statements of one dialect and table, built once.
type queries struct {
	create, sel, selLock, list, insert, update, rename, renamed, drop, gen string
	// setMembers writes the members column alone (Attach, Detach): no
	// other statement writes it but insert.
	setMembers string
	// zeroGen finds a row without an incarnation (made before the gen
	// column, or by an older version since), setGens gives each one.
	zeroGen, setGens string
	// updateProof is update that also writes the proof columns (res_*);
	// selProof reads them (see [Store.Recover]).
	updateProof, selProof string
	// added are the columns a table made by an older version lacks, in the
	// order they were introduced, with the ALTER TABLE that adds each.
	added []addedColumn
}

// addedColumn is a column added to the table after its first version.
type addedColumn struct{ name, add string }

const columns = `name, seq_type, increment_by, min_value, max_value, start_value, cache_size, is_cycle,
	last_value, is_called, version, reservations, values_reserved, last_reserved, owned_by, defaults,
	daily_limit, usage_day, day_used, policy_buffer_ms, policy_min_block, policy_max_block, policy_revalidate_ms, gen,
	members`

// setColumns are the assignments of an update of every column of a row
// but the name (and the proof columns, res_*, and members, which Attach and
// Detach alone write).
const setColumns = `seq_type = ?, increment_by = ?, min_value = ?, max_value = ?, start_value = ?,
	cache_size = ?, is_cycle = ?, last_value = ?, is_called = ?, version = ?, reservations = ?, values_reserved = ?,
	last_reserved = ?, owned_by = ?, defaults = ?, daily_limit = ?, usage_day = ?, day_used = ?,
	policy_buffer_ms = ?, policy_min_block = ?, policy_max_block = ?, policy_revalidate_ms = ?`

func makeQueries(d Dialect, table string) queries {
	// Every column is a 64-bit integer but the name and type, so one DDL
	// serves both dialects (SQLite's BIGINT is INTEGER affinity).
	q := queries{
		create: `CREATE TABLE IF NOT EXISTS ` + table + ` (
	name TEXT NOT NULL PRIMARY KEY,
	seq_type TEXT NOT NULL,
	increment_by BIGINT NOT NULL,
	min_value BIGINT NOT NULL,
	max_value BIGINT NOT NULL,
	start_value BIGINT NOT NULL,
	cache_size BIGINT NOT NULL,
	is_cycle BIGINT NOT NULL,
	last_value BIGINT NOT NULL,
	is_called BIGINT NOT NULL,
	version BIGINT NOT NULL,
	reservations BIGINT NOT NULL,
	values_reserved BIGINT NOT NULL,
	last_reserved BIGINT NOT NULL,
	owned_by TEXT NOT NULL DEFAULT '',
	defaults TEXT NOT NULL DEFAULT '',
	daily_limit BIGINT NOT NULL DEFAULT 0,
	usage_day BIGINT NOT NULL DEFAULT 0,
	day_used BIGINT NOT NULL DEFAULT 0,
	policy_buffer_ms BIGINT NOT NULL DEFAULT 0,
	policy_min_block BIGINT NOT NULL DEFAULT 0,
	policy_max_block BIGINT NOT NULL DEFAULT 0,
	policy_revalidate_ms BIGINT NOT NULL DEFAULT 0,
	renamed_from TEXT NOT NULL DEFAULT '',
	gen BIGINT NOT NULL DEFAULT 0,
	res_token TEXT NOT NULL DEFAULT '',
	res_first BIGINT NOT NULL DEFAULT 0,
	res_step BIGINT NOT NULL DEFAULT 0,
	res_count BIGINT NOT NULL DEFAULT 0,
	members TEXT NOT NULL DEFAULT ''
)`,
		added: []addedColumn{
			{"owned_by", `ALTER TABLE ` + table + ` ADD COLUMN owned_by TEXT NOT NULL DEFAULT ''`},
			{"defaults", `ALTER TABLE ` + table + ` ADD COLUMN defaults TEXT NOT NULL DEFAULT ''`},
			{"daily_limit", `ALTER TABLE ` + table + ` ADD COLUMN daily_limit BIGINT NOT NULL DEFAULT 0`},
			{"usage_day", `ALTER TABLE ` + table + ` ADD COLUMN usage_day BIGINT NOT NULL DEFAULT 0`},
			{"day_used", `ALTER TABLE ` + table + ` ADD COLUMN day_used BIGINT NOT NULL DEFAULT 0`},
			{"policy_buffer_ms", `ALTER TABLE ` + table + ` ADD COLUMN policy_buffer_ms BIGINT NOT NULL DEFAULT 0`},
			{"policy_min_block", `ALTER TABLE ` + table + ` ADD COLUMN policy_min_block BIGINT NOT NULL DEFAULT 0`},
			{"policy_max_block", `ALTER TABLE ` + table + ` ADD COLUMN policy_max_block BIGINT NOT NULL DEFAULT 0`},
			{"policy_revalidate_ms", `ALTER TABLE ` + table + ` ADD COLUMN policy_revalidate_ms BIGINT NOT NULL DEFAULT 0`},
			{"renamed_from", `ALTER TABLE ` + table + ` ADD COLUMN renamed_from TEXT NOT NULL DEFAULT ''`},
			{"gen", `ALTER TABLE ` + table + ` ADD COLUMN gen BIGINT NOT NULL DEFAULT 0`},
			{"res_token", `ALTER TABLE ` + table + ` ADD COLUMN res_token TEXT NOT NULL DEFAULT ''`},
			{"res_first", `ALTER TABLE ` + table + ` ADD COLUMN res_first BIGINT NOT NULL DEFAULT 0`},
			{"res_step", `ALTER TABLE ` + table + ` ADD COLUMN res_step BIGINT NOT NULL DEFAULT 0`},
			{"res_count", `ALTER TABLE ` + table + ` ADD COLUMN res_count BIGINT NOT NULL DEFAULT 0`},
			{"members", `ALTER TABLE ` + table + ` ADD COLUMN members TEXT NOT NULL DEFAULT ''`},
		},
		sel:     `SELECT ` + columns + ` FROM ` + table + ` WHERE name = ?`,
		list:    `SELECT ` + columns + ` FROM ` + table + ` ORDER BY name`,
		insert:  `INSERT INTO ` + table + ` (` + columns + `) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?) ON CONFLICT (name) DO NOTHING`,
		update:  `UPDATE ` + table + ` SET ` + setColumns + ` WHERE name = ?`,
		rename:  `UPDATE ` + table + ` SET name = ?, renamed_from = ? WHERE name = ?`,
		renamed: `SELECT renamed_from FROM ` + table + ` WHERE name = ?`,
		drop:    `DELETE FROM ` + table + ` WHERE name = ?`,
		gen:     `SELECT gen FROM ` + table + ` WHERE name = ?`,
		zeroGen: `SELECT 1 FROM ` + table + ` WHERE gen = 0 LIMIT 1`,
		// A random odd (so never 0) 64-bit integer per row.
		setGens: `UPDATE ` + table + ` SET gen = random() | 1 WHERE gen = 0`,
	}
	q.setMembers = `UPDATE ` + table + ` SET members = ? WHERE name = ?`
	q.updateProof = `UPDATE ` + table + ` SET ` + setColumns + `, res_token = ?, res_first = ?, res_step = ?, res_count = ? WHERE name = ?`
	q.selProof = `SELECT res_token, res_first, res_step, res_count, gen,
	policy_buffer_ms, policy_min_block, policy_max_block, policy_revalidate_ms FROM ` + table + ` WHERE name = ?`
	q.selLock = q.sel
	if d == Postgres {
		// Row lock for the read-modify-write; byte order, as memstore and
		// dynamostore list, whatever the database's collation.
		q.selLock += ` FOR UPDATE`
		q.list = `SELECT ` + columns + ` FROM ` + table + ` ORDER BY name COLLATE "C"`
		q.setGens = `UPDATE ` + table + ` SET gen = (random() * 9.2e18)::bigint | 1 WHERE gen = 0`
		for _, p := range []*string{&q.sel, &q.selLock, &q.list, &q.insert, &q.update, &q.updateProof, &q.selProof, &q.rename, &q.renamed, &q.drop, &q.gen, &q.setMembers} {
			*p = numberPlaceholders(*p)
		}
	}
	return q
}

// numberPlaceholders turns ? into $1, $2, ... (the statements hold no other ?).
func numberPlaceholders(query string) string {
	var b strings.Builder
	n := 0
	for _, r := range query {
		if r == '?' {
			n++
			b.WriteString("$" + strconv.Itoa(n))
			continue
		}
		b.WriteRune(r)
	}
	return b.String()
}

// init creates the table on first use. A failure is returned and retried by
// the next call.
func (s *Store) init(ctx context.Context) error {
	s.initMu.Lock()
	defer s.initMu.Unlock()
	if s.ready {
		return nil
	}
	if _, err := s.db.ExecContext(ctx, s.q.create); err != nil {
		// Two PostgreSQL sessions creating the table at once: one of them
		// fails although the table now exists.
		if _, err2 := s.db.ExecContext(ctx, `SELECT 1 FROM `+s.table+` WHERE 1 = 0`); err2 != nil {
			return fmt.Errorf("create table %s: %w", s.table, err)
		}
	}
	// A table created before OWNED BY or column defaults were kept gets
	// their columns; two sessions adding one at once: one fails although
	// the column now exists.
	for _, c := range s.q.added {
		probe := `SELECT ` + c.name + ` FROM ` + s.table + ` WHERE 1 = 0`
		if _, err := s.db.ExecContext(ctx, probe); err != nil {
			if _, err := s.db.ExecContext(ctx, c.add); err != nil {
				if _, err2 := s.db.ExecContext(ctx, probe); err2 != nil {
					return fmt.Errorf("add column %s to %s: %w", c.name, s.table, err)
				}
			}
		}
	}
	// Rows without an incarnation get one: those of a table made before
	// the gen column, and those an older version created since.
	var one int
	switch err := s.db.QueryRowContext(ctx, s.q.zeroGen).Scan(&one); {
	case err == nil:
		if _, err := s.db.ExecContext(ctx, s.q.setGens); err != nil {
			return fmt.Errorf("give the sequences in %s an incarnation (column gen): %w", s.table, err)
		}
	case !errors.Is(err, sql.ErrNoRows):
		return fmt.Errorf("read %s: %w", s.table, err)
	}
	s.ready = true
	return nil
}

// newGen returns the incarnation of a sequence being created: random, never
// 0 (0 means "unknown" to readers of sequence.Info.Gen).
func newGen() int64 { return int64(rand.Uint64() | 1) }

type scanner interface{ Scan(dest ...any) error }

func scanInfo(sc scanner) (sequence.Info, error) {
	var (
		info                     sequence.Info
		typ, defaults, members   string
		cycle, called, lastNanos int64
		bufferMS, revalidateMS   int64
		gen                      int64
	)
	err := sc.Scan(&info.Name, &typ, &info.Spec.Increment, &info.Spec.Min, &info.Spec.Max, &info.Spec.Start,
		&info.Spec.Cache, &cycle, &info.Position.Last, &called, &info.Version, &info.Reservations,
		&info.ValuesReserved, &lastNanos, &info.Spec.OwnedBy, &defaults,
		&info.Spec.DailyLimit, &info.DayUsage.Day, &info.DayUsage.Used,
		&bufferMS, &info.Spec.Policy.MinBlock, &info.Spec.Policy.MaxBlock, &revalidateMS, &gen, &members)
	if err != nil {
		return info, err
	}
	t, err := sequence.ParseType(typ)
	if err != nil {
		return info, fmt.Errorf("sqlstore: bad seq_type %q in row %s: %w", typ, info.Name, err)
	}
	if info.Spec.Defaults, err = sequence.DecodeDefaults(defaults); err != nil {
		return info, fmt.Errorf("sqlstore: bad defaults in row %s: %w", info.Name, err)
	}
	if info.Spec.Members, err = sequence.DecodeMembers(members); err != nil {
		return info, fmt.Errorf("sqlstore: bad members in row %s: %w", info.Name, err)
	}
	info.Spec.Type = t
	if info.Spec.Policy.Buffer, err = millis(bufferMS); err != nil {
		return info, fmt.Errorf("sqlstore: bad policy_buffer_ms in row %s: %w", info.Name, err)
	}
	if info.Spec.Policy.Revalidate, err = millis(revalidateMS); err != nil {
		return info, fmt.Errorf("sqlstore: bad policy_revalidate_ms in row %s: %w", info.Name, err)
	}
	info.Gen = uint64(gen)
	info.Spec.Cycle = cycle != 0
	info.Position.Called = called != 0
	if lastNanos != 0 {
		info.LastReserved = time.Unix(0, lastNanos)
	}
	// A spec no CREATE or ALTER would have written (INCREMENT 0, MINVALUE
	// above MAXVALUE, a negative policy): the block arithmetic must never
	// see it.
	if err := info.Spec.Validate(); err != nil {
		return info, fmt.Errorf("sqlstore: bad sequence in row %s: %v", info.Name, err) // not ErrInvalid: nothing the caller gave
	}
	return info, nil
}

// millis is a duration stored in milliseconds, if a time.Duration holds it.
func millis(ms int64) (time.Duration, error) {
	if ms < 0 || ms > int64(math.MaxInt64/time.Millisecond) {
		return 0, fmt.Errorf("%d milliseconds out of range", ms)
	}
	return time.Duration(ms) * time.Millisecond, nil
}

func b2i(b bool) int64 {
	if b {
		return 1
	}
	return 0
}

func nanos(t time.Time) int64 {
	if t.IsZero() {
		return 0
	}
	return t.UnixNano()
}

// proof is what a reservation writes for [Store.Recover] (columns res_*):
// its token ("" for none) and its block.
type proof struct {
	token string
	block sequence.Block
}

// update writes every field of info to its row and, unless p is nil, the
// proof columns.
func (s *Store) update(ctx context.Context, tx *sql.Tx, info *sequence.Info, p *proof) error {
	sp := &info.Spec
	args := []any{sp.Type.String(), sp.Increment, sp.Min, sp.Max, sp.Start,
		sp.Cache, b2i(sp.Cycle), info.Position.Last, b2i(info.Position.Called), info.Version,
		info.Reservations, info.ValuesReserved, nanos(info.LastReserved), sp.OwnedBy,
		sequence.EncodeDefaults(sp.Defaults), sp.DailyLimit, int64(info.DayUsage.Day), info.DayUsage.Used,
		sp.Policy.Buffer.Milliseconds(), sp.Policy.MinBlock, sp.Policy.MaxBlock, sp.Policy.Revalidate.Milliseconds()}
	query := s.q.update
	if p != nil {
		query = s.q.updateProof
		args = append(args, p.token, p.block.First, p.block.Step, p.block.Count)
	}
	_, err := tx.ExecContext(ctx, query, append(args, info.Name)...)
	return err
}

// errNoChange ends a transaction without writing, returning the result.
var errNoChange = errors.New("no change")

// modify runs fn on the locked row of name inside a write transaction and
// writes the row back unless fn returns errNoChange. The transaction is
// BEGIN IMMEDIATE on SQLite (the DSN's _txlock) and SELECT ... FOR UPDATE on
// PostgreSQL, so no other process reads the row between our read and write.
func (s *Store) modify(ctx context.Context, name string, fn func(info *sequence.Info) error) error {
	return s.modifyProof(ctx, name, nil, fn)
}

// modifyProof is modify that also writes p (as fn leaves it) to the proof
// columns, unless p is nil.
func (s *Store) modifyProof(ctx context.Context, name string, p *proof, fn func(info *sequence.Info) error) error {
	return s.inTx(ctx, func(tx *sql.Tx) error {
		info, err := s.lockRow(ctx, tx, name)
		if err != nil {
			return err
		}
		if err := fn(&info); err != nil {
			return err
		}
		return s.update(ctx, tx, &info, p)
	})
}

// lockRow reads the row of name in tx, a write transaction, locking it
// (SELECT ... FOR UPDATE on PostgreSQL; SQLite's write transaction locks
// the file) until tx ends; sequence.ErrNotFound if there is none.
func (s *Store) lockRow(ctx context.Context, tx *sql.Tx, name string) (sequence.Info, error) {
	info, err := scanInfo(tx.QueryRowContext(ctx, s.q.selLock, name))
	if errors.Is(err, sql.ErrNoRows) {
		return info, sequence.NotFoundError(name)
	}
	return info, err
}

// inTx runs fn in a write transaction and commits it, unless fn fails
// (errNoChange commits nothing and returns nil).
func (s *Store) inTx(ctx context.Context, fn func(tx *sql.Tx) error) error {
	if err := s.init(ctx); err != nil {
		return err
	}
	if s.writeSem != nil {
		select {
		case s.writeSem <- struct{}{}:
			defer func() { <-s.writeSem }()
		case <-ctx.Done():
			return ctx.Err()
		}
	}
	tx, err := s.db.BeginTx(ctx, nil)
	if err != nil {
		return err
	}
	if err := fn(tx); err != nil {
		tx.Rollback() //nolint:errcheck // the error that matters is fn's
		if errors.Is(err, errNoChange) {
			return nil
		}
		return err
	}
	return tx.Commit()
}

// Reserve implements [sequence.Reserver]: the block is computed by
// [sequence.Spec.ReserveAt] (the daily limit, if any, at the store's clock)
// from the row read, and the position and the day's usage written, in one
// transaction holding the row's lock. An error from the commit is a gap: the
// block is never returned (unless recovered: see [Store.ReserveToken]).
func (s *Store) Reserve(ctx context.Context, name string, n int64) (sequence.Block, error) {
	return s.reserve(ctx, name, n, sequence.Token{})
}

// ReserveToken implements [sequence.Recoverer]: Reserve, whose transaction
// also writes token and the block to the row's proof columns (res_token,
// res_first, res_step, res_count). Reserve without a token clears them, as
// does Release.
func (s *Store) ReserveToken(ctx context.Context, name string, n int64, token sequence.Token) (sequence.Block, error) {
	return s.reserve(ctx, name, n, token)
}

// Recover implements [sequence.Recoverer]: one read of the row's proof
// columns, outside any transaction (it sees what was committed); the block
// if res_token is token, else false. A commit whose outcome was unknown
// (the connection lost during COMMIT) is found if it committed; one that
// lands after the read is a gap. Only the latest reservation's token is
// kept: once another reservation or a release committed, the proof is gone.
func (s *Store) Recover(ctx context.Context, name string, token sequence.Token) (sequence.Block, bool, error) {
	if token.IsZero() {
		return sequence.Block{}, false, nil
	}
	if err := s.init(ctx); err != nil {
		return sequence.Block{}, false, s.wrap("recover", name, err)
	}
	var (
		tok                    string
		b                      sequence.Block
		gen                    int64
		bufferMS, revalidateMS int64
	)
	err := s.db.QueryRowContext(ctx, s.q.selProof, name).Scan(&tok, &b.First, &b.Step, &b.Count, &gen,
		&bufferMS, &b.Policy.MinBlock, &b.Policy.MaxBlock, &revalidateMS)
	if errors.Is(err, sql.ErrNoRows) {
		return sequence.Block{}, false, nil
	}
	if err != nil {
		return sequence.Block{}, false, s.wrap("recover", name, err)
	}
	if tok != token.String() || b.Count <= 0 {
		return sequence.Block{}, false, nil
	}
	// As Reserve returns it: with the incarnation, and the policy as now.
	b.Gen = uint64(gen)
	if b.Policy.Buffer, err = millis(bufferMS); err == nil {
		b.Policy.Revalidate, err = millis(revalidateMS)
	}
	if err != nil {
		return sequence.Block{}, false, fmt.Errorf("sqlstore: recover %s: bad policy: %w", name, err)
	}
	return b, true, nil
}

func (s *Store) reserve(ctx context.Context, name string, n int64, token sequence.Token) (sequence.Block, error) {
	var b sequence.Block
	p := &proof{}
	if !token.IsZero() {
		p.token = token.String()
	}
	err := s.modifyProof(ctx, name, p, func(info *sequence.Info) error {
		now := s.now()
		blk, pos, usage, err := info.Spec.ReserveAt(name, info.Position, info.DayUsage, now, n)
		if err != nil {
			return err
		}
		b = blk
		b.Gen = info.Gen
		if p.token != "" {
			p.block = blk
		}
		info.Position, info.DayUsage = pos, usage
		info.Reservations++
		info.ValuesReserved += blk.Count
		info.LastReserved = now
		return nil
	})
	if err != nil {
		return sequence.Block{}, s.wrap("reserve", name, err)
	}
	return b, nil
}

// Release implements [sequence.Releaser] with [sequence.Spec.Release]; a
// block of another incarnation (the sequence was dropped and created again
// since) is refused.
func (s *Store) Release(ctx context.Context, name string, unused sequence.Block) (bool, error) {
	var ok bool
	// The proof columns are cleared: the position moves back over the
	// tail, so a token of the reservation before proves nothing more.
	err := s.modifyProof(ctx, name, &proof{}, func(info *sequence.Info) error {
		if unused.Gen != 0 && info.Gen != 0 && unused.Gen != info.Gen {
			return errNoChange
		}
		var pos sequence.Position
		if pos, ok = info.Spec.Release(info.Position, unused); !ok {
			return errNoChange
		}
		info.Position = pos
		return nil
	})
	return ok && err == nil, s.wrap("release", name, err)
}

// Create implements [sequence.Admin]. The spec is validated and pos must lie
// within its bounds.
func (s *Store) Create(ctx context.Context, name string, spec sequence.Spec, pos sequence.Position) error {
	if err := spec.Validate(); err != nil {
		return err
	}
	if _, err := spec.SetVal(name, pos.Last, pos.Called); err != nil {
		return err
	}
	return s.wrap("create", name, s.inTx(ctx, func(tx *sql.Tx) error {
		res, err := tx.ExecContext(ctx, s.q.insert, name, spec.Type.String(), spec.Increment, spec.Min, spec.Max,
			spec.Start, spec.Cache, b2i(spec.Cycle), pos.Last, b2i(pos.Called), 1, 0, 0, 0, spec.OwnedBy,
			sequence.EncodeDefaults(spec.Defaults), spec.DailyLimit, 0, 0,
			spec.Policy.Buffer.Milliseconds(), spec.Policy.MinBlock, spec.Policy.MaxBlock, spec.Policy.Revalidate.Milliseconds(), newGen(),
			sequence.EncodeMembers(spec.Members))
		if err != nil {
			return err
		}
		if n, err := res.RowsAffected(); err != nil {
			return err
		} else if n == 0 {
			return sequence.ExistsError(name)
		}
		return nil
	}))
}

// Alter implements [sequence.Admin] with [sequence.Clauses.Alter].
func (s *Store) Alter(ctx context.Context, name string, c sequence.Clauses) (sequence.Info, error) {
	var out sequence.Info
	err := s.modify(ctx, name, func(info *sequence.Info) error {
		spec, pos, err := c.Alter(info.Spec, info.Position)
		if err != nil {
			return err
		}
		info.Spec, info.Position = spec, pos
		info.Version++
		out = *info
		return nil
	})
	if err != nil {
		return sequence.Info{}, s.wrap("alter", name, err)
	}
	return out, nil
}

// SetVal implements [sequence.Admin] with [sequence.Spec.SetVal].
func (s *Store) SetVal(ctx context.Context, name string, value int64, isCalled bool) (sequence.Info, error) {
	var out sequence.Info
	err := s.modify(ctx, name, func(info *sequence.Info) error {
		pos, err := info.Spec.SetVal(name, value, isCalled)
		if err != nil {
			return err
		}
		info.Position = pos
		info.Version++
		out = *info
		return nil
	})
	if err != nil {
		return sequence.Info{}, s.wrap("setval", name, err)
	}
	return out, nil
}

// Rename implements [sequence.Admin]. The renamed row records the name it
// had (column renamed_from, until its next rename), so that a Rename
// repeated after it completed, name gone and newName renamed from it,
// succeeds without changing anything.
func (s *Store) Rename(ctx context.Context, name, newName string) error {
	return s.wrap("rename", name, s.inTx(ctx, func(tx *sql.Tx) error {
		if _, err := scanInfo(tx.QueryRowContext(ctx, s.q.selLock, name)); errors.Is(err, sql.ErrNoRows) {
			var from string
			if err := tx.QueryRowContext(ctx, s.q.renamed, newName).Scan(&from); err == nil && from == name && name != newName {
				return errNoChange // done before
			} else if err != nil && !errors.Is(err, sql.ErrNoRows) {
				return err
			}
			return sequence.NotFoundError(name)
		} else if err != nil {
			return err
		}
		if _, err := scanInfo(tx.QueryRowContext(ctx, s.q.sel, newName)); err == nil {
			return sequence.ExistsError(newName)
		} else if !errors.Is(err, sql.ErrNoRows) {
			return err
		}
		// A concurrent create of newName makes this fail on the primary
		// key: an error, never two rows or a lost sequence.
		_, err := tx.ExecContext(ctx, s.q.rename, newName, name, name)
		return err
	}))
}

// Drop implements [sequence.Admin].
func (s *Store) Drop(ctx context.Context, name string) error {
	return s.wrap("drop", name, s.inTx(ctx, func(tx *sql.Tx) error {
		res, err := tx.ExecContext(ctx, s.q.drop, name)
		if err != nil {
			return err
		}
		if n, err := res.RowsAffected(); err != nil {
			return err
		} else if n == 0 {
			return sequence.NotFoundError(name)
		}
		return nil
	}))
}

// Attach implements [sequence.Memberships] in one write transaction
// holding the row's lock: the counter read is compared with
// [sequence.Spec.SameCounter], and the members column alone written (see
// [sequence.WithMember]), so two processes attaching at once both count.
func (s *Store) Attach(ctx context.Context, name string, m sequence.Member, counter sequence.Spec) (sequence.Info, error) {
	if err := m.Validate(); err != nil {
		return sequence.Info{}, err
	}
	var out sequence.Info
	err := s.inTx(ctx, func(tx *sql.Tx) error {
		info, err := s.lockRow(ctx, tx, name)
		if err != nil {
			return err
		}
		if !info.Spec.SameCounter(counter) {
			return sequence.CounterError(name, info.Spec, info.Spec.Members)
		}
		info.Spec.Members = sequence.WithMember(info.Spec.Members, m)
		if _, err := tx.ExecContext(ctx, s.q.setMembers, sequence.EncodeMembers(info.Spec.Members), name); err != nil {
			return err
		}
		out = info
		return nil
	})
	if err != nil {
		return sequence.Info{}, s.wrap("attach", name, err)
	}
	return out, nil
}

// Detach implements [sequence.Memberships] in one write transaction
// holding the row's lock: the members column written without db, or, when
// no member is left (or there was none), the row deleted as [Store.Drop]
// deletes it.
func (s *Store) Detach(ctx context.Context, name, db string) (bool, error) {
	var dropped bool
	err := s.inTx(ctx, func(tx *sql.Tx) error {
		info, err := s.lockRow(ctx, tx, name)
		if err != nil {
			return err
		}
		if members := info.Spec.Members; len(members) > 0 {
			if _, ok := info.Spec.Member(db); !ok {
				return errNoChange
			}
			if members = sequence.WithoutMember(members, db); len(members) > 0 {
				_, err := tx.ExecContext(ctx, s.q.setMembers, sequence.EncodeMembers(members), name)
				return err
			}
		}
		if _, err := tx.ExecContext(ctx, s.q.drop, name); err != nil {
			return err
		}
		dropped = true
		return nil
	})
	if err != nil {
		return false, s.wrap("detach", name, err)
	}
	return dropped, nil
}

// Gen implements [sequence.Validator]: one SELECT of the gen column.
func (s *Store) Gen(ctx context.Context, name string) (uint64, error) {
	if err := s.init(ctx); err != nil {
		return 0, s.wrap("gen", name, err)
	}
	var gen int64
	err := s.db.QueryRowContext(ctx, s.q.gen, name).Scan(&gen)
	if errors.Is(err, sql.ErrNoRows) {
		return 0, sequence.NotFoundError(name)
	}
	return uint64(gen), s.wrap("gen", name, err)
}

// Describe implements [sequence.Admin].
func (s *Store) Describe(ctx context.Context, name string) (sequence.Info, error) {
	if err := s.init(ctx); err != nil {
		return sequence.Info{}, s.wrap("describe", name, err)
	}
	info, err := scanInfo(s.db.QueryRowContext(ctx, s.q.sel, name))
	if errors.Is(err, sql.ErrNoRows) {
		return sequence.Info{}, sequence.NotFoundError(name)
	}
	return info, s.wrap("describe", name, err)
}

// List implements [sequence.Admin]: every sequence, ordered by name in byte
// order.
func (s *Store) List(ctx context.Context) ([]sequence.Info, error) {
	infos, err := s.list(ctx)
	return infos, s.wrap("list", "", err)
}

func (s *Store) list(ctx context.Context) ([]sequence.Info, error) {
	if err := s.init(ctx); err != nil {
		return nil, err
	}
	rows, err := s.db.QueryContext(ctx, s.q.list)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var infos []sequence.Info
	for rows.Next() {
		info, err := scanInfo(rows)
		if err != nil {
			return nil, err
		}
		infos = append(infos, info)
	}
	return infos, rows.Err()
}

// Check implements [sequence.Checker]: it connects, creates the table if it
// does not exist (as the first operation would) and reads from it. A database
// that cannot be used as configured (a SQLite file that cannot be opened or
// created, a PostgreSQL database that does not exist, a login the server
// refuses, missing privileges) is an error wrapping
// [sequence.ErrMisconfigured] that names the database and what to do.
func (s *Store) Check(ctx context.Context) error {
	err := s.init(ctx)
	if err == nil {
		_, err = s.db.ExecContext(ctx, `SELECT 1 FROM `+s.table+` WHERE 1 = 0`)
	}
	return s.wrap("check", "", err)
}
