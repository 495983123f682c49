package dynamostore

import (
	"errors"
	"fmt"
	"hash/fnv"
	"math"
	"strconv"
	"time"

	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
	"github.com/seqshim/seqshim/sequence"
)

// Attribute names of a sequence item; see the package documentation. Every
// expression refers to them as #name placeholders, since several (name, type,
// min, max, cycle, cache) are DynamoDB reserved words.
const (
	attrKey     = "name"     // S: prefix + canonical sequence name (partition key)
	attrType    = "type"     // S: smallint, integer or bigint
	attrInc     = "inc"      // N: INCREMENT BY
	attrMin     = "min"      // N: MINVALUE
	attrMax     = "max"      // N: MAXVALUE
	attrStart   = "start"    // N: START WITH
	attrCache   = "cache"    // N: CACHE (a hint)
	attrCycle   = "cycle"    // BOOL: CYCLE
	attrLast    = "last"     // N: position: last value handed out (or next, if not called)
	attrCalled  = "called"   // BOOL: position: whether last was handed out
	attrVer     = "ver"      // N: bumped by every spec or position change other than Reserve/Release
	attrGen     = "gen"      // S: random, set by Create: tells a recreated sequence from the one dropped
	attrResv    = "resv"     // N: blocks handed out by Reserve
	attrNres    = "nres"     // N: values in those blocks
	attrLastRes = "lastres"  // N: Unix milliseconds of the last Reserve; absent if never
	attrMoved   = "moved"    // S: present while a Rename moves the item to this canonical name
	attrOwner   = "owner"    // S: OWNED BY (sequence.Spec.OwnedBy); absent for none
	attrDefs    = "defaults" // S: column defaults (sequence.EncodeDefaults of Spec.Defaults); absent for none
	attrLimit   = "dlimit"   // N: daily limit (sequence.Spec.DailyLimit); absent for none
	attrUDay    = "uday"     // N: the UTC day (sequence.Day) uused counts; absent until a reservation under a limit
	attrUUsed   = "uused"    // N: values reserved on uday under a daily limit (sequence.Info.DayUsage)
	attrPBuf    = "pbuf"     // N: cache policy buffer, milliseconds (sequence.Policy.Buffer); absent for the default
	attrPMinB   = "pminb"    // N: cache policy min block (sequence.Policy.MinBlock); absent for the default
	attrPMaxB   = "pmaxb"    // N: cache policy max block (sequence.Policy.MaxBlock); absent for the default
	attrPReval  = "preval"   // N: cache policy revalidate interval, milliseconds; absent for the default
	attrMembers = "members"  // M: database -> its view (sequence.Spec.Members; see members.go); absent for none

	// The proof of the latest reservation made with a token
	// (sequence.Recoverer): written with it, removed by a reservation
	// without a token and by a release.
	attrTok      = "tok"      // S: the token (sequence.Token.String)
	attrTokFirst = "tokfirst" // N: the block's first value
	attrTokStep  = "tokstep"  // N: the block's step
	attrTokCount = "tokcount" // N: the block's count
	attrTokVer   = "tokver"   // N: ver when the block was reserved
)

// policyAttrs are the cache policy's attributes with their values in p:
// milliseconds for durations, 0 for a field not set (attribute absent).
func policyAttrs(p sequence.Policy) []struct {
	name string
	v    int64
} {
	return []struct {
		name string
		v    int64
	}{
		{attrPBuf, p.Buffer.Milliseconds()},
		{attrPMinB, p.MinBlock},
		{attrPMaxB, p.MaxBlock},
		{attrPReval, p.Revalidate.Milliseconds()},
	}
}

// record is a decoded item.
type record struct {
	info  sequence.Info
	gen   string // incarnation, see attrGen
	resv  string // the raw reservation counter, compared as is in compare-and-set conditions
	moved string // non-empty: fenced by a Rename in progress

	tok      string         // the latest reservation's token; empty if none
	tokBlock sequence.Block // its block, if tok is set
	tokVer   int64          // ver when it was reserved, if tok is set
}

