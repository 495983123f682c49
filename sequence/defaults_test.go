package sequence

import (
	"slices"
	"testing"
)

func TestColumnDefaults(t *testing.T) {
	defs := []ColumnDefault{
		{Table: "orders", Column: "id", Kind: IdentityAlways},
		{Table: `tenant_7."Items"`, Column: "Weird \"col\"\n", Kind: DefaultNextval},
	}
	got, err := DecodeDefaults(EncodeDefaults(defs))
	if err != nil || !slices.Equal(got, defs) {
		t.Fatalf("round trip: %v, %v", got, err)
	}
	if EncodeDefaults(nil) != "" {
		t.Fatal("no defaults should encode as the empty text")
	}
	if _, err := DecodeDefaults(`[{"table":"t","column":"c","kind":"sometimes"}]`); err == nil {
		t.Fatal("an unknown kind should not decode")
	}
	for _, tc := range []struct {
		in   string
		want ColumnDefault
	}{
		{"orders.id", ColumnDefault{Table: "orders", Column: "id"}},
		{"public.orders.id:always", ColumnDefault{Table: "orders", Column: "id", Kind: IdentityAlways}},
		{`Tenant_7."Orders".ID:by-default`, ColumnDefault{Table: `tenant_7."Orders"`, Column: "id", Kind: IdentityByDefault}},
		{"orders.id (always)", ColumnDefault{Table: "orders", Column: "id", Kind: IdentityAlways}},
	} {
		got, err := ParseColumnDefault(tc.in)
		if err != nil || got != tc.want {
			t.Errorf("ParseColumnDefault(%q) = %+v, %v; want %+v", tc.in, got, err, tc.want)
		}
		if back, err := ParseColumnDefault(got.String()); err != nil || back != got {
			t.Errorf("ParseColumnDefault(%q.String()) = %+v, %v", tc.in, back, err)
		}
	}
	for _, bad := range []string{"orders", "a.b.c.d", "orders.id:never"} {
		if _, err := ParseColumnDefault(bad); err == nil {
			t.Errorf("ParseColumnDefault(%q) should fail", bad)
		}
	}
	d := WithDefault(nil, ColumnDefault{Table: "b", Column: "id"})
	d = WithDefault(d, ColumnDefault{Table: "a", Column: "id"})
	d = WithDefault(d, ColumnDefault{Table: "b", Column: "id", Kind: IdentityAlways})
	if want := []ColumnDefault{{Table: "a", Column: "id"}, {Table: "b", Column: "id", Kind: IdentityAlways}}; !slices.Equal(d, want) {
		t.Fatalf("WithDefault: %v, want %v", d, want)
	}
	if d = WithoutDefault(d, "a", "id"); len(d) != 1 || d[0].Table != "b" {
		t.Fatalf("WithoutDefault: %v", d)
	}
	spec, _, err := Clauses{Defaults: &d}.Create()
	if err != nil || !slices.Equal(spec.Defaults, d) {
		t.Fatalf("Create with Defaults: %v, %v", spec.Defaults, err)
	}
	spec2, _, err := Clauses{}.Alter(spec, spec.Initial())
	if err != nil || !spec2.Equal(spec) {
		t.Fatalf("Alter without Defaults changed them: %v, %v", spec2.Defaults, err)
	}
	none := []ColumnDefault{}
	if spec3, _, err := (Clauses{Defaults: &none}).Alter(spec, spec.Initial()); err != nil || spec3.Defaults != nil {
		t.Fatalf("Alter to no defaults: %v, %v", spec3.Defaults, err)
	}
}

func TestParseColumnDefaultQuotedDot(t *testing.T) {
	got, err := ParseColumnDefault(`"a.b"."c:d".id`)
	if err != nil || got != (ColumnDefault{Table: `"a.b"."c:d"`, Column: "id"}) {
		t.Fatalf("got %+v, %v", got, err)
	}
}
