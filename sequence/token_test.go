package sequence

import "testing"

func TestNewToken(t *testing.T) {
	seen := map[Token]bool{}
	for range 1000 {
		tok := NewToken()
		if tok.IsZero() {
			t.Fatal("NewToken returned the zero token")
		}
		if seen[tok] {
			t.Fatalf("token %s drawn twice", tok)
		}
		seen[tok] = true
		if s := tok.String(); len(s) != 32 {
			t.Fatalf("String() = %q, want 32 hex digits", s)
		}
	}
	if !(Token{}).IsZero() {
		t.Fatal("the zero token is not IsZero")
	}
}