// genOf is the incarnation (sequence.Info.Gen, sequence.Block.Gen) of an
// item whose gen attribute is gen: its FNV-64a hash, never 0. Two
// incarnations collide with probability 2⁻⁶⁴.
func genOf(gen string) uint64 {
	h := fnv.New64a()
	h.Write([]byte(gen))
	if g := h.Sum64(); g != 0 {
		return g
	}
	return 1
}

func num(v int64) types.AttributeValue {
	return &types.AttributeValueMemberN{Value: strconv.FormatInt(v, 10)}
}

func str(s string) types.AttributeValue { return &types.AttributeValueMemberS{Value: s} }

func boolean(b bool) types.AttributeValue { return &types.AttributeValueMemberBOOL{Value: b} }

func keyOf(key string) map[string]types.AttributeValue {
	return map[string]types.AttributeValue{attrKey: str(key)}
}

// newItem is the item of a freshly created sequence.
func newItem(key, gen string, spec sequence.Spec, pos sequence.Position) map[string]types.AttributeValue {
	item := map[string]types.AttributeValue{
		attrKey:  str(key),
		attrGen:  str(gen),
		attrVer:  num(1),
		attrResv: num(0),
		attrNres: num(0),
	}
	putSpec(item, spec)
	putPos(item, pos)
	putMembers(item, spec.Members)
	return item
}

func putSpec(m map[string]types.AttributeValue, spec sequence.Spec) {
	m[attrType] = str(spec.Type.String())
	m[attrInc] = num(spec.Increment)
	m[attrMin] = num(spec.Min)
	m[attrMax] = num(spec.Max)
	m[attrStart] = num(spec.Start)
	m[attrCache] = num(spec.Cache)
	m[attrCycle] = boolean(spec.Cycle)
	if spec.OwnedBy != "" {
		m[attrOwner] = str(spec.OwnedBy)
	}
	if len(spec.Defaults) > 0 {
		m[attrDefs] = str(sequence.EncodeDefaults(spec.Defaults))
	}
	if spec.DailyLimit > 0 {
		m[attrLimit] = num(spec.DailyLimit)
	}
	for _, a := range policyAttrs(spec.Policy) {
		if a.v != 0 {
			m[a.name] = num(a.v)
		}
	}
}

func putPos(m map[string]types.AttributeValue, pos sequence.Position) {
	m[attrLast] = num(pos.Last)
	m[attrCalled] = boolean(pos.Called)
}

var errMalformed = errors.New("dynamostore: malformed sequence item")

