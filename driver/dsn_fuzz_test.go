package driver

import (
	"context"
	"database/sql"
	"database/sql/driver"
	"errors"
	"net/url"
	"reflect"
	"strings"
	"sync"
	"testing"

	"github.com/seqshim/seqshim/sequence"
)

// FuzzSplitDSN checks, for any DSN: splitDSN does not panic; a DSN without
// "seqshim." is returned as it is; every parameter it takes out is a
// seqshim.* one; the inner DSN keeps the rest byte for byte (it is the DSN
// with some parts cut out, and has no seqshim.* parameter left; a DSN
// without any is returned as it is); and the
// parameters, written back into the inner DSN, split out again as they
// were. The seed corpus is in testdata/fuzz/FuzzSplitDSN.
func FuzzSplitDSN(f *testing.F) {
	for _, s := range dsnSeeds {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, dsn string) {
		inner, params, err := splitDSN(dsn)
		if !strings.Contains(dsn, paramPrefix) {
			if inner != dsn || params != nil || err != nil {
				t.Fatalf("splitDSN(%q) = %q, %q, %v; want it as it is", dsn, inner, params, err)
			}
			return
		}
		if err != nil {
			if !strings.HasPrefix(err.Error(), "seqshim: ") {
				t.Fatalf("splitDSN(%q): %v", dsn, err)
			}
			return
		}
		for _, p := range params {
			if !strings.HasPrefix(p.key, paramPrefix) {
				t.Fatalf("splitDSN(%q) took out %q", dsn, p.key)
			}
		}
		if !isCutFrom(inner, dsn) {
			t.Fatalf("splitDSN(%q): the inner DSN %q is not the DSN with parts cut out", dsn, inner)
		}
		// Split again, nothing is left to take out (but from a fragment:
		// #?seqshim.x=1 loses what came before its '?', which a second
		// split then reads as a query).
		if again, more, err := splitDSN(inner); !strings.Contains(dsn, "#") && (err != nil || again != inner || len(more) > 0) {
			t.Fatalf("splitDSN(%q) = %q, which splits again into %q, %q, %v", dsn, inner, again, more, err)
		}
		if len(params) == 0 {
			return
		}
		// Write the parameters back, in the DSN's form, and split again.
		var back string
		switch {
		case isKeywordValue(dsn):
			var b strings.Builder
			for _, p := range params {
				b.WriteString(p.key + "='" + strings.NewReplacer(`\`, `\\`, `'`, `\'`).Replace(p.value) + "' ")
			}
			// Before the inner DSN, if the text still reads as keyword/value
			// (a key like seqshim.!x does not), else after it, if a setting
			// written there reads as one (after k= it would be k's value,
			// as in libpq).
			back = b.String() + inner
			if !isKeywordValue(back) {
				if _, ps, err := splitDSN(inner + " seqshim.z=1"); err != nil || len(ps) != 1 || ps[0] != (dsnParam{"seqshim.z", "1"}) {
					return
				}
				back = inner + " " + b.String()
			}
		case strings.ContainsAny(inner, "#") || !strings.Contains(dsn, "?"):
			return
		default:
			sep := "?"
			if strings.Contains(inner, "?") {
				sep = "&"
			}
			var b strings.Builder
			b.WriteString(inner)
			for _, p := range params {
				b.WriteString(sep + url.QueryEscape(p.key) + "=" + url.QueryEscape(p.value))
				sep = "&"
			}
			back = b.String()
		}
		got, again, err := splitDSN(back)
		if err != nil || strings.TrimRight(got, " \t\n\r\f\v") != strings.TrimRight(inner, " \t\n\r\f\v") || !reflect.DeepEqual(again, params) {
			t.Fatalf("splitDSN(%q) = %q, %q; written back %q, it splits into %q, %q, %v", dsn, inner, params, back, got, again, err)
		}
	})
}

var dsnSeeds = []string{
	"postgres://u@h/db?sslmode=disable", "postgres://u@h/db?seqshim.store=memory:",
	"postgres://u:p@h:5432/db?sslmode=disable&seqshim.store=sqlite%3A%2Ftmp%2Fs.db&application_name=x&seqshim.ddl=both",
	"postgres://h/db?seqshim.store=dynamodb%3A%2F%2Ft%3Fregion%3Dus-east-1%26endpoint%3Dhttp%3A%2F%2F127.0.0.1%3A8000",
	"postgres://h/db?seqshim.store=dynamodb://t?region=r&endpoint=e", "postgres://h/db?seqshim.buffer=5#frag",
	"file:test.db?cache=shared&seqshim.store=memory:", "user:pw@tcp(127.0.0.1:3306)/db?seqshim.driver=mysql&parseTime=true",
	"host=h dbname=db seqshim.store=memory: sslmode=disable", "seqshim.store=memory: host=h",
	`host=h password='a b\'c' seqshim.store = 'sqlite:/tmp/my seq.db' user=u`, "host=h seqshim.ddl=both",
	"host=h seqshim.store='memory:", "host=h seqshim.store", "postgres://h/db?seqshim.store=%zz", "",
	"seqshim.buffer=1e300", "seqshim.max_wait=Inf", "seqshim.refill_timeout=NaN", "seqshim.revalidate=9223372036.854775807",
	"seqshim.warm='a, \"B,c\", d.e'",
}

// fuzzInner is the inner driver FuzzOpenConnector names: it records the
// DSN it is given and connects nowhere.
const fuzzInner = "seqshim-fuzz-inner"

var fuzzRecorder = &dsnRecorder{}

func init() { sql.Register(fuzzInner, fuzzRecorder) }

// dsnRecorder is a driver that records the last DSN of OpenConnector.
type dsnRecorder struct {
	mu   sync.Mutex // protects last
	last string
}

func (r *dsnRecorder) Open(string) (driver.Conn, error) { return nil, errors.New("no connections") }

func (r *dsnRecorder) OpenConnector(dsn string) (driver.Connector, error) {
	r.mu.Lock()
	r.last = dsn
	r.mu.Unlock()
	return dsnRecorderConnector{r}, nil
}

func (r *dsnRecorder) lastDSN() string {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.last
}

type dsnRecorderConnector struct{ r *dsnRecorder }

func (c dsnRecorderConnector) Connect(context.Context) (driver.Conn, error) {
	return nil, errors.New("no connections")
}
func (c dsnRecorderConnector) Driver() driver.Driver { return c.r }

// FuzzOpenConnector checks, for any DSN whose inner driver is a recorder
// (seqshim.driver is appended, so that nothing connects or reads files as
// a real driver's DSN parser may): Driver.OpenConnector does not panic;
// the inner driver gets the DSN without the seqshim.* parameters, as
// splitDSN cuts it; and the options of a Connector it returns are valid:
// no negative duration or size (a duration in seconds too large for a
// time.Duration is refused, not wrapped around), a known dialect, DDL
// mode, mode and recovery, canonical sequence names to warm. The seed
// corpus is in testdata/fuzz/FuzzOpenConnector.
func FuzzOpenConnector(f *testing.F) {
	for _, s := range dsnSeeds {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, dsn string) {
		switch {
		case isKeywordValue(dsn) || strings.TrimSpace(dsn) == "":
			dsn += " seqshim.driver=" + fuzzInner
		case strings.Contains(dsn, "?"):
			dsn += "&seqshim.driver=" + fuzzInner
		default:
			dsn += "?seqshim.driver=" + fuzzInner
		}
		inner, params, err := splitDSN(dsn)
		if err != nil || len(params) == 0 || params[len(params)-1] != (dsnParam{"seqshim.driver", fuzzInner}) {
			return // our driver did not get through: another inner driver would be opened
		}
		c, err := defaultDriver.OpenConnector(dsn)
		if err != nil {
			if !strings.HasPrefix(err.Error(), "seqshim: ") {
				t.Fatalf("OpenConnector(%q): %v", dsn, err)
			}
			return
		}
		conn := c.(*Connector)
		defer conn.Close()
		if got := fuzzRecorder.lastDSN(); got != inner {
			t.Fatalf("OpenConnector(%q): the inner driver got %q, want %q", dsn, got, inner)
		}
		o := conn.Options()
		for name, d := range map[string]int64{"buffer": int64(o.Buffer), "max_wait": int64(o.MaxWait), "refill_timeout": int64(o.RefillTimeout),
			"min_threshold": o.MinThreshold, "min_block": o.MinBlock, "max_block": o.MaxBlock, "plan_cache": int64(o.PlanCache)} {
			if d < 0 {
				t.Fatalf("OpenConnector(%q): %s is %d", dsn, name, d)
			}
		}
		if o.Revalidate < -1 || o.Driver != fuzzInner || o.Dialect != DialectPostgres && o.Dialect != DialectMySQL && o.Dialect != DialectSQLite ||
			o.DDL != DDLStore && o.DDL != DDLBoth || o.Mode != ModeServe && o.Mode != ModeShadow ||
			o.Recovery != "" && o.Recovery != RecoveryOn && o.Recovery != RecoveryOff {
			t.Fatalf("OpenConnector(%q): options %+v", dsn, o)
		}
		for _, w := range o.Warm {
			if _, err := sequence.ParseName(w); err != nil {
				t.Fatalf("OpenConnector(%q): warm %q: %v", dsn, w, err)
			}
		}
	})
}

// isCutFrom reports whether s is t with zero or more parts cut out: a
// subsequence of t's bytes.
func isCutFrom(s, t string) bool {
	i := 0
	for j := 0; i < len(s) && j < len(t); j++ {
		if s[i] == t[j] {
			i++
		}
	}
	return i == len(s)
}
