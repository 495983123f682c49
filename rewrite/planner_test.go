package rewrite

import (
	"fmt"
	"math"
	"sync"
	"testing"
)

func TestPlannerCache(t *testing.T) {
	p := NewPlanner(Postgres, 2)
	if p.Dialect() != Postgres {
		t.Errorf("Dialect() = %v", p.Dialect())
	}
	pl, err := p.Plan("SELECT 1")
	if err != nil || !pl.PassThrough() || pl != passThroughPlan {
		t.Fatalf("no trigger: %+v %v", pl, err)
	}
	if n := p.cache.Len(); n != 0 {
		t.Errorf("a statement without trigger word entered the cache: %d entries", n)
	}
	a, _ := p.Plan("SELECT nextval('a')")
	a2, _ := p.Plan("SELECT nextval('a')")
	if a != a2 {
		t.Error("second Plan of the same text is not the cached plan")
	}
	// A trigger word in a literal costs a plan, then the shared pass-through.
	if lit, _ := p.Plan("SELECT 'nextval'"); lit != passThroughPlan {
		t.Errorf("literal only: %+v", lit)
	}
	p.Plan("SELECT nextval('b')")
	p.Plan("SELECT nextval('c')")
	if p.cache.Len() != 2 {
		t.Errorf("cache holds %d plans, size 2", p.cache.Len())
	}
	if a3, _ := p.Plan("SELECT nextval('a')"); a3 == a || a3.Statements[0].Calls[0].Name != "a" {
		t.Error("evicted plan was not rebuilt")
	}
	// A rejected plan is cached with its error.
	_, err1 := p.Plan("UPDATE t SET a = nextval('s')")
	_, err2 := p.Plan("UPDATE t SET a = nextval('s')")
	if err1 == nil || err1 != err2 {
		t.Errorf("errors %v, %v", err1, err2)
	}
}

func TestPlannerZeroValue(t *testing.T) {
	var p Planner
	pl, err := p.Plan("SELECT nextval('s')")
	if err != nil || pl.Statements[0].Kind != Local {
		t.Fatalf("%+v %v", pl, err)
	}
}

func TestPlannerConcurrent(t *testing.T) {
	p := NewPlanner(Postgres, 16)
	var wg sync.WaitGroup
	for g := range 8 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range 200 {
				sql := fmt.Sprintf("INSERT INTO t VALUES (nextval('s%d'), $1)", (g+i)%32)
				pl, err := p.Plan(sql)
				if err != nil || pl.Statements[0].Kind != Rewrite || pl.Statements[0].Calls[0].Name != fmt.Sprintf("s%d", (g+i)%32) {
					t.Errorf("%s: %+v %v", sql, pl, err)
					return
				}
			}
		}()
	}
	wg.Wait()
}

func TestSeriesRows(t *testing.T) {
	for _, tc := range []struct{ start, end, want int64 }{
		{1, 10, 10}, {1, 1, 1}, {1, 0, 0}, {5, 1, 0}, {-3, 3, 7},
		{math.MinInt64, math.MaxInt64, math.MaxInt64},
		{0, math.MaxInt64, math.MaxInt64},
		{1, math.MaxInt64, math.MaxInt64},
	} {
		if got := (Series{}).Rows(tc.start, tc.end); got != tc.want {
			t.Errorf("Rows(%d, %d) = %d, want %d", tc.start, tc.end, got, tc.want)
		}
	}
}
