package rewrite

import (
	"strconv"
	"strings"
	"testing"

	"github.com/seqshim/seqshim/sequence"
)

// implicitNames are the names PostgreSQL 15 gave the sequence of a serial
// column (pg_get_serial_sequence), with the relations that existed before
// in the schema; TestImplicitNamesMatchPostgres checks them against the
// server again.
var implicitNames = func() []struct {
	table, column string
	existing      []string
	want          string // the name, as stored
} {
	r := strings.Repeat
	x40, y40 := r("x", 40), r("y", 40)
	seqs := func(prefix string, from, to int) []string {
		var out []string
		for i := from; i <= to; i++ {
			out = append(out, prefix+strconv.Itoa(i))
		}
		return out
	}
	return []struct {
		table, column string
		existing      []string
		want          string
	}{
		{"t", "c", nil, "t_c_seq"},
		{"t", "c", []string{"t_c_seq"}, "t_c_seq1"},
		{"t", "c", []string{"t_c_seq", "t_c_seq1"}, "t_c_seq2"}, // t_c_seq1 an index: any relation counts
		{"t", "c", append([]string{"t_c_seq"}, seqs("t_c_seq", 1, 10)...), "t_c_seq11"},
		{"T", "C", nil, "T_C_seq"},
		// 63 bytes at most: the longer name is shortened first, the column
		// when both are as long.
		{r("a", 63), "b", nil, r("a", 57) + "_b_seq"},
		{x40, y40, nil, r("x", 29) + "_" + r("y", 29) + "_seq"},
		{r("x", 29), r("y", 32), nil, r("x", 29) + "_" + r("y", 29) + "_seq"},
		{r("x", 29), r("y", 29), nil, r("x", 29) + "_" + r("y", 29) + "_seq"},
		{"tt", r("c", 63), nil, "tt_" + r("c", 56) + "_seq"},
		// A longer label shortens the names again.
		{x40, y40, []string{r("x", 29) + "_" + r("y", 29) + "_seq"}, r("x", 29) + "_" + r("y", 28) + "_seq1"},
		{x40, y40, []string{r("x", 29) + "_" + r("y", 29) + "_seq", r("x", 29) + "_" + r("y", 28) + "_seq1"}, r("x", 29) + "_" + r("y", 28) + "_seq2"},
		{x40, y40, append(append([]string{r("x", 29) + "_" + r("y", 29) + "_seq"}, seqs(r("x", 29)+"_"+r("y", 28)+"_seq", 1, 9)...), r("x", 28)+"_"+r("y", 28)+"_seq10"),
			r("x", 28) + "_" + r("y", 28) + "_seq11"},
		// Multibyte characters are never split: the names come out shorter.
		{r("€", 21), r("€", 21), nil, r("€", 9) + "_" + r("€", 9) + "_seq"},
		{"a" + r("€", 20), r("€", 21), nil, "a" + r("€", 9) + "_" + r("€", 9) + "_seq"},
		{r("é", 31), "c", nil, r("é", 28) + "_c_seq"},
		{r("é", 31) + "x", r("é", 31) + "x", nil, r("é", 14) + "_" + r("é", 14) + "_seq"},
		{r("€", 21), r("€", 21), []string{r("€", 9) + "_" + r("€", 9) + "_seq"}, r("€", 9) + "_" + r("€", 9) + "_seq1"},
		{"tbl", r("Ω", 31), nil, "tbl_" + r("Ω", 27) + "_seq"},
	}
}()

func TestImplicitSequenceName(t *testing.T) {
	for _, tc := range implicitNames {
		for _, schema := range []string{"public", "App"} {
			existing := map[string]bool{}
			for _, e := range tc.existing {
				existing[sequence.FormatName(schema, e)] = true
			}
			var asked []string
			got := ImplicitSequenceName(schema, tc.table, tc.column, func(name string) bool {
				asked = append(asked, name)
				return existing[name]
			})
			if want := sequence.FormatName(schema, tc.want); got != want {
				t.Errorf("%s.%s.%s: %q, want %q", schema, tc.table, tc.column, got, want)
			}
			if len(asked) != len(tc.existing)+1 || len(sequence.RelName(got)) > 63 {
				t.Errorf("%s.%s.%s: asked %q", schema, tc.table, tc.column, asked)
			}
		}
	}
	if got := ImplicitSequenceName("public", "t", "c", nil); got != "t_c_seq" {
		t.Errorf("nil exists: %q", got)
	}
}
