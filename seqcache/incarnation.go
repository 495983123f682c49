// Incarnations: which sequence a name names, for per-session state keyed
// by sequence (PostgreSQL keys currval and lastval by OID).

package seqcache

// incarnation is one sequence under one name.
type incarnation struct {
	name string
	n    uint64
}

// Incarnation tells which sequence the handle's name names in this process:
// it changes when [Cache.Retire] or [Cache.Renamed] says the name stopped
// naming the sequence it named, and when the cache finds the sequence
// dropped, recreated or renamed by another process (see Revalidation in
// the package documentation). Session state kept with the incarnation of
// its sequence (currval, lastval) is stale when they differ. One atomic
// load: no lock, no allocation.
func (h *Handle) Incarnation() uint64 { return h.incarnation.Load() }

// Incarnation returns the incarnation of name (see [Handle.Incarnation]).
func (c *Cache) Incarnation(name string) uint64 { return c.Handle(name).Incarnation() }

// Retire records that name no longer names the sequence it named: after
// DROP SEQUENCE, and after CREATE SEQUENCE (a sequence of that name dropped
// by another process is not the new one). Call it once the store has
// applied the change; it does not touch cached values.
func (c *Cache) Retire(name string) { c.Handle(name).incarnation.Add(1) }

// Renamed records ALTER SEQUENCE from RENAME TO to: from no longer names
// the sequence, to names it from now on, and [Cache.Follow] leads from the
// old incarnation to the new. Call it once the store has applied the
// rename.
func (c *Cache) Renamed(from, to string) {
	hf, ht := c.Handle(from), c.Handle(to)
	old := incarnation{from, hf.incarnation.Load()}
	nu := incarnation{to, ht.incarnation.Add(1)}
	c.renames.Store(old, nu)
	hf.incarnation.Add(1)
}

// Follow returns the name and incarnation that the sequence called name in
// its incarnation n has now, following renames; ok is false when that
// sequence is gone (dropped, or its name retired without a rename).
func (c *Cache) Follow(name string, n uint64) (string, uint64, bool) {
	for range 1000 { // a chain of renames this long is not a session's concern
		if c.Incarnation(name) == n {
			return name, n, true
		}
		next, ok := c.renames.Load(incarnation{name, n})
		if !ok {
			return "", 0, false
		}
		in := next.(incarnation)
		name, n = in.name, in.n
	}
	return "", 0, false
}
