package engine

import (
	"context"
	"io"
	"math/rand/v2"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/jackc/pgx/v5/pgconn"
	"github.com/jackc/pgx/v5/pgproto3"

	"github.com/seqshim/seqshim/internal/testkit/testenv"
	"github.com/seqshim/seqshim/memstore"
	"github.com/seqshim/seqshim/rewrite"
)

// TestReportReader checks the count of ParameterStatus messages against
// the stream pgproto3 writes, read in pieces of every size (a header or
// a length split across reads), and that the bytes pass unchanged: the
// Frontend reading through it decodes every message.
func TestReportReader(t *testing.T) {
	var stream []byte
	var want uint64
	rng := rand.New(rand.NewPCG(1, 2))
	for i := range 300 {
		var msg pgproto3.BackendMessage
		switch rng.IntN(6) {
		case 0:
			msg = &pgproto3.ParameterStatus{Name: "default_transaction_read_only", Value: "on"}
			want++
		case 1:
			// 'S' bytes inside a body are not a message.
			msg = &pgproto3.DataRow{Values: [][]byte{[]byte(strings.Repeat("S", rng.IntN(20000)))}}
		case 2:
			msg = &pgproto3.CommandComplete{CommandTag: []byte("INSERT 0 1")}
		case 3:
			msg = &pgproto3.ReadyForQuery{TxStatus: 'I'}
		case 4:
			msg = &pgproto3.BindComplete{} // an empty body
		default:
			msg = &pgproto3.NoticeResponse{Severity: "NOTICE", Code: "00000", Message: strings.Repeat("S", i)}
		}
		var err error
		if stream, err = msg.Encode(stream); err != nil {
			t.Fatal(err)
		}
	}
	for _, split := range []int{1, 2, 3, 4, 5, 6, 7, 4096, 0} {
		rr := &reportReader{r: &pieces{b: stream, rng: rng, max: split}}
		f := pgproto3.NewFrontend(rr, io.Discard)
		var got uint64
		for range 300 {
			msg, err := f.Receive()
			if err != nil {
				t.Fatalf("pieces of %d bytes: %v", split, err)
			}
			if _, ok := msg.(*pgproto3.ParameterStatus); ok {
				got++
			}
		}
		if n := rr.reports.Load(); n != want || got != want {
			t.Errorf("pieces of up to %d bytes: counted %d ParameterStatus messages, the Frontend received %d, want %d", split, n, got, want)
		}
	}
}

// pieces reads b in pieces of random sizes up to max (0: all that fits).
type pieces struct {
	b   []byte
	rng *rand.Rand
	max int
}

func (p *pieces) Read(out []byte) (int, error) {
	if len(p.b) == 0 {
		return 0, io.EOF
	}
	n := min(len(out), len(p.b))
	if p.max > 0 {
		n = min(n, 1+p.rng.IntN(p.max))
	}
	n = copy(out, p.b[:n])
	p.b = p.b[n:]
	return n, nil
}

// TestCountedReports is defaultReadOnly on a connection that counts the
// server's reports: it reads them again when the count moved, and once
// more after the next round trip (a report counted as read may not have
// reached pgconn's map yet); otherwise not at all.
func TestCountedReports(t *testing.T) {
	db := &fakeDB{params: map[string]string{"default_transaction_read_only": "off", "in_hot_standby": "off"}}
	s := newSession(t, db)
	var count atomic.Uint64
	s.reports = &count
	nextval := func() error {
		_, _, err := run(t, s, "SELECT nextval('s')")
		return err
	}
	if err := nextval(); err != nil {
		t.Fatal(err)
	}
	reads := db.reads
	for range 3 {
		run(t, s, "SELECT 1") // round trips that brought no report
		if err := nextval(); err != nil {
			t.Fatal(err)
		}
	}
	if db.reads != reads {
		t.Errorf("%d reads of the reports after round trips without a report, want 0", db.reads-reads)
	}
	// A report counted before pgconn has taken it: the count moves, the
	// map does not yet.
	count.Add(1)
	if err := nextval(); err != nil || db.reads != reads+1 {
		t.Fatalf("after a report: %v, %d reads, want 1", err, db.reads-reads)
	}
	db.params["default_transaction_read_only"] = "on" // pgconn took it
	run(t, s, "SELECT 1")
	if err := nextval(); code(err) != codeReadOnly || db.reads != reads+2 {
		t.Errorf("after the next round trip: %v, %d reads, want 25006 and 2 reads", err, db.reads-reads)
	}
	run(t, s, "SELECT 1")
	if err := nextval(); code(err) != codeReadOnly || db.reads != reads+2 {
		t.Errorf("then: %v, %d reads, want 25006 and no more reads", err, db.reads-reads)
	}
	db.params["default_transaction_read_only"] = "off"
	count.Add(1)
	if err := nextval(); err != nil {
		t.Errorf("after a report that it is off again: %v", err)
	}
}

