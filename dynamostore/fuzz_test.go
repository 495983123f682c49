package dynamostore

import (
	"encoding/binary"
	"errors"
	"maps"
	"math"
	"net/url"
	"reflect"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"github.com/seqshim/seqshim/sequence"
)

// FuzzParseURL checks, for any store URL: ParseURL does not panic; its
// errors wrap ErrURL; a URL it reads names a valid table and, written back
// from its parts, reads the same. The seed corpus is in
// testdata/fuzz/FuzzParseURL.
func FuzzParseURL(f *testing.F) {
	for _, s := range []string{
		"dynamodb://seqs", "dynamodb://seqs?region=eu-west-1&endpoint=http%3A%2F%2F127.0.0.1%3A4567&prefix=a%2F",
		"dynamodb://seqs/?prefix=", "dynamodb://ab", "dynamodb://seqs?region=r&region=s", "dynamodb://u:p@seqs",
		"dynamodb://seqs:1", "dynamodb://seqs#f", "dynamodb:seqs", "dynamodb://seqs?endpoint=ftp://x", "dynamodb://seqs?x=1",
		"dynamodb://seqs?%zz", "DYNAMODB://seqs", "dynamodb://[::1]", "dynamodb://seqs?endpoint=http://h:1/p?q#f",
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, raw string) {
		p, err := ParseURL(raw)
		if err != nil {
			if !errors.Is(err, ErrURL) {
				t.Fatalf("ParseURL(%q): %v does not wrap ErrURL", raw, err)
			}
			return
		}
		if !validTable(p.Table) {
			t.Fatalf("ParseURL(%q) = table %q", raw, p.Table)
		}
		q := url.Values{}
		for k, v := range map[string]string{"region": p.Region, "endpoint": p.Endpoint, "prefix": p.Prefix} {
			if v != "" {
				q.Set(k, v)
			}
		}
		back := "dynamodb://" + p.Table
		if len(q) > 0 {
			back += "?" + q.Encode()
		}
		if again, err := ParseURL(back); err != nil || again != p {
			t.Fatalf("ParseURL(%q) = %+v, written back %q: %+v, %v", raw, p, back, again, err)
		}
	})
}

// itemAttrs are the attributes of a sequence item, and one no version
// writes.
var itemAttrs = []string{attrKey, attrType, attrInc, attrMin, attrMax, attrStart, attrCache, attrCycle, attrLast, attrCalled,
	attrVer, attrGen, attrResv, attrNres, attrLastRes, attrMoved, attrOwner, attrDefs, attrLimit, attrUDay, attrUUsed,
	attrPBuf, attrPMinB, attrPMaxB, attrPReval, attrTok, attrTokFirst, attrTokStep, attrTokCount, attrTokVer, attrMembers, "other"}

// itemOf builds an item from fuzz bytes: records of an attribute (a byte:
// its index in itemAttrs), a type (a byte: N, S, BOOL, binary, or a map of
// strings whose keys and values are the value's NUL-separated parts) and a
// value (a length byte, then that many bytes).
func itemOf(data []byte) map[string]types.AttributeValue {
	item := map[string]types.AttributeValue{}
	for len(data) >= 3 {
		name, kind, n := itemAttrs[int(data[0])%len(itemAttrs)], data[1]%5, int(data[2])
		data = data[3:]
		v := data[:min(n, len(data))]
		data = data[len(v):]
		switch kind {
		case 0:
			item[name] = &types.AttributeValueMemberN{Value: string(v)}
		case 1:
			item[name] = &types.AttributeValueMemberS{Value: string(v)}
		case 2:
			item[name] = &types.AttributeValueMemberBOOL{Value: len(v) > 0 && v[0]&1 == 1}
		case 3:
			item[name] = &types.AttributeValueMemberB{Value: slices.Clone(v)}
		default:
			m := map[string]types.AttributeValue{}
			parts := strings.Split(string(v), "\x00")
			for i := 0; i+1 < len(parts); i += 2 {
				m[parts[i]] = str(parts[i+1])
			}
			item[name] = &types.AttributeValueMemberM{Value: m}
		}
	}
	return item
}

// bytesOf is the inverse of itemOf, for seeds (attributes of itemAttrs,
// values up to 255 bytes).
func bytesOf(item map[string]types.AttributeValue) []byte {
	var out []byte
	for i, name := range itemAttrs {
		var kind byte
		var v []byte
		switch a := item[name].(type) {
		case nil:
			continue
		case *types.AttributeValueMemberN:
			kind, v = 0, []byte(a.Value)
		case *types.AttributeValueMemberS:
			kind, v = 1, []byte(a.Value)
		case *types.AttributeValueMemberBOOL:
			kind, v = 2, []byte{0}
			if a.Value {
				v[0] = 1
			}
		case *types.AttributeValueMemberM:
			kind = 4
			for _, k := range slices.Sorted(maps.Keys(a.Value)) {
				v = append(append(append(append(v, k...), 0), a.Value[k].(*types.AttributeValueMemberS).Value...), 0)
			}
		}
		out = append(out, byte(i), kind, byte(len(v)))
		out = append(out, v...)
	}
	return out
}

