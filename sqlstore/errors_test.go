package sqlstore_test

import (
	"errors"
	"net"
	"net/url"
	"strings"
	"testing"

	"github.com/seqshim/seqshim/internal/testkit/testenv"
	"github.com/seqshim/seqshim/sequence"
)

// TestPostgresMisconfigured: a database that does not exist is a
// configuration error from Check and from Reserve alike, naming the URL
// (without its password) and what to do. (A refused login is not tested:
// the test server trusts every local connection.)
func TestPostgresMisconfigured(t *testing.T) {
	u, err := url.Parse(testenv.PG(t))
	if err != nil {
		t.Fatal(err)
	}
	u.Path = "/no_such_db_" + randomSuffix(t)
	u.User = url.UserPassword(u.User.Username(), "s3cret")
	st := openT(t, u.String())
	redacted := strings.Replace(u.String(), "s3cret", "xxxxx", 1)
	for op, call := range map[string]func() error{
		"check":     func() error { return st.Check(t.Context()) },
		"reserve s": func() error { _, err := st.Reserve(t.Context(), "s", 1); return err },
	} {
		err := call()
		if !errors.Is(err, sequence.ErrMisconfigured) || sequence.IsTransient(err) {
			t.Fatalf("%s: %v; want a configuration error", op, err)
		}
		want := "sqlstore: " + op + ": PostgreSQL database " + redacted + " does not exist (create the database, or correct its name in the store URL)"
		if !strings.HasPrefix(err.Error(), want) {
			t.Errorf("%s: %q\nwant it to start with %q", op, err, want)
		}
		if strings.Contains(err.Error(), "s3cret") {
			t.Errorf("%s: %q shows the password", op, err)
		}
	}
}

// TestPostgresUnreachable: a server nobody answers for is not a
// configuration error; the error names the operation and the database.
func TestPostgresUnreachable(t *testing.T) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := l.Addr().String()
	l.Close() // a closed port: connection refused
	dbURL := "postgres://app@" + addr + "/app?sslmode=disable"
	st := openT(t, dbURL)
	_, err = st.Reserve(t.Context(), "s", 1)
	if err == nil || errors.Is(err, sequence.ErrMisconfigured) || !sequence.IsTransient(err) {
		t.Fatalf("Reserve: %v; want a transient error", err)
	}
	if want := "sqlstore: reserve s: PostgreSQL database " + dbURL + ": "; !strings.HasPrefix(err.Error(), want) {
		t.Errorf("%q\nwant it to start with %q", err, want)
	}
	if err := st.Check(t.Context()); err == nil || errors.Is(err, sequence.ErrMisconfigured) {
		t.Errorf("Check: %v; want an error that is not a configuration error", err)
	}
}
