package driver_test

import (
	"context"
	"database/sql"
	"errors"
	"net"
	"reflect"
	"strings"
	"testing"
	"time"

	seqdriver "github.com/seqshim/seqshim/driver"
	"github.com/seqshim/seqshim/internal/testkit/faultstore"
	"github.com/seqshim/seqshim/internal/testkit/testenv"
	"github.com/seqshim/seqshim/memstore"
	"github.com/seqshim/seqshim/sequence"
)

// warmDB opens a database handle whose first connection warms names, on a
// connector whose connections need no database (nextval alone is answered
// by seqshim).
func warmDB(t *testing.T, optFns ...func(*seqdriver.Options)) (*sql.DB, *seqdriver.Connector) {
	t.Helper()
	c, err := seqdriver.NewConnector(nopConnector{}, append([]func(*seqdriver.Options){func(o *seqdriver.Options) {
		o.Dialect = seqdriver.DialectSQLite
	}}, optFns...)...)
	if err != nil {
		t.Fatal(err)
	}
	db := sql.OpenDB(c)
	t.Cleanup(func() { db.Close() })
	return db, c
}

// TestWarm checks seqshim.warm at the first connection: a missing sequence
// and an unreachable store fail it with an error naming the store and the
// sequence; once fixed, the next connection succeeds with the first block
// drawn and no value served.
func TestWarm(t *testing.T) {
	errDown := errors.New("store unreachable (injected)")
	tests := []struct {
		name     string
		store    func(t *testing.T) (url string, st sequence.Store, fix func())
		wantErr  error    // nil: the first connection succeeds
		wantText []string // in the error
	}{
		{
			name: "warmed",
			store: func(t *testing.T) (string, sequence.Store, func()) {
				url := "memory:" + uniq(t, "warm")
				create(t, url, "orders_seq", "app.invoice_no")
				return url, nil, nil
			},
		},
		{
			name: "missing sequence",
			store: func(t *testing.T) (string, sequence.Store, func()) {
				url := "memory:" + uniq(t, "warm")
				create(t, url, "orders_seq")
				return url, nil, func() { create(t, url, "app.invoice_no") }
			},
			wantErr:  sequence.ErrNotFound,
			wantText: []string{"warming sequence app.invoice_no (seqshim.warm) from store memory:warm_", `relation "app.invoice_no" does not exist`},
		},
		{
			name: "store down",
			store: func(t *testing.T) (string, sequence.Store, func()) {
				st := memstore.New()
				for _, n := range []string{"orders_seq", "app.invoice_no"} {
					spec := sequence.DefaultSpec()
					if err := st.Create(t.Context(), n, spec, spec.Initial()); err != nil {
						t.Fatal(err)
					}
				}
				f := faultstore.New(st)
				f.SetDown(errDown)
				return "", f, func() { f.SetDown(nil) }
			},
			wantErr: errDown,
			wantText: []string{"warming sequence orders_seq (seqshim.warm) from the store given in Options.Store: store unreachable",
				"warming sequence app.invoice_no"},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			url, st, fix := tt.store(t)
			db, c := warmDB(t, func(o *seqdriver.Options) {
				o.StoreURL, o.Store = url, st
				o.Warm = []string{"orders_seq", "APP.Invoice_No"}
			})
			ctx, cancel := context.WithTimeout(t.Context(), time.Minute) // a bound, not a measurement
			defer cancel()
			err := db.PingContext(ctx)
			if tt.wantErr == nil {
				if err != nil {
					t.Fatalf("first connection: %v", err)
				}
			} else {
				if !errors.Is(err, tt.wantErr) {
					t.Fatalf("first connection: %v, want %v", err, tt.wantErr)
				}
				for _, want := range tt.wantText {
					if !strings.Contains(err.Error(), want) {
						t.Errorf("error %q does not say %q", err, want)
					}
				}
				if c.Cache() != nil {
					t.Errorf("a failed warm-up left the connector with a cache")
				}
				// Fixed: the next connection warms again and succeeds.
				fix()
				if err := db.PingContext(ctx); err != nil {
					t.Fatalf("after the fix: %v", err)
				}
			}
			for _, name := range []string{"orders_seq", "app.invoice_no"} {
				s := c.Cache().Stats(name)
				if s.Reservations != 1 || s.Served != 0 || s.Depth == 0 {
					t.Errorf("%s after warm-up: %+v; want one block reserved, none served", name, s)
				}
			}
			var v int64
			if err := db.QueryRowContext(ctx, "SELECT nextval('orders_seq')").Scan(&v); err != nil || v != 1 {
				t.Errorf("nextval after warm-up = %d, %v; want 1", v, err)
			}
		})
	}
}

