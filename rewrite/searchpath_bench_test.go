package rewrite

import "testing"

// BenchmarkPassThroughChecks is what a pass-through statement pays for the
// search_path and DROP SCHEMA checks of the engine.
func BenchmarkPassThroughChecks(b *testing.B) {
	q := "SELECT id, name, created_at FROM accounts WHERE id = $1 AND status = 'active'"
	b.ReportAllocs()
	for b.Loop() {
		if MaySessionStatement(Postgres, q) {
			b.Fatal("session statement")
		}
	}
}
