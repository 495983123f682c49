package dynamostore

import (
	"errors"
	"slices"
	"testing"

	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
	"github.com/seqshim/seqshim/sequence"
)

// TestDecodeDefaults checks how an item's column defaults are read: absent is
// none, and a value that is not what the store writes is a malformed item,
// never silently no defaults.
func TestDecodeDefaults(t *testing.T) {
	defaults := []sequence.ColumnDefault{
		{Table: "orders", Column: "id", Kind: sequence.IdentityAlways},
		{Table: `shop."Items"`, Column: "No", Kind: sequence.DefaultNextval},
	}
	tests := []struct {
		name      string
		attr      types.AttributeValue // nil: absent
		want      []sequence.ColumnDefault
		malformed bool
	}{
		{name: "absent"},
		{name: "written by putSpec", attr: str(sequence.EncodeDefaults(defaults)), want: defaults},
		{name: "not JSON", attr: str("orders.id"), malformed: true},
		{name: "unknown kind", attr: str(`[{"table":"t","column":"c","kind":"sometimes"}]`), malformed: true},
		{name: "not a string", attr: num(1), malformed: true},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			spec := sequence.DefaultSpec()
			item := newItem("s", "gen", spec, spec.Initial())
			if tc.attr != nil {
				item[attrDefs] = tc.attr
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
			if !slices.Equal(r.info.Spec.Defaults, tc.want) || (r.info.Spec.Defaults == nil) != (tc.want == nil) {
				t.Errorf("decoded defaults %v, want %v", r.info.Spec.Defaults, tc.want)
			}
		})
	}

	// putSpec writes no attribute for none, so that absent and none agree.
	spec := sequence.DefaultSpec()
	if _, ok := newItem("s", "gen", spec, spec.Initial())[attrDefs]; ok {
		t.Errorf("an item without column defaults has the attribute %q", attrDefs)
	}
}