// create creates sequences in the memory store of url.
func create(t *testing.T, url string, names ...string) {
	t.Helper()
	st, err := memstore.Open(url)
	if err != nil {
		t.Fatal(err)
	}
	for _, n := range names {
		spec := sequence.DefaultSpec()
		if err := st.Create(t.Context(), sequence.MustParseName(n), spec, spec.Initial()); err != nil {
			t.Fatal(err)
		}
	}
}

// TestWarmUnreachableDynamoDB warms from a DynamoDB endpoint nobody listens
// on: the first connection fails within the wait bound, naming the store
// and the sequence, instead of the first nextval failing later.
func TestWarmUnreachableDynamoDB(t *testing.T) {
	testenv.DynamoDBEnv(t) // credentials and region that reach nothing real
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	endpoint := "http://" + l.Addr().String()
	l.Close() // nobody listens there now
	url := "dynamodb://seqs?region=us-east-1&endpoint=" + endpoint
	db, _ := warmDB(t, func(o *seqdriver.Options) {
		o.StoreURL = url
		o.Warm = []string{"orders_seq"}
		o.MaxWait, o.RefillTimeout = 2*time.Second, time.Second
	})
	ctx, cancel := context.WithTimeout(t.Context(), time.Minute) // a bound, not a measurement
	defer cancel()
	err = db.PingContext(ctx)
	if err == nil {
		t.Fatal("the first connection succeeded with the store unreachable")
	}
	if ctx.Err() != nil {
		t.Fatalf("the warm-up was not bounded: %v", err)
	}
	t.Logf("first connection: %v", err)
	for _, want := range []string{"warming sequence orders_seq (seqshim.warm) from store dynamodb://seqs", endpoint} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("error %q does not say %q", err, want)
		}
	}
}

// TestWarmDSN checks seqshim.warm's parsing: names separated by commas, a
// quoted name keeping its comma, a bad name failing sql.Open's connector.
func TestWarmDSN(t *testing.T) {
	tests := []struct {
		dsn     string
		want    []string
		wantErr string
	}{
		{"file:x.db?seqshim.driver=sqlite&seqshim.warm=orders_seq", []string{"orders_seq"}, ""},
		{"file:x.db?seqshim.driver=sqlite&seqshim.warm=orders_seq,%20app.Invoice_No%20,", []string{"orders_seq", "app.Invoice_No"}, ""},
		{`file:x.db?seqshim.driver=sqlite&seqshim.warm=a,"b,c",d`, []string{"a", `"b,c"`, "d"}, ""},
		{`file:x.db?seqshim.driver=sqlite&seqshim.warm=a,"unterminated`, nil, "seqshim.warm"},
		{"file:x.db?seqshim.driver=sqlite", nil, ""},
	}
	for _, tt := range tests {
		t.Run(tt.dsn, func(t *testing.T) {
			c, err := (&seqdriver.Driver{}).OpenConnector(tt.dsn)
			if tt.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
					t.Fatalf("OpenConnector: %v, want an error about %s", err, tt.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if got := c.(*seqdriver.Connector).Options().Warm; !reflect.DeepEqual(got, tt.want) {
				t.Errorf("Warm = %q, want %q", got, tt.want)
			}
		})
	}
}
