package options

import (
	"reflect"
	"strings"
	"testing"
)

func TestSplitDSN(t *testing.T) {
	tests := []struct {
		name, dsn, inner string
		params           []Param
	}{
		{"no params", "postgres://u@h/db?sslmode=disable", "postgres://u@h/db?sslmode=disable", nil},
		{"url only seqshim", "postgres://u@h/db?seqshim.store=memory:", "postgres://u@h/db", []Param{{"seqshim.store", "memory:"}}},
		{"url mixed", "postgres://u:p@h:5432/db?sslmode=disable&seqshim.store=sqlite%3A%2Ftmp%2Fs.db&application_name=x&seqshim.ddl=both",
			"postgres://u:p@h:5432/db?sslmode=disable&application_name=x",
			[]Param{{"seqshim.store", "sqlite:/tmp/s.db"}, {"seqshim.ddl", "both"}}},
		{"url escaped dynamodb", "postgres://h/db?seqshim.store=dynamodb%3A%2F%2Ft%3Fregion%3Dus-east-1%26endpoint%3Dhttp%3A%2F%2F127.0.0.1%3A8000",
			"postgres://h/db", []Param{{"seqshim.store", "dynamodb://t?region=us-east-1&endpoint=http://127.0.0.1:8000"}}},
		{"url fragment", "postgres://h/db?seqshim.buffer=5#frag", "postgres://h/db#frag", []Param{{"seqshim.buffer", "5"}}},
		{"sqlite file dsn", "file:test.db?cache=shared&seqshim.store=memory:", "file:test.db?cache=shared", []Param{{"seqshim.store", "memory:"}}},
		{"mysql dsn", "user:pw@tcp(127.0.0.1:3306)/db?seqshim.driver=mysql&parseTime=true", "user:pw@tcp(127.0.0.1:3306)/db?parseTime=true", []Param{{"seqshim.driver", "mysql"}}},
		{"keyword", "host=h dbname=db seqshim.store=memory: sslmode=disable", "host=h dbname=db sslmode=disable", []Param{{"seqshim.store", "memory:"}}},
		{"keyword first", "seqshim.store=memory: host=h", "host=h", []Param{{"seqshim.store", "memory:"}}},
		{"keyword quoted", `host=h password='a b\'c' seqshim.store = 'sqlite:/tmp/my seq.db' user=u`, `host=h password='a b\'c' user=u`,
			[]Param{{"seqshim.store", "sqlite:/tmp/my seq.db"}}},
		{"keyword last", "host=h seqshim.ddl=both", "host=h", []Param{{"seqshim.ddl", "both"}}},
		{"empty", "", "", nil},
		// Found by FuzzSplitDSN: "seqshim." that is no parameter leaves the DSN as it is.
		{"seqshim. elsewhere", "postgres://h/db?a=1&&b=seqshim.x#seqshim.y", "postgres://h/db?a=1&&b=seqshim.x#seqshim.y", nil},
		{"empty query", "?#?#seqshim.", "?#?#seqshim.", nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			inner, params, err := SplitDSN(tt.dsn)
			if err != nil {
				t.Fatal(err)
			}
			if inner != tt.inner {
				t.Errorf("inner DSN = %q, want %q", inner, tt.inner)
			}
			if !reflect.DeepEqual(params, tt.params) {
				t.Errorf("params = %q, want %q", params, tt.params)
			}
		})
	}
}

func TestSplitDSNErrors(t *testing.T) {
	for _, dsn := range []string{
		"host=h seqshim.store='memory:",
		"host=h seqshim.store",
		"postgres://h/db?seqshim.store=%zz",
		"host=h = seqshim.store=memory:", // found by FuzzSplitDSN: the setting was the empty keyword's value
	} {
		if _, _, err := SplitDSN(dsn); err == nil {
			t.Errorf("SplitDSN(%q) succeeded", dsn)
		}
	}
}

