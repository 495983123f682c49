package sqlstore

import (
	"fmt"
	"reflect"
	"testing"
	"time"

	"github.com/seqshim/seqshim/sequence"
)

// rowScanner is a scanner of one row of fixed column values, converted as
// database/sql converts an int64 or a string column into the destination's
// kind.
type rowScanner []any

func (r rowScanner) Scan(dest ...any) error {
	if len(dest) != len(r) {
		return fmt.Errorf("%d destinations for %d columns", len(dest), len(r))
	}
	for i, d := range dest {
		v := reflect.ValueOf(d).Elem()
		switch c := r[i].(type) {
		case int64:
			v.SetInt(c)
		case string:
			v.SetString(c)
		}
	}
	return nil
}

// rowOf is the row the store writes for info: the columns of the
// statement Create and update write, in the order of const columns.
func rowOf(info sequence.Info, gen int64) rowScanner {
	sp := &info.Spec
	return rowScanner{info.Name, sp.Type.String(), sp.Increment, sp.Min, sp.Max, sp.Start,
		sp.Cache, b2i(sp.Cycle), info.Position.Last, b2i(info.Position.Called), info.Version,
		info.Reservations, info.ValuesReserved, nanos(info.LastReserved), sp.OwnedBy,
		sequence.EncodeDefaults(sp.Defaults), sp.DailyLimit, int64(info.DayUsage.Day), info.DayUsage.Used,
		sp.Policy.Buffer.Milliseconds(), sp.Policy.MinBlock, sp.Policy.MaxBlock, sp.Policy.Revalidate.Milliseconds(), gen,
		sequence.EncodeMembers(sp.Members)}
}

// FuzzScanInfo checks, for any column values of a row: scanInfo does not
// panic; a row it reads has a valid spec (Spec.Validate), is written back
// (as Create and update write it) to a row it reads the same, and reserves
// from its position without panicking. The seed corpus is in
// testdata/fuzz/FuzzScanInfo.
func FuzzScanInfo(f *testing.F) {
	add := func(info sequence.Info, gen int64) {
		r := rowOf(info, gen)
		if info.Spec.Validate() == nil { // a seed the store could write reads back: rowOf has every column scanInfo reads
			want := info
			want.Gen = uint64(gen)
			if got, err := scanInfo(r); err != nil || !reflect.DeepEqual(got, want) {
				f.Fatalf("scanInfo(rowOf(%+v)) = %+v, %v", info, got, err)
			}
		}
		f.Add(r[0].(string), r[1].(string), r[2].(int64), r[3].(int64), r[4].(int64), r[5].(int64), r[6].(int64), r[7].(int64),
			r[8].(int64), r[9].(int64), r[10].(int64), r[11].(int64), r[12].(int64), r[13].(int64), r[14].(string), r[15].(string),
			r[16].(int64), r[17].(int64), r[18].(int64), r[19].(int64), r[20].(int64), r[21].(int64), r[22].(int64), r[23].(int64),
			r[24].(string))
	}
	spec := sequence.DefaultSpec()
	add(sequence.Info{Name: "s", Spec: spec, Position: spec.Initial(), Version: 1}, 7)
	odd, _, _ := sequence.Clauses{Type: sequence.TypeOf(sequence.Smallint), Increment: sequence.Int64(-3), Cycle: sequence.Bool(true),
		Policy: &sequence.PolicyClauses{Buffer: sequence.Duration(time.Minute), Revalidate: sequence.Duration(time.Second)}}.Create()
	odd.OwnedBy, odd.DailyLimit = "t.id", 100
	odd.Defaults = []sequence.ColumnDefault{{Table: "t", Column: "id", Kind: sequence.IdentityAlways}}
	odd.Members = []sequence.Member{{DB: "7/1/a", OwnedBy: "pg:7/1/a/16384/1", Defaults: odd.Defaults}, {DB: "7/2/b", Native: &sequence.NativeRange{First: -100, Last: -199}}}
	info := sequence.Info{Name: "app.s", Spec: odd, Position: sequence.Position{Last: -7, Called: true}, Version: 9, Reservations: 3,
		ValuesReserved: 30, LastReserved: time.Unix(0, 1700000000000000001), DayUsage: sequence.Usage{Day: 19000, Used: 5}}
	add(info, -1)
	info.Spec.Increment = 0
	add(info, 1)
	info.Spec.Increment, info.Spec.Policy.Buffer = 1, time.Duration(1<<62)
	add(info, 1)
	f.Fuzz(func(t *testing.T, name, typ string, inc, lo, hi, start, cache, cycle, last, called, version, resv, nres, lastNanos int64,
		owned, defaults string, limit, day, used, bufferMS, minBlock, maxBlock, revalidateMS, gen int64, members string) {
		row := rowScanner{name, typ, inc, lo, hi, start, cache, cycle, last, called, version, resv, nres, lastNanos, owned, defaults,
			limit, day, used, bufferMS, minBlock, maxBlock, revalidateMS, gen, members}
		info, err := scanInfo(row)
		if err != nil {
			return
		}
		if err := info.Spec.Validate(); err != nil {
			t.Fatalf("scanInfo gave an invalid spec %+v: %v", info.Spec, err)
		}
		again, err := scanInfo(rowOf(info, gen))
		if err != nil || !reflect.DeepEqual(again, info) {
			t.Fatalf("scanInfo(%v) = %+v; written back: %+v, %v", row, info, again, err)
		}
		if b, _, err := info.Spec.Reserve(name, info.Position, 1+version%1000); err == nil && (b.Count < 1 || b.Step != info.Spec.Increment) {
			t.Fatalf("Reserve from %+v of %+v: %+v", info.Position, info.Spec, b)
		}
	})
}
