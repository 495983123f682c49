package storeurl_test

import (
	"context"
	"errors"
	"io"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/seqshim/seqshim/dynamostore"
	"github.com/seqshim/seqshim/internal/storeurl"
	"github.com/seqshim/seqshim/memstore"
	"github.com/seqshim/seqshim/sequence"
	"github.com/seqshim/seqshim/sqlstore"
)

// Open is storeurl.Open; this test links the stores the driver links:
// memstore, sqlstore and dynamostore, not the SQLite store.
var Open = storeurl.Open

func TestOpen(t *testing.T) {
	tests := []struct {
		url    string
		want   string // type of the store
		closer bool
	}{
		{url: "memory:", want: "*memstore.Store"},
		{url: "MEMORY:storeurl_test", want: "*memstore.Store"},
		{url: "postgres://u@127.0.0.1:1/db", want: "*sqlstore.Store", closer: true},
		{url: "postgresql://u@127.0.0.1:1/db", want: "*sqlstore.Store", closer: true},
		{url: "dynamodb://seqs?region=us-east-1&endpoint=http://127.0.0.1:1", want: "*dynamostore.Store"},
	}
	for _, tc := range tests {
		t.Run(tc.url, func(t *testing.T) {
			st, err := Open(t.Context(), tc.url)
			if err != nil {
				t.Fatal(err)
			}
			var got string
			switch st.(type) {
			case *memstore.Store:
				got = "*memstore.Store"
			case *sqlstore.Store:
				got = "*sqlstore.Store"
			case *dynamostore.Store:
				got = "*dynamostore.Store"
			}
			if got != tc.want {
				t.Fatalf("Open(%q) = %T, want %s", tc.url, st, tc.want)
			}
			c, ok := st.(io.Closer)
			if ok != tc.closer {
				t.Errorf("%T implements io.Closer: %v, want %v", st, ok, tc.closer)
			}
			if ok {
				if err := c.Close(); err != nil {
					t.Error(err)
				}
			}
		})
	}
}

// TestOpenWorks: the stores Open returns for local URLs serve sequences, and
// memory: is one store per process.
func TestOpenWorks(t *testing.T) {
	ctx := t.Context()
	for _, url := range []string{"memory:storeurl_works"} {
		t.Run(url, func(t *testing.T) {
			st, err := Open(ctx, url)
			if err != nil {
				t.Fatal(err)
			}
			if c, ok := st.(io.Closer); ok {
				defer c.Close()
			}
			if err := st.Create(ctx, "s", sequence.DefaultSpec(), sequence.DefaultSpec().Initial()); err != nil {
				t.Fatal(err)
			}
			b, err := st.Reserve(ctx, "s", 5)
			if err != nil || b.First != 1 || b.Count != 5 {
				t.Fatalf("Reserve = %+v, %v", b, err)
			}
		})
	}
	again, err := Open(ctx, "memory:storeurl_works")
	if err != nil {
		t.Fatal(err)
	}
	if b, err := again.Reserve(ctx, "s", 1); err != nil || b.First != 6 {
		t.Errorf("second Open of memory:storeurl_works: Reserve = %+v, %v; want the shared sequence at 6", b, err)
	}
}

func TestOpenErrors(t *testing.T) {
	for _, url := range []string{"", "  ", "orders", "mysql://x", "redis://127.0.0.1", "mysql://app:s3cret@db/app"} {
		t.Run(url, func(t *testing.T) {
			_, err := Open(t.Context(), url)
			if !errors.Is(err, storeurl.ErrURL) {
				t.Fatalf("Open(%q) = %v, want ErrURL", url, err)
			}
			for _, form := range []string{"memory:", "sqlite:PATH", "postgres://", "dynamodb://"} {
				if !strings.Contains(err.Error(), form) {
					t.Errorf("error %q does not name %s", err, form)
				}
			}
			if strings.Contains(err.Error(), "s3cret") {
				t.Errorf("error %q shows the password", err)
			}
		})
	}
}

// TestSQLiteNotLinked: without the SQLite store's import, a sqlite: URL is a
// configuration error that names the import.
func TestSQLiteNotLinked(t *testing.T) {
	for _, url := range []string{"sqlite:" + filepath.Join(t.TempDir(), "seq.db"), "SQLite:///var/lib/seq.db"} {
		_, err := Open(t.Context(), url)
		if !errors.Is(err, storeurl.ErrNotLinked) || !errors.Is(err, sequence.ErrMisconfigured) {
			t.Fatalf("Open(%q) = %v, want ErrNotLinked and ErrMisconfigured", url, err)
		}
		want := `store not linked into this program: ` + url + `: add import _ "github.com/seqshim/seqshim/sqlstore/sqlite" to the program`
		if err.Error() != want {
			t.Errorf("Open(%q):\n%s\nwant\n%s", url, err, want)
		}
		// sqlstore.Open says the same.
		_, err = sqlstore.Open(t.Context(), url)
		if !errors.Is(err, storeurl.ErrNotLinked) || !strings.Contains(err.Error(), `add import _ "github.com/seqshim/seqshim/sqlstore/sqlite"`) {
			t.Errorf("sqlstore.Open(%q) = %v, want ErrNotLinked naming the import", url, err)
		}
	}
	if f := storeurl.Forms()[1]; f.Syntax != "sqlite:PATH" || f.Import != storeurl.SQLiteImport {
		t.Errorf("Forms()[1] = %+v, want sqlite:PATH with Import %s", f, storeurl.SQLiteImport)
	}
}

// TestRegister: the stores linked here registered their schemes; Register
// refuses a second registration of a scheme.
func TestRegister(t *testing.T) {
	want := []string{"dynamodb", "memory", "postgres", "postgresql"}
	if got := storeurl.Schemes(); !slices.Equal(got, want) {
		t.Errorf("Schemes() = %q, want %q", got, want)
	}
	defer func() {
		if r := recover(); r == nil || !strings.Contains(r.(string), "called twice for scheme memory") {
			t.Errorf("second Register of memory: recovered %v", r)
		}
	}()
	storeurl.Register("MEMORY", func(context.Context, string) (sequence.Store, error) { return nil, nil })
}
