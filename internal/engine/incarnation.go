package engine

// PostgreSQL keys currval and lastval by the sequence's OID: after another
// session drops a sequence, currval of its name is 42P01 and lastval is not
// defined; a new sequence of the same name has no currval yet; a renamed
// one keeps its values under the new name. The session's state keeps the
// incarnation of each name (seqcache's Handle.Incarnation), which sequence
// DDL of any session of the process changes, and checks it here: one
// lock-free lookup, no store round trip. DDL run by other processes is
// seen when the cache notices it (seqcache's revalidation: within
// seqshim.revalidate while values are cached, or at the next reservation).

// currval returns the session's currval of name if the name still names
// the sequence it was recorded for, following renames made by other
// sessions of the process.
func (s *Session[A]) currval(name string) (int64, bool) {
	if e, ok := s.seq.currval(name); ok {
		if e.inc == s.eng.cache.Incarnation(name) {
			return e.v, true
		}
		// Dropped, replaced or renamed away by another session.
		if to, inc, ok := s.eng.cache.Follow(name, e.inc); ok {
			s.seq.rename(name, to, inc)
		} else {
			s.seq.drop(name)
		}
	}
	// A sequence renamed by another session has its value under the old
	// name: look for one that leads here.
	for old, e := range s.seq.last {
		if to, inc, ok := s.eng.cache.Follow(old, e.inc); ok && to == name && old != name {
			s.seq.drop(old)
			s.seq.set(name, e.v, inc)
			return e.v, true
		}
	}
	if old, e, ok := s.seq.lastval(); ok && old != name {
		if to, inc, ok := s.eng.cache.Follow(old, e.inc); ok && to == name {
			s.seq.rename(old, to, inc)
			return e.v, true
		}
	}
	return 0, false
}

// lastval returns the session's lastval if its sequence still exists, under
// whatever name another session of the process renamed it to.
func (s *Session[A]) lastval() (int64, bool) {
	name, e, ok := s.seq.lastval()
	if !ok {
		return 0, false
	}
	if e.inc == s.eng.cache.Incarnation(name) {
		return e.v, true
	}
	to, inc, ok := s.eng.cache.Follow(name, e.inc)
	if !ok {
		s.seq.drop(name)
		return 0, false
	}
	s.seq.rename(name, to, inc)
	return e.v, true
}
