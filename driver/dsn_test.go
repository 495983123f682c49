package driver

import (
	"errors"
	"os"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/seqshim/seqshim/internal/testkit/fakedriver"
	"github.com/seqshim/seqshim/memstore"
)

func TestSplitDSN(t *testing.T) {
	tests := []struct {
		name, dsn, inner string
		params           []dsnParam
	}{
		{"no params", "postgres://u@h/db?sslmode=disable", "postgres://u@h/db?sslmode=disable", nil},
		{"url only seqshim", "postgres://u@h/db?seqshim.store=memory:", "postgres://u@h/db", []dsnParam{{"seqshim.store", "memory:"}}},
		{"url mixed", "postgres://u:p@h:5432/db?sslmode=disable&seqshim.store=sqlite%3A%2Ftmp%2Fs.db&application_name=x&seqshim.ddl=both",
			"postgres://u:p@h:5432/db?sslmode=disable&application_name=x",
			[]dsnParam{{"seqshim.store", "sqlite:/tmp/s.db"}, {"seqshim.ddl", "both"}}},
		{"url escaped dynamodb", "postgres://h/db?seqshim.store=dynamodb%3A%2F%2Ft%3Fregion%3Dus-east-1%26endpoint%3Dhttp%3A%2F%2F127.0.0.1%3A8000",
			"postgres://h/db", []dsnParam{{"seqshim.store", "dynamodb://t?region=us-east-1&endpoint=http://127.0.0.1:8000"}}},
		{"url fragment", "postgres://h/db?seqshim.buffer=5#frag", "postgres://h/db#frag", []dsnParam{{"seqshim.buffer", "5"}}},
		{"sqlite file dsn", "file:test.db?cache=shared&seqshim.store=memory:", "file:test.db?cache=shared", []dsnParam{{"seqshim.store", "memory:"}}},
		{"mysql dsn", "user:pw@tcp(127.0.0.1:3306)/db?seqshim.driver=mysql&parseTime=true", "user:pw@tcp(127.0.0.1:3306)/db?parseTime=true", []dsnParam{{"seqshim.driver", "mysql"}}},
		{"keyword", "host=h dbname=db seqshim.store=memory: sslmode=disable", "host=h dbname=db sslmode=disable", []dsnParam{{"seqshim.store", "memory:"}}},
		{"keyword first", "seqshim.store=memory: host=h", "host=h", []dsnParam{{"seqshim.store", "memory:"}}},
		{"keyword quoted", `host=h password='a b\'c' seqshim.store = 'sqlite:/tmp/my seq.db' user=u`, `host=h password='a b\'c' user=u`,
			[]dsnParam{{"seqshim.store", "sqlite:/tmp/my seq.db"}}},
		{"keyword last", "host=h seqshim.ddl=both", "host=h", []dsnParam{{"seqshim.ddl", "both"}}},
		{"empty", "", "", nil},
		// Found by FuzzSplitDSN: "seqshim." that is no parameter leaves the DSN as it is.
		{"seqshim. elsewhere", "postgres://h/db?a=1&&b=seqshim.x#seqshim.y", "postgres://h/db?a=1&&b=seqshim.x#seqshim.y", nil},
		{"empty query", "?#?#seqshim.", "?#?#seqshim.", nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			inner, params, err := splitDSN(tt.dsn)
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
		if _, _, err := splitDSN(dsn); err == nil {
			t.Errorf("splitDSN(%q) succeeded", dsn)
		}
	}
}

// TestOptionsPrecedence: explicit configuration (a DSN parameter, a field
// set in Go) wins over SEQSHIM_* variables, which fill only what is unset.
func TestOptionsPrecedence(t *testing.T) {
	t.Setenv("SEQSHIM_STORE", "memory:env")
	t.Setenv("SEQSHIM_BUFFER", "2.5")
	t.Setenv("SEQSHIM_MAX_WAIT", "250ms")
	t.Setenv("SEQSHIM_DDL", "both")
	t.Setenv("SEQSHIM_MIN_BLOCK", "7")

	t.Run("DSN", func(t *testing.T) {
		c, err := defaultDriver.OpenConnector("seqshim.store=memory:dsn seqshim.driver=sqlite seqshim.max_wait=1s")
		if err != nil {
			t.Fatal(err)
		}
		want := Options{StoreURL: "memory:dsn", Driver: "sqlite", Dialect: DialectSQLite, DDL: DDLBoth,
			Buffer: 2500 * time.Millisecond, MaxWait: time.Second, MinBlock: 7, Mode: ModeServe}
		if got := c.(*Connector).Options(); !reflect.DeepEqual(got, want) {
			t.Errorf("options = %+v\nwant %+v", got, want)
		}
	})
	t.Run("Go", func(t *testing.T) {
		c, err := NewConnector(&fakedriver.Connector{}, func(o *Options) {
			o.StoreURL = "memory:go"
			o.Buffer = 3 * time.Second
			o.DDL = DDLStore
		})
		if err != nil {
			t.Fatal(err)
		}
		want := Options{StoreURL: "memory:go", Driver: "pgx", Dialect: DialectPostgres, DDL: DDLStore,
			Buffer: 3 * time.Second, MaxWait: 250 * time.Millisecond, MinBlock: 7, Mode: ModeServe}
		if got := c.Options(); !reflect.DeepEqual(got, want) {
			t.Errorf("options = %+v\nwant %+v", got, want)
		}
	})
	t.Run("GoStore", func(t *testing.T) {
		st := memstore.New()
		c, err := NewConnector(&fakedriver.Connector{}, func(o *Options) { o.Store = st })
		if err != nil {
			t.Fatal(err)
		}
		if got := c.Options(); got.Store != st || got.StoreURL != "" {
			t.Errorf("Store %v, StoreURL %q: want the Go store and no URL from SEQSHIM_STORE", got.Store, got.StoreURL)
		}
	})
	t.Run("EnvOnly", func(t *testing.T) {
		c, err := defaultDriver.OpenConnector("host=nowhere")
		if err != nil {
			t.Fatal(err)
		}
		want := Options{StoreURL: "memory:env", Driver: "pgx", Dialect: DialectPostgres, DDL: DDLBoth,
			Buffer: 2500 * time.Millisecond, MaxWait: 250 * time.Millisecond, MinBlock: 7, Mode: ModeServe}
		if got := c.(*Connector).Options(); !reflect.DeepEqual(got, want) {
			t.Errorf("options = %+v\nwant %+v", got, want)
		}
	})
	t.Run("Malformed", func(t *testing.T) {
		t.Setenv("SEQSHIM_MIN_BLOCK", "many")
		if _, err := defaultDriver.OpenConnector("seqshim.min_block=10"); err == nil || !strings.Contains(err.Error(), "SEQSHIM_MIN_BLOCK") {
			t.Errorf("a malformed SEQSHIM_MIN_BLOCK: %v, want an error naming it", err)
		}
	})
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
			if err := o.applyDSN([]dsnParam{{tt.key, tt.value}}); err == nil {
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

func TestOpenConnectorUnknownDriver(t *testing.T) {
	_, err := defaultDriver.OpenConnector("seqshim.driver=nosuchdriver seqshim.store=memory:")
	if err == nil {
		t.Fatal("unknown inner driver accepted")
	}
	_, err = defaultDriver.OpenConnector("postgres://h/db?seqshim.driver=seqshim")
	if err == nil {
		t.Fatal("seqshim as its own inner driver accepted")
	}
}

func TestNoStoreAtFirstUse(t *testing.T) {
	t.Setenv("SEQSHIM_STORE", "")
	c, err := defaultDriver.OpenConnector("postgres://127.0.0.1:1/db")
	if err != nil {
		t.Fatalf("OpenConnector without a store: %v (the error belongs to the first use)", err)
	}
	defer c.(*Connector).Close()
	_, err = c.Connect(t.Context())
	if !errors.Is(err, ErrNoStore) {
		t.Fatalf("Connect without a store: %v, want ErrNoStore", err)
	}
}

// TestDocListsParameters keeps the package documentation's table in step
// with the options table.
func TestDocListsParameters(t *testing.T) {
	doc, err := os.ReadFile("doc.go")
	if err != nil {
		t.Fatal(err)
	}
	for _, p := range Parameters() {
		if !strings.Contains(string(doc), p.DSN) || !strings.Contains(string(doc), p.Env) {
			t.Errorf("doc.go does not list %s / %s", p.DSN, p.Env)
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
			_, _, err := splitDSN(tt.dsn)
			if err == nil {
				t.Fatalf("splitDSN(%q) accepted", tt.dsn)
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
			inner, params, err := splitDSN(fixed)
			if !ok || err != nil {
				t.Fatalf("proposed DSN %q: %v", fixed, err)
			}
			var store string
			for _, p := range params {
				if p.key == "seqshim.store" {
					store = p.value
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
		if _, _, err := splitDSN(dsn); err != nil {
			t.Errorf("splitDSN(%q): %v", dsn, err)
		}
	}
}

// TestRevalidateOption: seqshim.revalidate takes seconds, a Go duration or
// off (never), fills from SEQSHIM_REVALIDATE when unset, refuses 0 and
// garbage naming the parameter, and reaches the cache.
func TestRevalidateOption(t *testing.T) {
	for _, tc := range []struct {
		dsn, env string
		want     time.Duration
	}{
		{"seqshim.revalidate=250ms", "", 250 * time.Millisecond},
		{"seqshim.revalidate=0.5", "", 500 * time.Millisecond},
		{"seqshim.revalidate=off", "", -1},
		{"seqshim.revalidate=3s", "off", 3 * time.Second},
		{"host=h", "1s", time.Second},
		{"host=h", "", 0},
	} {
		t.Run(tc.dsn+"/"+tc.env, func(t *testing.T) {
			t.Setenv("SEQSHIM_REVALIDATE", tc.env)
			c, err := defaultDriver.OpenConnector("seqshim.store=memory:revalidate " + tc.dsn)
			if err != nil {
				t.Fatal(err)
			}
			if got := c.(*Connector).Options().Revalidate; got != tc.want {
				t.Errorf("Revalidate = %v, want %v", got, tc.want)
			}
		})
	}
	for _, v := range []string{"0", "soon", "-1s"} {
		_, err := defaultDriver.OpenConnector("seqshim.store=memory: seqshim.revalidate=" + v)
		if err == nil || !strings.Contains(err.Error(), "seqshim.revalidate") || !strings.Contains(err.Error(), "off") {
			t.Errorf("seqshim.revalidate=%s: %v; want an error naming the parameter and off", v, err)
		}
	}

	c, err := NewConnector(&fakedriver.Connector{}, func(o *Options) {
		o.Store = memstore.New()
		o.Revalidate = 300 * time.Millisecond
	})
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	if _, err := c.Connect(t.Context()); err != nil {
		t.Fatal(err)
	}
	if got := c.Cache().Options().Revalidate; got != 300*time.Millisecond {
		t.Errorf("cache Revalidate = %v, want 300ms", got)
	}
}
