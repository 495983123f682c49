package storeurl_test

import (
	"context"
	"errors"
	"io"
	"net/url"
	"strings"
	"testing"

	"github.com/seqshim/seqshim/dynamostore"
	"github.com/seqshim/seqshim/internal/storeurl"
	"github.com/seqshim/seqshim/memstore"
	"github.com/seqshim/seqshim/sequence"
	"github.com/seqshim/seqshim/sqlstore"
)

var storeURLSeeds = []string{
	"memory:", "MEMORY:x", "memory://x?a=b", "sqlite:/tmp/x.db", "SQLite:///var/lib/seq.db?table=t",
	"postgres://app:s3cret@db:5432/app?sslmode=disable&table=seqs", "postgresql://db/app?table=bad-name", "postgres://app:pa/ss@db/app",
	"postgres://db/app?table=a&table=b", "postgres://[::1", "dynamodb://seqs?region=eu-west-1&endpoint=http%3A%2F%2F127.0.0.1%3A4567&prefix=a%2F",
	"dynamodb://seqs?region=r&endpoint=ftp://x", "dynamodb://ab?region=r", "dynamodb://seqs?region=r&region=s", "dynamodb://u:p@seqs?region=r",
	"dynamodb://seqs/x?region=r", "dynamodb://seqs?region=r#f", "dynamodb://seqs?colour=red", "dynamodb:seqs", "", " ", "orders",
	"mysql://app:s3cret@db/app", ":", "memory", "postgres:", "postgres:///app?table=x.y",
}

// pgxReads are pgx connection parameters that make its DSN parser read a
// file: the fuzz target leaves them out (a fuzzed path could be a device
// that never ends).
var pgxReads = []string{"sslrootcert", "sslcert", "sslkey", "sslpassword", "passfile", "service", "servicefile"}

// FuzzOpen checks, for any store URL, Open of every store linked here
// (memory:, postgres://, postgresql://, dynamodb://; sqlite: is not) with a
// context already cancelled, which connects nowhere: no panic; an empty
// URL, one without a scheme or with an unknown one is ErrURL, sqlite: is
// ErrNotLinked; an error never shows the password of the URL's user info;
// a store it opens is the one of its scheme, on the table the URL names.
// The seed corpus is in testdata/fuzz/FuzzOpen.
func FuzzOpen(f *testing.F) {
	for _, s := range storeURLSeeds {
		f.Add(s)
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	f.Fuzz(func(t *testing.T, raw string) {
		scheme, rest, hasScheme := strings.Cut(raw, ":")
		scheme = strings.ToLower(scheme)
		u, parseErr := url.Parse(raw)
		switch scheme {
		case "memory":
			name := strings.TrimPrefix(rest, "//")
			if i := strings.IndexByte(name, '?'); i >= 0 {
				name = name[:i]
			}
			if len(name) > 1 {
				return // each name is a store kept for the life of the process
			}
		case "postgres", "postgresql":
			if parseErr == nil {
				for k := range u.Query() {
					for _, r := range pgxReads {
						if strings.EqualFold(k, r) {
							return
						}
					}
				}
			}
		}
		st, err := storeurl.Open(ctx, raw)
		if err != nil {
			if st != nil {
				t.Fatalf("Open(%q) = %T and %v", raw, st, err)
			}
			if parseErr == nil && u.User != nil {
				// (Unless the URL redacted shows it all the same: its
				// escaping can spell it, \xe0000 becoming %E0000.)
				if pw, ok := u.User.Password(); ok && len(pw) >= 4 && strings.Count(raw, pw) == 1 &&
					!strings.Contains(u.Redacted(), pw) && strings.Contains(err.Error(), pw) {
					t.Fatalf("Open(%q): the error shows the password: %v", raw, err)
				}
			}
			switch {
			case strings.TrimSpace(raw) == "" || !hasScheme:
				if !errors.Is(err, storeurl.ErrURL) {
					t.Fatalf("Open(%q): %v, want ErrURL", raw, err)
				}
			case scheme == "sqlite":
				if !errors.Is(err, storeurl.ErrNotLinked) || !errors.Is(err, sequence.ErrMisconfigured) {
					t.Fatalf("Open(%q): %v, want ErrNotLinked", raw, err)
				}
			case scheme != "memory" && scheme != "postgres" && scheme != "postgresql" && scheme != "dynamodb":
				if !errors.Is(err, storeurl.ErrURL) {
					t.Fatalf("Open(%q): %v, want ErrURL", raw, err)
				}
			}
			return
		}
		if c, ok := st.(io.Closer); ok {
			defer c.Close()
		}
		switch s := st.(type) {
		case *memstore.Store:
			if scheme != "memory" {
				t.Fatalf("Open(%q) = a memory store", raw)
			}
		case *sqlstore.Store:
			want := sqlstore.DefaultTable
			if parseErr == nil && u.Query().Get("table") != "" {
				want = u.Query().Get("table")
			}
			if scheme != "postgres" && scheme != "postgresql" || s.Table() != want {
				t.Fatalf("Open(%q) = a SQL store on table %q, want %q", raw, s.Table(), want)
			}
		case *dynamostore.Store:
			p, err := dynamostore.ParseURL(raw)
			if scheme != "dynamodb" || err != nil || s.Table() != p.Table || s.Prefix() != p.Prefix {
				t.Fatalf("Open(%q) = a DynamoDB store on %q (prefix %q); ParseURL: %+v, %v", raw, s.Table(), s.Prefix(), p, err)
			}
		default:
			t.Fatalf("Open(%q) = %T", raw, st)
		}
	})
}

// FuzzRedact checks, for any URL or DSN: Redact does not panic, hides the
// password of the user info (when it is nowhere else in the text), changes
// a text whose password it hides and no other, and is idempotent. The
// seed corpus is in testdata/fuzz/FuzzRedact.
func FuzzRedact(f *testing.F) {
	for _, s := range append(storeURLSeeds, "host=db password = 's3 cret' dbname=app", "postgres://db/app?PASSWORD=s3cret",
		"dynamodb://seqs?endpoint=http://key:s3cret@127.0.0.1:4567", "postgres://app:p%zz@db/app") {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		r := storeurl.Redact(s)
		if again := storeurl.Redact(r); again != r {
			t.Fatalf("Redact(%q) = %q, and again %q", s, r, again)
		}
		u, err := url.Parse(s)
		if err != nil || u.User == nil {
			return
		}
		if pw, ok := u.User.Password(); ok && len(pw) >= 4 && strings.Count(s, pw) == 1 && strings.Contains(r, pw) && !strings.Contains(r, "xxxxx") {
			t.Fatalf("Redact(%q) = %q shows the password %q", s, r, pw)
		}
	})
}
