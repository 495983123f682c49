package dynamostore

import (
	"errors"
	"fmt"
	"reflect"
	"testing"

	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
	"github.com/seqshim/seqshim/sequence"
)

// TestDecodeMembers checks how an item's members map is read: absent and
// empty are none (nil), members come in database order, and a value the
// store does not write is a malformed item, never silently fewer members.
func TestDecodeMembers(t *testing.T) {
	defs := []sequence.ColumnDefault{{Table: `shop."Items"`, Column: "No", Kind: sequence.IdentityAlways}}
	written := []sequence.Member{
		{DB: "sys/1/a", OwnedBy: "shop.items.no", Defaults: defs},
		{DB: "sys/1/b"},
		{DB: "sys/1/c", Native: &sequence.NativeRange{First: 100, Last: 199}},
	}
	m := func(kv ...any) types.AttributeValue {
		out := map[string]types.AttributeValue{}
		for i := 0; i < len(kv); i += 2 {
			out[kv[i].(string)] = kv[i+1].(types.AttributeValue)
		}
		return &types.AttributeValueMemberM{Value: out}
	}
	tests := []struct {
		name      string
		attr      types.AttributeValue // nil: absent
		want      []sequence.Member
		malformed bool
	}{
		{name: "absent"},
		{name: "empty map", attr: m()},
		{name: "written by putMembers", attr: func() types.AttributeValue {
			item := map[string]types.AttributeValue{}
			putMembers(item, written)
			return item[attrMembers]
		}(), want: written},
		{name: "database order", attr: m("z", str(`{}`), "a", str(`{"owned_by":"x"}`)),
			want: []sequence.Member{{DB: "a", OwnedBy: "x"}, {DB: "z"}}},
		{name: "native range", attr: m("a", str(`{"owned_by":"x","native":{"first":-1,"last":-50}}`)),
			want: []sequence.Member{{DB: "a", OwnedBy: "x", Native: &sequence.NativeRange{First: -1, Last: -50}}}},
		{name: "bad native", attr: m("a", str(`{"native":"100-199"}`)), malformed: true},
		{name: "not a map", attr: str("[]"), malformed: true},
		{name: "view not a string", attr: m("a", num(1)), malformed: true},
		{name: "view not JSON", attr: m("a", str("owner")), malformed: true},
		{name: "bad defaults", attr: m("a", str(`{"defaults":[{"table":"t","column":"c","kind":"sometimes"}]}`)), malformed: true},
		{name: "no database", attr: m("", str(`{}`)), malformed: true},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			spec := sequence.DefaultSpec()
			item := newItem("s", "gen", spec, spec.Initial())
			if tc.attr != nil {
				item[attrMembers] = tc.attr
			}
			r, err := decode("s", item)
			if tc.malformed {
				if !errors.Is(err, errMalformed) {
					t.Fatalf("decode: %v, want a malformed item error", err)
				}
				return
			}
			if err != nil {
				t.Fatalf("decode: %v", err)
			}
			got := r.info.Spec.Members
			if !reflect.DeepEqual(got, tc.want) {
				t.Errorf("decoded members %s, want %s", fmtMembers(got), fmtMembers(tc.want))
			}
		})
	}

	// newItem writes no attribute for none, as items made before members.
	spec := sequence.DefaultSpec()
	if _, ok := newItem("s", "gen", spec, spec.Initial())[attrMembers]; ok {
		t.Errorf("an item without members has the attribute %q", attrMembers)
	}
	spec.Members = written
	if r, err := decode("s", newItem("s", "gen", spec, spec.Initial())); err != nil || !r.info.Spec.Equal(spec) {
		t.Errorf("newItem with members decodes to %+v, %v", r.info.Spec.Members, err)
	}
}

// fmtMembers writes members for a message, native ranges and all (%+v
// would write their pointers).
func fmtMembers(members []sequence.Member) string {
	if members == nil {
		return "nil"
	}
	out := "["
	for i, m := range members {
		if i > 0 {
			out += " "
		}
		out += fmt.Sprintf("{DB:%s OwnedBy:%s Defaults:%v", m.DB, m.OwnedBy, m.Defaults)
		if m.Native != nil {
			out += fmt.Sprintf(" Native:%+v", *m.Native)
		}
		out += "}"
	}
	return out + "]"
}
