package rewrite

import (
	lru "github.com/hashicorp/golang-lru/v2"
)

// DefaultCacheSize is the number of plans a Planner keeps when asked for a
// size <= 0.
const DefaultCacheSize = 4096

// Planner builds and caches plans. It is safe for concurrent use. The zero
// value plans the Postgres dialect without a cache.
type Planner struct {
	dialect Dialect
	cache   *lru.Cache[string, *Plan]
}

// NewPlanner returns a Planner for dialect d that keeps the plans of up to
// cacheSize distinct SQL strings (DefaultCacheSize if cacheSize <= 0).
func NewPlanner(d Dialect, cacheSize int) *Planner {
	if cacheSize <= 0 {
		cacheSize = DefaultCacheSize
	}
	c, err := lru.New[string, *Plan](cacheSize)
	if err != nil { // only for a size <= 0, excluded above
		panic(err)
	}
	return &Planner{dialect: d, cache: c}
}

// Dialect returns the planner's dialect.
func (p *Planner) Dialect() Dialect { return p.dialect }

// Plan returns the plan of sql. A string without any trigger word (nextval,
// currval, lastval, setval, next, sequence, regclass in any case, or a statement
// starting with ALTER, CREATE, DROP, COMMENT, GRANT or REVOKE) and, in the
// postgres dialect, without a statement that may have an effect on the
// session or insert (one starting with BEGIN, START, COMMIT, END,
// ROLLBACK, ABORT, SAVEPOINT, RELEASE, PREPARE, SET, RESET, DISCARD,
// INSERT, UPDATE, COPY or WITH, or set_config anywhere) gets a shared
// PassThrough plan after allocation-free scans. Plans with sequence work
// are kept in the cache; others are built anew at each call, so that texts
// seen once (an INSERT with its values written in) do not push them out:
// callers keep what they need per session.
//
// The error is the plan's Err: non-nil when a statement is Reject, in which
// case no statement of the string may run. The plan is returned with it.
func (p *Planner) Plan(sql string) (*Plan, error) {
	if !mayPlan(p.dialect, sql) {
		return passThroughPlan, nil
	}
	if p.cache != nil {
		if pl, ok := p.cache.Get(sql); ok {
			return pl, pl.Err
		}
	}
	pl := build(p.dialect, sql)
	if p.cache != nil && !pl.PassThrough() {
		p.cache.Add(sql, pl)
	}
	return pl, pl.Err
}

// mayPlan is the allocation-free test before the lexer: can sql have a
// plan other than the shared PassThrough one?
func mayPlan(d Dialect, sql string) bool {
	return mayTrigger(sql) || d == Postgres && maySession(sql)
}

// Build plans sql without a cache. Most callers want [Planner.Plan].
func Build(d Dialect, sql string) *Plan {
	if !mayPlan(d, sql) {
		return passThroughPlan
	}
	return build(d, sql)
}
