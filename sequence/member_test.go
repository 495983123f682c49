package sequence

import (
	"errors"
	"strings"
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
		{"same native", with(Member{DB: "a", Native: &NativeRange{First: 100, Last: 199}}), with(Member{DB: "a", Native: &NativeRange{First: 100, Last: 199}}), true},
		{"native and none", with(Member{DB: "a", Native: &NativeRange{First: 100, Last: 199}}), with(Member{DB: "a"}), false},
		{"other native first", with(Member{DB: "a", Native: &NativeRange{First: 100, Last: 199}}), with(Member{DB: "a", Native: &NativeRange{First: 101, Last: 199}}), false},
		{"other native last", with(Member{DB: "a", Native: &NativeRange{First: 100, Last: 199}}), with(Member{DB: "a", Native: &NativeRange{First: 100, Last: 198}}), false},
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

// TestEncodeMembersNative checks that a member's native range survives
// EncodeMembers and DecodeMembers, and that a member without one stays
// without one.
func TestEncodeMembersNative(t *testing.T) {
	members := []Member{
		{DB: "sys/1/a", OwnedBy: "t.id", Native: &NativeRange{First: 100, Last: 199}},
		{DB: "sys/2/b", Native: &NativeRange{First: -1, Last: -50}},
		{DB: "sys/3/c"},
	}
	text := EncodeMembers(members)
	got, err := DecodeMembers(text)
	if err != nil {
		t.Fatalf("DecodeMembers(%s): %v", text, err)
	}
	if !sameMembers(got, members) {
		t.Errorf("DecodeMembers(EncodeMembers(%+v)) = %+v", members, got)
	}
	if got[2].Native != nil {
		t.Errorf("a member without a native range decodes with %+v", *got[2].Native)
	}
	if want := `"native":{"first":100,"last":199}`; !strings.Contains(text, want) {
		t.Errorf("EncodeMembers = %s, want it to contain %s", text, want)
	}
	if strings.Count(text, `"native"`) != 2 {
		t.Errorf("EncodeMembers = %s: want native written only for the members that have one", text)
	}
}
