package cosmosstore

import (
	"encoding/json"
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/seqshim/seqshim/sequence"
)

// num is an int64 kept in JSON as a decimal string: Cosmos DB keeps JSON
// numbers as IEEE 754 doubles, exact only up to 2^53, and a bigint
// sequence runs to 2^63-1.
type num int64

func (n num) MarshalJSON() ([]byte, error) {
	return strconv.AppendQuote(nil, strconv.FormatInt(int64(n), 10)), nil
}

func (n *num) UnmarshalJSON(b []byte) error {
	var s string
	if err := json.Unmarshal(b, &s); err != nil {
		return fmt.Errorf("want a decimal integer in a string, got %s", b)
	}
	v, err := strconv.ParseInt(s, 10, 64)
	if err != nil {
		return fmt.Errorf("want a decimal integer in a string, got %q", s)
	}
	*n = num(v)
	return nil
}

// document is one sequence's document: the JSON the container holds (see the
// package documentation's table). Optional fields are omitted when zero.
type document struct {
	ID   string `json:"id"`   // escaped key (see escapeID): also the partition key
	Name string `json:"name"` // the key: Options.Prefix + canonical name

	Type   string `json:"type"`
	Inc    num    `json:"inc"`
	Min    num    `json:"min"`
	Max    num    `json:"max"`
	Start  num    `json:"start"`
	Cache  num    `json:"cache"`
	Cycle  bool   `json:"cycle"`
	Last   num    `json:"last"`
	Called bool   `json:"called"`

	Gen     num `json:"gen"`
	Ver     num `json:"ver"`
	Resv    num `json:"resv"`
	Nres    num `json:"nres"`
	LastRes num `json:"lastres,omitempty"` // Unix milliseconds

	Owner    string `json:"owner,omitempty"`
	Defaults string `json:"defaults,omitempty"` // sequence.EncodeDefaults
	Members  string `json:"members,omitempty"`  // sequence.EncodeMembers
	DLimit   num    `json:"dlimit,omitempty"`
	UDay     num    `json:"uday,omitempty"`
	UUsed    num    `json:"uused,omitempty"`
	PBuf     num    `json:"pbuf,omitempty"`   // milliseconds
	PMinB    num    `json:"pminb,omitempty"`  //
	PMaxB    num    `json:"pmaxb,omitempty"`  //
	PReval   num    `json:"preval,omitempty"` // milliseconds

	Tok      string `json:"tok,omitempty"` // the latest reservation's token (hex)
	TokFirst num    `json:"tokfirst,omitempty"`
	TokStep  num    `json:"tokstep,omitempty"`
	TokCount num    `json:"tokcount,omitempty"`

	Moved string `json:"moved,omitempty"` // while a Rename is in progress: the new key
	From  string `json:"from,omitempty"`  // on a document made by a Rename: the old key
}

// escapeID makes a key a valid document id: Cosmos DB refuses '/', '\',
// '?' and '#' in ids, and '%' would be decoded twice on the way. Each is
// written as '~' and two hex digits, '~' too, so the mapping is one to
// one and a key without them is its own id.
func escapeID(key string) string {
	if !strings.ContainsAny(key, `/\?#%~`) {
		return key
	}
	var b strings.Builder
	for i := 0; i < len(key); i++ {
		switch c := key[i]; c {
		case '/', '\\', '?', '#', '%', '~':
			fmt.Fprintf(&b, "~%02X", c)
		default:
			b.WriteByte(c)
		}
	}
	return b.String()
}

// newDocument is the document of a sequence created at pos.
func newDocument(key string, spec sequence.Spec, pos sequence.Position, gen uint64) document {
	d := document{ID: escapeID(key), Name: key, Gen: num(int64(gen)), Ver: 1}
	d.setSpec(spec)
	d.Last, d.Called = num(pos.Last), pos.Called
	return d
}

// setSpec writes spec into d.
func (d *document) setSpec(s sequence.Spec) {
	d.Type = s.Type.String()
	d.Inc, d.Min, d.Max, d.Start, d.Cache, d.Cycle = num(s.Increment), num(s.Min), num(s.Max), num(s.Start), num(s.Cache), s.Cycle
	d.Owner = s.OwnedBy
	d.Defaults = sequence.EncodeDefaults(s.Defaults)
	d.Members = sequence.EncodeMembers(s.Members)
	d.DLimit = num(s.DailyLimit)
	d.PBuf, d.PMinB, d.PMaxB, d.PReval = num(s.Policy.Buffer.Milliseconds()), num(s.Policy.MinBlock), num(s.Policy.MaxBlock), num(s.Policy.Revalidate.Milliseconds())
}

// spec reads the sequence's spec; a document that does not decode is an
// error, never a guess.
func (d *document) spec() (sequence.Spec, error) {
	t, err := sequence.ParseType(d.Type)
	if err != nil {
		return sequence.Spec{}, err
	}
	s := sequence.Spec{
		Type: t, Increment: int64(d.Inc), Min: int64(d.Min), Max: int64(d.Max), Start: int64(d.Start), Cache: int64(d.Cache), Cycle: d.Cycle,
		OwnedBy: d.Owner, DailyLimit: int64(d.DLimit),
		Policy: sequence.Policy{
			Buffer: time.Duration(d.PBuf) * time.Millisecond, MinBlock: int64(d.PMinB), MaxBlock: int64(d.PMaxB),
			Revalidate: time.Duration(d.PReval) * time.Millisecond,
		},
	}
	if s.Defaults, err = sequence.DecodeDefaults(d.Defaults); err != nil {
		return sequence.Spec{}, err
	}
	if s.Members, err = sequence.DecodeMembers(d.Members); err != nil {
		return sequence.Spec{}, err
	}
	if err := s.Validate(); err != nil {
		return sequence.Spec{}, err
	}
	return s, nil
}

// info is the sequence.Info of d, named name (the canonical name).
func (d *document) info(name string) (sequence.Info, error) {
	spec, err := d.spec()
	if err != nil {
		return sequence.Info{}, fmt.Errorf("document %q does not decode: %w", d.ID, err)
	}
	info := sequence.Info{
		Name: name, Spec: spec, Position: sequence.Position{Last: int64(d.Last), Called: d.Called},
		Version: int64(d.Ver), Gen: uint64(d.Gen), Reservations: int64(d.Resv), ValuesReserved: int64(d.Nres),
		DayUsage: sequence.Usage{Day: sequence.Day(d.UDay), Used: int64(d.UUsed)},
	}
	if d.LastRes != 0 {
		info.LastReserved = time.UnixMilli(int64(d.LastRes)).UTC()
	}
	return info, nil
}

// tokenBlock is the block recorded with the latest reservation's token.
func (d *document) tokenBlock(spec sequence.Spec) sequence.Block {
	return sequence.Block{First: int64(d.TokFirst), Step: int64(d.TokStep), Count: int64(d.TokCount), Policy: spec.Policy, Gen: uint64(d.Gen)}
}

// clearToken removes the latest reservation's token: its proof is gone.
func (d *document) clearToken() {
	d.Tok, d.TokFirst, d.TokStep, d.TokCount = "", 0, 0, 0
}
