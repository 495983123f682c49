package sequence

import (
	"errors"
	"testing"
)

func TestValidateMembers(t *testing.T) {
	defs := []ColumnDefault{{Table: "t", Column: "id", Kind: IdentityAlways}}
	tests := []struct {
		name    string
		members []Member
		wantErr bool
	}{
		{"none", nil, false},
		{"one", []Member{{DB: "a"}}, false},
		{"ordered", []Member{{DB: "a", OwnedBy: "x"}, {DB: "b", Defaults: defs}}, false},
		{"no database", []Member{{DB: ""}}, true},
		{"out of order", []Member{{DB: "b"}, {DB: "a"}}, true},
		{"twice", []Member{{DB: "a"}, {DB: "a"}}, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			spec := DefaultSpec()
			spec.Members = tt.members
			err := spec.Validate()
			if (err != nil) != tt.wantErr {
				t.Fatalf("Validate() = %v, want error %v", err, tt.wantErr)
			}
			if err != nil && !errors.Is(err, ErrInvalid) {
				t.Errorf("Validate() = %v, want ErrInvalid", err)
			}
		})
	}
	if err := (Member{}).Validate(); !errors.Is(err, ErrInvalid) {
		t.Errorf("Member{}.Validate() = %v, want ErrInvalid", err)
	}
	if err := (Member{DB: "x"}).Validate(); err != nil {
		t.Errorf("Member{DB: x}.Validate() = %v", err)
	}
}

func TestSpecEqualMembers(t *testing.T) {
	defs := []ColumnDefault{{Table: "t", Column: "id"}}
	base := DefaultSpec()
	with := func(members ...Member) Spec { s := base; s.Members = members; return s }
	tests := []struct {
		name string
		a, b Spec
		want bool
	}{
		{"nil and empty", with(), Spec{Type: base.Type, Increment: 1, Min: base.Min, Max: base.Max, Start: 1, Cache: 1, Members: []Member{}}, true},
		{"same", with(Member{DB: "a", Defaults: defs}), with(Member{DB: "a", Defaults: defs}), true},
		{"empty defaults", with(Member{DB: "a", Defaults: []ColumnDefault{}}), with(Member{DB: "a"}), true},
		{"member missing", with(Member{DB: "a"}), with(), false},
		{"other database", with(Member{DB: "a"}), with(Member{DB: "b"}), false},
		{"other owner", with(Member{DB: "a", OwnedBy: "x"}), with(Member{DB: "a"}), false},
		{"other defaults", with(Member{DB: "a", Defaults: defs}), with(Member{DB: "a"}), false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := tt.a.Equal(tt.b); got != tt.want {
				t.Errorf("Equal = %v, want %v", got, tt.want)
			}
			if got := tt.b.Equal(tt.a); got != tt.want {
				t.Errorf("Equal (swapped) = %v, want %v", got, tt.want)
			}
		})
	}
}
