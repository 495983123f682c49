package rewrite

import "testing"

func TestDiscardsSequences(t *testing.T) {
	for _, tt := range []struct {
		sql  string
		want bool
	}{
		{"DISCARD ALL", true},
		{"discard sequences;", true},
		{"  Discard\n\tAll", true},
		{"/* pool reset */ DISCARD ALL", true},
		{"/* a /* nested */ comment */ DISCARD ALL", true},
		{"-- reset\nDISCARD SEQUENCES", true},
		{"SET search_path = public; DISCARD ALL", true},
		{"DISCARD ALL; SELECT 1", true},
		{";;DISCARD ALL", true},
		{"DISCARD PLANS", false},
		{"DISCARD TEMP", false},
		{"DISCARD", false},
		{"SELECT 'DISCARD ALL'", false},
		{"SELECT 1 /* DISCARD ALL */", false},
		{"SELECT \"discard\" FROM t", false},
		{"SELECT discarded_at FROM t", false},
		{"UPDATE t SET discard = true", false},
		{"SELECT $$; DISCARD ALL$$", false},
		{"DISCARD ALL '", false}, // unterminated: the database refuses it
		{"", false},
	} {
		if got := DiscardsSequences(Postgres, tt.sql); got != tt.want {
			t.Errorf("DiscardsSequences(%q) = %v, want %v", tt.sql, got, tt.want)
		}
	}
	if DiscardsSequences(MySQL, "DISCARD ALL") {
		t.Error("DiscardsSequences(MySQL, DISCARD ALL) = true: MySQL has no DISCARD")
	}
}

func TestMayDiscard(t *testing.T) {
	for _, tt := range []struct {
		s    string
		want bool
	}{
		{"discard", true}, {"DISCARD ALL", true}, {"x;Discard", true}, {"SELECT ';discard'", true},
		{"/* a /* nested */ comment */ discard all", true}, {"-- c\n -- d\n\tdiscard", true},
		{"discarded", false}, {"SELECT discard", false}, {"disc", false}, {"-- discard", false},
		{"/* a /* nested */ discard */", false}, {"/* open", false}, {"x;;discard_", false},
	} {
		if got := mayStartWithWord(tt.s, isDiscardWord); got != tt.want {
			t.Errorf("mayStartWithWord(%q, isDiscardWord) = %v, want %v", tt.s, got, tt.want)
		}
	}
}

// BenchmarkDiscardsSequencesNo is the cost paid by every statement without
// the word discard.
func BenchmarkDiscardsSequencesNo(b *testing.B) {
	q := "SELECT id, name, created_at, discarded_at FROM accounts WHERE id = $1 AND status = 'active'"
	b.ReportAllocs()
	for b.Loop() {
		if DiscardsSequences(Postgres, q) {
			b.Fatal("true")
		}
	}
}

// FuzzDiscardsSequences checks that the cheap test never hides a DISCARD
// the lexer finds.
func FuzzDiscardsSequences(f *testing.F) {
	for _, s := range []string{
		"DISCARD ALL", "/* x */ discard sequences", "SELECT 1; -- c\n DISCARD ALL",
		"/* a /* b */ c */ DISCARD ALL", "SELECT 'a;b' ; discard all", "E'\\';' DISCARD ALL",
		"$tag$ ; $tag$; DISCARD ALL", "U&\"d\" ; discard ALL",
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		if lexDiscards(s) && !mayStartWithWord(s, isDiscardWord) {
			t.Errorf("the lexer finds DISCARD in %q, the cheap test does not", s)
		}
	})
}
