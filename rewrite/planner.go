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
// currval, lastval, setval, next, sequence in any case, or a statement
// starting with ALTER, CREATE, DROP, COMMENT, GRANT or REVOKE) gets a
// shared PassThrough plan after one allocation-free scan and never enters
// the cache; other strings are planned once and then served from the cache.
//
// The error is the plan's Err: non-nil when a statement is Reject, in which
// case no statement of the string may run. The plan is returned with it.
func (p *Planner) Plan(sql string) (*Plan, error) {
	if !mayTrigger(sql) {
		return passThroughPlan, nil
	}
	if p.cache != nil {
		if pl, ok := p.cache.Get(sql); ok {
			return pl, pl.Err
		}
	}
	pl := Build(p.dialect, sql)
	if p.cache != nil {
		p.cache.Add(sql, pl)
	}
	return pl, pl.Err
}

// HasTrigger reports whether sql contains a trigger word (nextval, currval,
// lastval, setval, next, sequence, in any case, anywhere) or a statement
// starting with ALTER, CREATE, DROP, COMMENT, GRANT or REVOKE: only then can
// [Planner.Plan] return anything but the shared PassThrough plan. It is the
// allocation-free scan Plan starts with, for callers that keep plans of
// their own in front of the Planner's locked cache.
func HasTrigger(sql string) bool { return mayTrigger(sql) }

// Build plans sql without a cache. Most callers want [Planner.Plan].
func Build(d Dialect, sql string) *Plan {
	if !mayTrigger(sql) {
		return passThroughPlan
	}
	return build(d, sql)
}
