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
