package driver

import (
	"context"
	"database/sql"
	"database/sql/driver"
	"errors"
	"strings"
	"sync"
	"testing"

	"github.com/seqshim/seqshim/internal/options"
	"github.com/seqshim/seqshim/sequence"
)

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
// options.SplitDSN cuts it; and the options of a Connector it returns are valid:
// no negative duration or size (a duration in seconds too large for a
// time.Duration is refused, not wrapped around), a known dialect, DDL
// mode, mode and recovery, canonical sequence names to warm. The seed
// corpus is in testdata/fuzz/FuzzOpenConnector.
func FuzzOpenConnector(f *testing.F) {
	f.Fuzz(func(t *testing.T, dsn string) {
		switch {
		case options.IsKeywordValue(dsn) || strings.TrimSpace(dsn) == "":
			dsn += " seqshim.driver=" + fuzzInner
		case strings.Contains(dsn, "?"):
			dsn += "&seqshim.driver=" + fuzzInner
		default:
			dsn += "?seqshim.driver=" + fuzzInner
		}
		inner, params, err := options.SplitDSN(dsn)
		if err != nil || len(params) == 0 || params[len(params)-1] != (options.Param{Key: "seqshim.driver", Value: fuzzInner}) {
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