// TestCountReportsPG counts a real server's reports: the startup's, a SET
// of a reported parameter's, none for a statement that reports nothing;
// and a session made on such a connection reads them by the count.
func TestCountReportsPG(t *testing.T) {
	ctx := context.Background()
	cfg, err := pgconn.ParseConfig(testenv.PG(t))
	if err != nil {
		t.Fatal(err)
	}
	CountReports(cfg)
	pc, err := pgconn.ConnectConfig(ctx, cfg)
	if err != nil {
		t.Fatal(err)
	}
	defer pc.Close(ctx)
	n := reports(pc)
	if n == nil {
		t.Fatal("no count for a connection made with CountReports")
	}
	start := n.Load()
	if start == 0 {
		t.Error("no ParameterStatus counted at startup")
	}
	if _, err := pc.Exec(ctx, "SELECT 1").ReadAll(); err != nil || n.Load() != start {
		t.Errorf("SELECT 1: %v, %d reports counted, want 0", err, n.Load()-start)
	}
	if _, err := pc.Exec(ctx, "SET application_name = 'counted'").ReadAll(); err != nil || n.Load() != start+1 {
		t.Errorf("SET application_name: %v, %d reports counted, want 1", err, n.Load()-start)
	}
	e, err := Open(ctx, Config{Store: memstore.New(), Dialect: rewrite.Postgres})
	if err != nil {
		t.Fatal(err)
	}
	defer e.Close()
	s, err := NewSession[AnyArgs](ctx, e, PgConn(pc))
	if err != nil {
		t.Fatal(err)
	}
	if s.reports != n {
		t.Error("the session does not read the connection's count")
	}
	plain, err := pgconn.Connect(ctx, testenv.PG(t))
	if err != nil {
		t.Fatal(err)
	}
	defer plain.Close(ctx)
	if reports(plain) != nil {
		t.Error("a count for a connection made without CountReports")
	}
}

// BenchmarkReportReader is what counting adds to a read of SELECT 1's
// answer (RowDescription, DataRow, CommandComplete, ReadyForQuery): the
// walk over its four headers.
func BenchmarkReportReader(b *testing.B) {
	var answer []byte
	for _, msg := range []pgproto3.BackendMessage{
		&pgproto3.RowDescription{Fields: []pgproto3.FieldDescription{{Name: []byte("?column?"), DataTypeOID: 23, DataTypeSize: 4, TypeModifier: -1}}},
		&pgproto3.DataRow{Values: [][]byte{[]byte("1")}},
		&pgproto3.CommandComplete{CommandTag: []byte("SELECT 1")},
		&pgproto3.ReadyForQuery{TxStatus: 'I'},
	} {
		var err error
		if answer, err = msg.Encode(answer); err != nil {
			b.Fatal(err)
		}
	}
	src := &repeat{b: answer}
	rr := &reportReader{r: src}
	buf := make([]byte, 8192)
	b.ReportAllocs()
	for b.Loop() {
		if _, err := rr.Read(buf); err != nil {
			b.Fatal(err)
		}
	}
	if rr.skip != 0 || rr.nhdr != 0 {
		b.Fatal("the walk lost the messages' boundaries")
	}
}

// repeat reads b again at every Read.
type repeat struct{ b []byte }

func (r *repeat) Read(p []byte) (int, error) { return copy(p, r.b), nil }
