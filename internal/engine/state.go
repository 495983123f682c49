package engine

// state is PostgreSQL's per-session sequence state: the value nextval last
// returned for each sequence (currval) and the sequence nextval last used
// (lastval). Its [Session] is used by one goroutine at a time, so it takes
// no lock.
//
// PostgreSQL keys this state by the sequence's OID; here each value keeps
// the incarnation of its name (seqcache's Handle.Incarnation) when it was
// recorded, so that a sequence another session of the process dropped,
// replaced or renamed is told apart from the one the name names now.
//
// The last-used sequence's currval is kept in lastVal rather than the map, so
// that a session drawing from one sequence writes no map per value; the
// map's entry for lastUsed, if any, is stale.
type state struct {
	last     map[string]entry // canonical name → currval, but for lastUsed
	lastUsed string           // sequence of lastval; "" before any nextval
	lastVal  entry            // currval of lastUsed
	from     lastFrom         // whose nextval was the session's last
}

// lastFrom says whose nextval was a session's last: PostgreSQL's lastval
// is that of the session's last nextval, of any sequence, and the
// database draws those of temporary sequences (temp.go).
type lastFrom uint8

const (
	lastStore    lastFrom = iota // seqshim's: lastUsed's value, or none
	lastDatabase                 // the database's: it answers lastval
	lastUnclear                  // a statement drew from both, in an order seqshim does not know (a temporary table's default)
)

// entry is a currval and the incarnation of its sequence's name.
type entry struct {
	v   int64
	inc uint64
}

// nextval records a value nextval returned.
func (s *state) nextval(name string, v int64, inc uint64) {
	if name != s.lastUsed {
		s.flush()
		s.lastUsed = name
	}
	s.lastVal = entry{v, inc}
	s.from = lastStore
}

// set records currval without making name the last-used sequence: setval
// with is_called true.
func (s *state) set(name string, v int64, inc uint64) {
	if name == s.lastUsed {
		s.lastVal = entry{v, inc}
		return
	}
	s.put(name, entry{v, inc})
}

func (s *state) put(name string, e entry) {
	if s.last == nil {
		s.last = make(map[string]entry)
	}
	s.last[name] = e
}

// restamp records that name's currval, if any, belongs to incarnation inc
// of the name: after this session's own DDL changed the incarnation.
func (s *state) restamp(name string, inc uint64) {
	if name == s.lastUsed && name != "" {
		s.lastVal.inc = inc
	}
	if e, ok := s.last[name]; ok {
		e.inc = inc
		s.last[name] = e
	}
}

// flush moves the last-used sequence's currval into the map.
func (s *state) flush() {
	if s.lastUsed != "" {
		s.put(s.lastUsed, s.lastVal)
	}
}

func (s *state) currval(name string) (entry, bool) {
	if name == s.lastUsed && name != "" {
		return s.lastVal, true
	}
	e, ok := s.last[name]
	return e, ok
}

func (s *state) lastval() (string, entry, bool) {
	return s.lastUsed, s.lastVal, s.lastUsed != ""
}

// rename follows ALTER SEQUENCE … RENAME: PostgreSQL keys the state by OID,
// which a rename keeps. inc is the incarnation of the new name.
func (s *state) rename(from, to string, inc uint64) {
	if s.lastUsed == from {
		delete(s.last, from)
		s.lastUsed = to
		s.lastVal.inc = inc
		return
	}
	if e, ok := s.last[from]; ok {
		delete(s.last, from)
		s.put(to, entry{e.v, inc})
	}
}

// drop forgets a dropped sequence.
func (s *state) drop(name string) {
	delete(s.last, name)
	if s.lastUsed == name {
		s.lastUsed = ""
	}
}

// reset is DISCARD SEQUENCES.
func (s *state) reset() {
	clear(s.last)
	s.lastUsed = ""
	s.from = lastStore
}
