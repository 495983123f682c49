package main

import (
	"reflect"
	"strings"
	"testing"

	"github.com/seqshim/seqshim/sequence"
)

func cols(t *testing.T, texts ...string) []sequence.ColumnDefault {
	t.Helper()
	var out []sequence.ColumnDefault
	for _, s := range texts {
		d, err := sequence.ParseColumnDefault(s)
		if err != nil {
			t.Fatalf("bad test column %q: %v", s, err)
		}
		out = append(out, d)
	}
	return out
}

func TestDefaultsEdit(t *testing.T) {
	tests := []struct {
		name       string
		current    []string
		set, unset []string
		clear      bool
		want       []string // nil: wantErr
		wantErr    string
	}{
		{name: "add to none", set: []string{"b.x", "a.x:always"}, want: []string{"a.x (always)", "b.x (default)"}},
		{name: "add", current: []string{"a.x"}, set: []string{"b.x"}, want: []string{"a.x (default)", "b.x (default)"}},
		{name: "replace a kind", current: []string{"a.x", "b.x"}, set: []string{"a.x:by-default"}, want: []string{"a.x (by-default)", "b.x (default)"}},
		{name: "remove", current: []string{"a.x", "b.x"}, unset: []string{"a.x"}, want: []string{"b.x (default)"}},
		{name: "remove the last", current: []string{"a.x"}, unset: []string{"public.a.x"}, want: []string{}},
		{name: "remove one not there", current: []string{"a.x"}, unset: []string{"a.y"},
			wantErr: "--no-default a.y: not a column default of s (its column defaults: a.x (default))"},
		{name: "remove from none", unset: []string{"a.y"}, wantErr: "(its column defaults: none)"},
		{name: "clear", current: []string{"a.x", "b.x"}, clear: true, want: []string{}},
		{name: "clear and set", current: []string{"a.x", "b.x"}, clear: true, set: []string{"c.x"}, want: []string{"c.x (default)"}},
		{name: "clear and unset", clear: true, unset: []string{"a.x"}, wantErr: "conflicting options: --no-default with --no-defaults"},
		{name: "set and unset one column", set: []string{"a.x"}, unset: []string{"A.X"}, wantErr: "--default and --no-default of column a.x"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			e, err := newDefaultsEdit(cols(t, tt.set...), cols(t, tt.unset...), tt.clear)
			var got []sequence.ColumnDefault
			if err == nil {
				got, err = e.apply("s", cols(t, tt.current...))
			}
			if tt.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
					t.Fatalf("error %v, want one containing %q", err, tt.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if got == nil {
				t.Fatal("apply returned nil: Clauses.Defaults would keep the old defaults instead of removing them")
			}
			gotS := []string{}
			for _, d := range got {
				gotS = append(gotS, d.String())
			}
			if !reflect.DeepEqual(gotS, tt.want) {
				t.Errorf("got %q, want %q", gotS, tt.want)
			}
		})
	}
}

func TestClaimedElsewhere(t *testing.T) {
	infos := []sequence.Info{
		{Name: "a", Spec: sequence.Spec{Defaults: cols(t, "t.id:always")}},
		{Name: "b", Spec: sequence.Spec{Defaults: cols(t, "u.id", "v.id")}},
		// Each member's own; the spec's, which no database sees, claim nothing.
		{Name: "m", Spec: sequence.Spec{Defaults: cols(t, "x.id"), Members: []sequence.Member{
			{DB: testDB("16384", "shop_a"), Defaults: cols(t, "y.id")}, {DB: testDB("16390", "shop_b")}}}},
	}
	tests := []struct {
		name, counter string
		cols          []string
		wantErr       string
	}{
		{"free column", "a", []string{"w.id"}, ""},
		{"its own column", "b", []string{"v.id"}, ""},
		{"its own column, another kind", "a", []string{"t.id:by-default"}, ""},
		{"another counter's column", "a", []string{"w.id", "v.id"},
			"column v.id draws its default from counter b already (seqctl alter b --no-default v.id first)"},
		{"a new counter", "c", []string{"t.id"}, "from counter a already"},
		{"a member's column", "a", []string{"y.id"},
			"column y.id draws its default from counter m already in database shop_a (OID 16384, cluster 7301234567890123456)"},
		{"a shared counter's own, unseen", "a", []string{"x.id"}, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			err := claimedElsewhere(infos, tt.counter, cols(t, tt.cols...))
			if tt.wantErr == "" && err != nil || tt.wantErr != "" && (err == nil || !strings.Contains(err.Error(), tt.wantErr)) {
				t.Errorf("claimedElsewhere(%s, %v) = %v, want %q", tt.counter, tt.cols, err, tt.wantErr)
			}
		})
	}
}
