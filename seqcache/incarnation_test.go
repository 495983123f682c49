package seqcache

import "testing"

func TestIncarnation(t *testing.T) {
	c := newTestCache(t, newFakeStore())
	s0 := c.Incarnation("s")
	c.Renamed("s", "r")
	if c.Incarnation("s") == s0 {
		t.Fatal("rename did not retire the old name")
	}
	to, inc, ok := c.Follow("s", s0)
	if !ok || to != "r" || inc != c.Incarnation("r") {
		t.Fatalf("Follow(s) = %s, %d, %v", to, inc, ok)
	}
	c.Renamed("r", "q")
	if to, _, ok := c.Follow("s", s0); !ok || to != "q" {
		t.Fatalf("Follow(s) after two renames = %s, %v", to, ok)
	}
	q := c.Incarnation("q")
	c.Retire("q")
	if _, _, ok := c.Follow("s", s0); ok {
		t.Fatal("Follow leads to a dropped sequence")
	}
	if _, _, ok := c.Follow("q", q); ok {
		t.Fatal("Follow(q) after Retire")
	}
}