// decode reads an item; name is the canonical name (key without prefix).
func decode(name string, item map[string]types.AttributeValue) (record, error) {
	d := decoder{item: item}
	var r record
	r.info.Name = name
	typ := d.str(attrType)
	t, err := sequence.ParseType(typ)
	if err != nil {
		d.fail(attrType)
	}
	r.info.Spec = sequence.Spec{
		Type:      t,
		Increment: d.int(attrInc),
		Min:       d.int(attrMin),
		Max:       d.int(attrMax),
		Start:     d.int(attrStart),
		Cache:     d.int(attrCache),
		Cycle:     d.bool(attrCycle),
	}
	if _, ok := item[attrOwner]; ok {
		r.info.Spec.OwnedBy = d.str(attrOwner)
	}
	if _, ok := item[attrDefs]; ok {
		defs, err := sequence.DecodeDefaults(d.str(attrDefs))
		if err != nil {
			d.fail(attrDefs)
		}
		r.info.Spec.Defaults = defs
	}
	if _, ok := item[attrLimit]; ok {
		r.info.Spec.DailyLimit = d.int(attrLimit)
	}
	if v, ok := item[attrMembers]; ok {
		members, ok := decodeMembers(v)
		if !ok {
			d.fail(attrMembers)
		}
		r.info.Spec.Members = members
	}
	opt := func(attr string) int64 {
		if _, ok := item[attr]; ok {
			return d.int(attr)
		}
		return 0
	}
	// Milliseconds a time.Duration holds: more would wrap around.
	ms := func(attr string) time.Duration {
		v := opt(attr)
		if v < 0 || v > int64(math.MaxInt64/time.Millisecond) {
			d.fail(attr)
			return 0
		}
		return time.Duration(v) * time.Millisecond
	}
	r.info.Spec.Policy = sequence.Policy{
		Buffer:     ms(attrPBuf),
		MinBlock:   opt(attrPMinB),
		MaxBlock:   opt(attrPMaxB),
		Revalidate: ms(attrPReval),
	}
	if _, ok := item[attrUDay]; ok {
		r.info.DayUsage = sequence.Usage{Day: sequence.Day(d.int(attrUDay)), Used: d.int(attrUUsed)}
	}
	r.info.Position = sequence.Position{Last: d.int(attrLast), Called: d.bool(attrCalled)}
	r.info.Version = d.int(attrVer)
	r.gen = d.str(attrGen)
	r.info.Gen = genOf(r.gen)
	r.resv = d.raw(attrResv)
	r.info.Reservations = d.counter(attrResv)
	r.info.ValuesReserved = d.counter(attrNres)
	if _, ok := item[attrLastRes]; ok {
		r.info.LastReserved = time.UnixMilli(d.int(attrLastRes)).UTC()
	}
	if _, ok := item[attrMoved]; ok {
		r.moved = d.str(attrMoved)
	}
	if _, ok := item[attrTok]; ok {
		r.tok = d.str(attrTok)
	}
	if r.tok != "" { // "" is no token: no block to prove
		r.tokBlock = sequence.Block{First: d.int(attrTokFirst), Step: d.int(attrTokStep), Count: d.int(attrTokCount)}
		r.tokVer = d.int(attrTokVer)
	}
	if d.bad != "" {
		return record{}, fmt.Errorf("%w %q: attribute %q", errMalformed, name, d.bad)
	}
	// A spec no CREATE or ALTER would have written (INCREMENT 0, MINVALUE
	// above MAXVALUE, a negative policy) is malformed: the block
	// arithmetic must never see it.
	if err := r.info.Spec.Validate(); err != nil {
		return record{}, fmt.Errorf("%w %q: %v", errMalformed, name, err) // not ErrInvalid: nothing the caller gave
	}
	return r, nil
}

// decoder notes the first missing or malformed attribute.
type decoder struct {
	item map[string]types.AttributeValue
	bad  string
}

func (d *decoder) fail(attr string) {
	if d.bad == "" {
		d.bad = attr
	}
}

func (d *decoder) raw(attr string) string {
	v, ok := d.item[attr].(*types.AttributeValueMemberN)
	if !ok {
		d.fail(attr)
		return "0"
	}
	return v.Value
}

func (d *decoder) int(attr string) int64 {
	n, err := strconv.ParseInt(d.raw(attr), 10, 64)
	if err != nil {
		d.fail(attr)
	}
	return n
}

// counter saturates rather than failing: burn-rate counters of a very old
// CYCLE sequence may outgrow int64 (DynamoDB numbers have 38 digits).
func (d *decoder) counter(attr string) int64 {
	n, err := strconv.ParseInt(d.raw(attr), 10, 64)
	if err != nil {
		var ne *strconv.NumError
		if errors.As(err, &ne) && errors.Is(ne.Err, strconv.ErrRange) && n == math.MaxInt64 {
			return n
		}
		d.fail(attr)
	}
	return n
}

func (d *decoder) str(attr string) string {
	v, ok := d.item[attr].(*types.AttributeValueMemberS)
	if !ok {
		d.fail(attr)
		return ""
	}
	return v.Value
}

func (d *decoder) bool(attr string) bool {
	v, ok := d.item[attr].(*types.AttributeValueMemberBOOL)
	if !ok {
		d.fail(attr)
		return false
	}
	return v.Value
}

// names returns the ExpressionAttributeNames for the #placeholders used in
// exprs (each #x stands for attribute x). DynamoDB rejects unused entries, so
// the map is derived from the expressions themselves.
func names(exprs ...string) map[string]string {
	m := make(map[string]string)
	for _, e := range exprs {
		for i := 0; i < len(e); i++ {
			if e[i] != '#' {
				continue
			}
			j := i + 1
			for j < len(e) && (e[j] >= 'a' && e[j] <= 'z') {
				j++
			}
			m[e[i:j]] = e[i+1 : j]
			i = j - 1
		}
	}
	return m
}