// encode is the item of a decoded record, as the store writes each
// attribute (newItem, putSpec, putPos, and the reservation's SET).
func encode(name string, r record) map[string]types.AttributeValue {
	item := map[string]types.AttributeValue{attrKey: str(name), attrGen: str(r.gen), attrVer: num(r.info.Version),
		attrResv: &types.AttributeValueMemberN{Value: r.resv}, attrNres: num(r.info.ValuesReserved)}
	putSpec(item, r.info.Spec)
	putPos(item, r.info.Position)
	if !r.info.LastReserved.IsZero() {
		item[attrLastRes] = num(r.info.LastReserved.UnixMilli())
	}
	if r.info.DayUsage != (sequence.Usage{}) {
		item[attrUDay], item[attrUUsed] = num(int64(r.info.DayUsage.Day)), num(r.info.DayUsage.Used)
	}
	if r.moved != "" {
		item[attrMoved] = str(r.moved)
	}
	putMembers(item, r.info.Spec.Members)
	if r.tok != "" {
		item[attrTok] = str(r.tok)
		item[attrTokFirst], item[attrTokStep], item[attrTokCount] = num(r.tokBlock.First), num(r.tokBlock.Step), num(r.tokBlock.Count)
		item[attrTokVer] = num(r.tokVer)
	}
	return item
}

// FuzzDecode checks, for any item (attributes and values made of fuzz
// bytes): decode does not panic; its errors wrap errMalformed; a record it
// reads has a valid spec (Spec.Validate), re-encodes to an item that
// decodes to the same record, and reserves from its position without
// panicking. The seed corpus is in testdata/fuzz/FuzzDecode.
func FuzzDecode(f *testing.F) {
	spec := sequence.DefaultSpec()
	f.Add(bytesOf(newItem("s", "gen", spec, spec.Initial())))
	odd, _, _ := sequence.Clauses{Type: sequence.TypeOf(sequence.Smallint), Increment: sequence.Int64(-3), Cycle: sequence.Bool(true),
		Policy: &sequence.PolicyClauses{Buffer: sequence.Duration(time.Minute), MinBlock: sequence.Int64(10)}}.Create()
	odd.OwnedBy, odd.DailyLimit = "t.id", 100
	odd.Defaults = []sequence.ColumnDefault{{Table: "t", Column: "id", Kind: sequence.IdentityAlways}}
	odd.Members = []sequence.Member{{DB: "7/1/a", OwnedBy: "pg:7/1/a/16384/1", Defaults: odd.Defaults}, {DB: "7/2/b", Native: &sequence.NativeRange{First: -100, Last: -199}}}
	item := newItem("s", "g2", odd, sequence.Position{Last: -7, Called: true})
	item[attrLastRes], item[attrUDay], item[attrUUsed] = num(1700000000000), num(19000), num(5)
	item[attrTok], item[attrTokFirst], item[attrTokStep], item[attrTokCount], item[attrTokVer] = str("ab"), num(1), num(1), num(5), num(1)
	f.Add(bytesOf(item))
	if r, err := decode("s", itemOf(bytesOf(item))); err != nil || !reflect.DeepEqual(r.info.Spec, odd) {
		f.Fatalf("a seed does not survive bytesOf and itemOf: %+v, %v", r.info.Spec, err)
	}
	item[attrPBuf] = num(math.MaxInt64)
	f.Add(bytesOf(item))
	item[attrInc] = num(0)
	f.Add(bytesOf(item))
	f.Add([]byte{})
	f.Fuzz(func(t *testing.T, data []byte) {
		item := itemOf(data)
		r, err := decode("s", item)
		if err != nil {
			if !errors.Is(err, errMalformed) || errors.Is(err, sequence.ErrInvalid) {
				t.Fatalf("decode: %v", err)
			}
			return
		}
		if err := r.info.Spec.Validate(); err != nil {
			t.Fatalf("decode gave an invalid spec %+v: %v", r.info.Spec, err)
		}
		again, err := decode("s", encode("s", r))
		if err != nil || !reflect.DeepEqual(again, r) {
			t.Fatalf("decode of %v = %+v; re-encoded: %+v, %v", item, r, again, err)
		}
		n := int64(1)
		if len(data) >= 8 {
			n = int64(binary.LittleEndian.Uint64(data[len(data)-8:]))
		}
		if b, _, err := r.info.Spec.Reserve("s", r.info.Position, n); err == nil && (b.Count < 1 || b.Step != r.info.Spec.Increment) {
			t.Fatalf("Reserve(%d) from %+v of %+v: %+v", n, r.info.Position, r.info.Spec, b)
		}
	})
}
