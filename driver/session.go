package driver

// session is PostgreSQL's per-session sequence state: the value nextval last
// returned for each sequence (currval) and the sequence nextval last used
// (lastval). A conn is used by one goroutine at a time, so it takes no lock.
type session struct {
	last     map[string]int64 // canonical name → currval
	lastUsed string           // sequence of lastval; "" before any nextval
}

func (s *session) set(name string, v int64) {
	if s.last == nil {
		s.last = make(map[string]int64)
	}
	s.last[name] = v
}

// nextval records a value nextval returned.
func (s *session) nextval(name string, v int64) {
	s.set(name, v)
	s.lastUsed = name
}

func (s *session) currval(name string) (int64, bool) {
	v, ok := s.last[name]
	return v, ok
}

func (s *session) lastval() (int64, bool) {
	if s.lastUsed == "" {
		return 0, false
	}
	v, ok := s.last[s.lastUsed]
	return v, ok
}

// rename follows ALTER SEQUENCE … RENAME: PostgreSQL keys the state by OID,
// which a rename keeps.
func (s *session) rename(from, to string) {
	if v, ok := s.last[from]; ok {
		delete(s.last, from)
		s.set(to, v)
	}
	if s.lastUsed == from {
		s.lastUsed = to
	}
}

// drop forgets a dropped sequence.
func (s *session) drop(name string) {
	delete(s.last, name)
	if s.lastUsed == name {
		s.lastUsed = ""
	}
}

// reset is DISCARD SEQUENCES.
func (s *session) reset() {
	clear(s.last)
	s.lastUsed = ""
}
