package engine

import (
	"math/rand/v2"
	"testing"
)

// modelSession is the session state kept the plain way: every currval in
// the map, lastval read through it.
type modelSession struct {
	last     map[string]int64
	lastUsed string
}

func (m *modelSession) nextval(name string, v int64) { m.last[name] = v; m.lastUsed = name }
func (m *modelSession) set(name string, v int64)     { m.last[name] = v }
func (m *modelSession) rename(from, to string) {
	if v, ok := m.last[from]; ok {
		delete(m.last, from)
		m.last[to] = v
	}
	if m.lastUsed == from {
		m.lastUsed = to
	}
}

func (m *modelSession) drop(name string) {
	delete(m.last, name)
	if m.lastUsed == name {
		m.lastUsed = ""
	}
}

// TestStateModel runs random operations on a session's state and on the plain
// model, and compares currval of every name and lastval after each.
func TestStateModel(t *testing.T) {
	names := []string{"a", "b", "c", "d"}
	for seed := range uint64(200) {
		r := rand.New(rand.NewPCG(seed, 0))
		var s state
		m := &modelSession{last: map[string]int64{}}
		var ops []string
		for step := range 60 {
			name := names[r.IntN(len(names))]
			v := int64(step)
			switch op := r.IntN(10); {
			case op < 5:
				s.nextval(name, v, 0)
				m.nextval(name, v)
				ops = append(ops, "nextval "+name)
			case op < 7:
				s.set(name, v, 0)
				m.set(name, v)
				ops = append(ops, "setval "+name)
			case op < 8:
				to := names[r.IntN(len(names))]
				if _, ok := m.last[to]; ok || to == m.lastUsed || to == name {
					continue // PostgreSQL refuses a rename onto an existing name
				}
				s.rename(name, to, 0)
				m.rename(name, to)
				ops = append(ops, "rename "+name+" "+to)
			case op < 9:
				s.drop(name)
				m.drop(name)
				ops = append(ops, "drop "+name)
			default:
				s.reset()
				m = &modelSession{last: map[string]int64{}}
				ops = append(ops, "discard")
			}
			for _, n := range names {
				e, gotOK := s.currval(n)
				got := e.v
				want, wantOK := m.last[n]
				if gotOK != wantOK || gotOK && got != want {
					t.Fatalf("seed %d after %v: currval(%s) = %d, %v; want %d, %v", seed, ops, n, got, gotOK, want, wantOK)
				}
			}
			_, e, gotOK := s.lastval()
			got := e.v
			want, wantOK := m.last[m.lastUsed]
			wantOK = wantOK && m.lastUsed != ""
			if gotOK != wantOK || gotOK && got != want {
				t.Fatalf("seed %d after %v: lastval = %d, %v; want %d, %v", seed, ops, got, gotOK, want, wantOK)
			}
		}
	}
}
