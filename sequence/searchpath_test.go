package sequence

import (
	"slices"
	"testing"
)

func TestParseRelation(t *testing.T) {
	tests := []struct {
		in        string
		name      string
		qualified bool
	}{
		{"orders_seq", "orders_seq", false},
		{`"Orders_Seq"`, `"Orders_Seq"`, false},
		{"public.orders_seq", "orders_seq", true},
		{` Public . "orders_seq" `, "orders_seq", true},
		{"tenant_7.orders_seq", "tenant_7.orders_seq", true},
		{`"a.b"`, `"a.b"`, false},
	}
	for _, tt := range tests {
		name, qualified, err := ParseRelation(tt.in)
		if err != nil || name != tt.name || qualified != tt.qualified {
			t.Errorf("ParseRelation(%q) = %q, %v, %v; want %q, %v", tt.in, name, qualified, err, tt.name, tt.qualified)
		}
	}
	if _, _, err := ParseRelation("a."); err == nil {
		t.Error(`ParseRelation("a.") succeeded`)
	}
}

func TestSplitIdentifiers(t *testing.T) {
	tests := []struct {
		in   string
		want []string
		ok   bool
	}{
		{`"$user", public`, []string{"$user", "public"}, true},
		{"tenant_7, public", []string{"tenant_7", "public"}, true},
		{`"T7", "My Schema",Public`, []string{"T7", "My Schema", "public"}, true},
		{`"a,b", "x""y"`, []string{"a,b", `x"y`}, true},
		{`""`, []string{""}, true},
		{`a, "" `, []string{"a", ""}, true},
		{"", nil, true},
		{"  ", nil, true},
		{"a,,b", nil, false},
		{"a,", nil, false},
		{"a b", nil, false},
		{"a.b", []string{"a.b"}, true}, // set_config('search_path', 'a.b', false): schema "a.b"
		{`a"b, C`, []string{`a"b`, "c"}, true},
		{`"a"b`, nil, false},
		{` a , "" ,b `, []string{"a", "", "b"}, true},
		{"a\vb", []string{"a\vb"}, true}, // not white space to PostgreSQL 15
		{`"a""b",`, nil, false},
		{`"open`, nil, false},
	}
	for _, tt := range tests {
		got, ok := SplitIdentifiers(tt.in)
		if ok != tt.ok || !slices.Equal(got, tt.want) {
			t.Errorf("SplitIdentifiers(%q) = %q, %v; want %q, %v", tt.in, got, ok, tt.want, tt.ok)
		}
	}
}
