package engine

// state is PostgreSQL's per-session sequence state: the value nextval last
// returned for each sequence (currval) and the sequence nextval last used
// (lastval). Its [Session] is used by one goroutine at a time, so it takes
// no lock.
//
// The last-used sequence's currval is kept in lastVal rather than the map, so
// that a session drawing from one sequence writes no map per value; the
// map's entry for lastUsed, if any, is stale.
type state struct {
	last     map[string]int64 // canonical name → currval, but for lastUsed
	lastUsed string           // sequence of lastval; "" before any nextval
	lastVal  int64            // currval of lastUsed
}

// nextval records a value nextval returned.
func (s *state) nextval(name string, v int64) {
	if name != s.lastUsed {
		s.flush()
		s.lastUsed = name
	}
	s.lastVal = v
}

// set records currval without making name the last-used sequence: setval
// with is_called true.
func (s *state) set(name string, v int64) {
	if name == s.lastUsed {
		s.lastVal = v
		return
	}
	s.put(name, v)
}

func (s *state) put(name string, v int64) {
	if s.last == nil {
		s.last = make(map[string]int64)
	}
	s.last[name] = v
}

// flush moves the last-used sequence's currval into the map.
func (s *state) flush() {
	if s.lastUsed != "" {
		s.put(s.lastUsed, s.lastVal)
	}
}

func (s *state) currval(name string) (int64, bool) {
	if name == s.lastUsed && name != "" {
		return s.lastVal, true
	}
	v, ok := s.last[name]
	return v, ok
}

func (s *state) lastval() (int64, bool) {
	return s.lastVal, s.lastUsed != ""
}

// rename follows ALTER SEQUENCE … RENAME: PostgreSQL keys the state by OID,
// which a rename keeps.
func (s *state) rename(from, to string) {
	if s.lastUsed == from {
		delete(s.last, from)
		s.lastUsed = to
		return
	}
	if v, ok := s.last[from]; ok {
		delete(s.last, from)
		s.put(to, v)
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
}