func TestOptionsErrors(t *testing.T) {
	tests := []struct{ key, value string }{
		{"seqshim.ddl", "database"},
		{"seqshim.dialect", "oracle"},
		{"seqshim.buffer", "soon"},
		{"seqshim.max_block", "-1"},
		{"seqshim.nope", "1"},
	}
	for _, tt := range tests {
		t.Run(tt.key, func(t *testing.T) {
			var o Options
			if err := ApplyDSN(&o, []Param{{tt.key, tt.value}}); err == nil {
				t.Errorf("%s=%s accepted", tt.key, tt.value)
			}
		})
	}
}

func TestParametersTable(t *testing.T) {
	seen := map[string]bool{}
	for _, p := range Parameters() {
		if p.DSN[:len(paramPrefix)] != paramPrefix || p.Env[:8] != "SEQSHIM_" || p.Doc == "" {
			t.Errorf("malformed parameter %+v", p)
		}
		if seen[p.DSN] || seen[p.Env] {
			t.Errorf("duplicate parameter %+v", p)
		}
		seen[p.DSN], seen[p.Env] = true, true
		if lookupParam(p.DSN) == nil {
			t.Errorf("%s has no setter", p.DSN)
		}
	}
}

// TestMisplacedStoreParams: a store URL written unencoded in a URL DSN loses
// its parameters after the first '&' to the database; the error shows the DSN
// to write instead, which then works.
func TestMisplacedStoreParams(t *testing.T) {
	tests := []struct {
		name, dsn, names, store string
	}{
		{"dynamodb endpoint", "postgres://app:secret@db:5432/app?sslmode=disable&seqshim.store=dynamodb://seqs?region=eu-west-1&endpoint=http://127.0.0.1:8000",
			"endpoint", "dynamodb://seqs?region=eu-west-1&endpoint=http://127.0.0.1:8000"},
		{"dynamodb region", "postgres://db/app?seqshim.store=dynamodb://seqs&region=eu-west-1&prefix=svc/&seqshim.max_wait=1s",
			"region, prefix", "dynamodb://seqs?region=eu-west-1&prefix=svc/"},
		{"postgres table", "postgres://db/app?seqshim.store=postgres://db/seqs?sslmode=disable&table=counters",
			"table", "postgres://db/seqs?sslmode=disable&table=counters"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, _, err := SplitDSN(tt.dsn)
			if err == nil {
				t.Fatalf("SplitDSN(%q) accepted", tt.dsn)
			}
			msg := err.Error()
			if strings.Contains(msg, "secret") {
				t.Errorf("the message shows the password: %s", msg)
			}
			if !strings.Contains(msg, "parameter "+tt.names+" belongs to the store URL") {
				t.Errorf("message %q does not name %s", msg, tt.names)
			}
			// The DSN the message proposes (with the password back) keeps
			// every parameter where it belongs.
			_, fixed, ok := strings.Cut(msg, "as in ")
			fixed, _, _ = strings.Cut(fixed, " (or set")
			fixed = strings.Replace(fixed, "app:xxxxx@", "app:secret@", 1)
			inner, params, err := SplitDSN(fixed)
			if !ok || err != nil {
				t.Fatalf("proposed DSN %q: %v", fixed, err)
			}
			var store string
			for _, p := range params {
				if p.Key == "seqshim.store" {
					store = p.Value
				}
			}
			if store != tt.store {
				t.Errorf("proposed DSN %q gives store %q, want %q", fixed, store, tt.store)
			}
			for _, name := range storeOnlyParams {
				if strings.Contains(inner, name+"=") {
					t.Errorf("proposed DSN %q still gives the database %s", fixed, name)
				}
			}
			if !strings.Contains(msg, "SEQSHIM_STORE="+tt.store) {
				t.Errorf("message %q does not offer SEQSHIM_STORE=%s", msg, tt.store)
			}
		})
	}
	// Encoded, and without a store in the DSN, nothing is misplaced.
	for _, dsn := range []string{
		"postgres://db/app?seqshim.store=dynamodb%3A%2F%2Fseqs%3Fregion%3Deu-west-1%26endpoint%3Dhttp%3A%2F%2Fx",
		"postgres://db/app?seqshim.max_wait=1s&table=x",
	} {
		if _, _, err := SplitDSN(dsn); err != nil {
			t.Errorf("SplitDSN(%q): %v", dsn, err)
		}
	}
}
