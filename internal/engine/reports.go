package engine

import (
	"encoding/binary"
	"io"
	"runtime"
	"sync"
	"sync/atomic"
	"weak"

	"github.com/jackc/pgx/v5/pgconn"
	"github.com/jackc/pgx/v5/pgproto3"
)

// A session reads default_transaction_read_only (and in_hot_standby) from
// what the server reported (ParameterStatus messages), which pgconn keeps
// in a map. Reading it again after every round trip, as a session must
// when it cannot tell whether a report came, costs a map lookup whose
// every cache line the round trip has evicted: a fraction of a percent of
// an INSERT's time. A connection made with [CountReports] counts the
// reports as they are read off the wire, and its session reads the map
// again only when the count moved.

// CountReports makes the connections made with config count the
// ParameterStatus messages the server sends, for their sessions (see
// [NewSession]). It wraps config.BuildFrontend's reader: the messages pgx
// receives are not changed. A connection made without it works as well;
// its session reads the reports again after each round trip.
func CountReports(config *pgconn.Config) {
	build := config.BuildFrontend
	if build == nil {
		build = func(r io.Reader, w io.Writer) *pgproto3.Frontend { return pgproto3.NewFrontend(r, w) }
	}
	config.BuildFrontend = func(r io.Reader, w io.Writer) *pgproto3.Frontend {
		rr := &reportReader{r: r}
		f := build(rr, w)
		key := weak.Make(f)
		counting.Store(key, &rr.reports)
		runtime.AddCleanup(f, func(key weak.Pointer[pgproto3.Frontend]) { counting.Delete(key) }, key)
		return f
	}
}

// counting maps the Frontend of each live connection made with
// CountReports to its count. The key is weak, and the entry goes with the
// connection.
var counting sync.Map // weak.Pointer[pgproto3.Frontend] → *atomic.Uint64

// reports returns the count of pc's ParameterStatus messages, nil if pc
// was not made with CountReports.
func reports(pc *pgconn.PgConn) *atomic.Uint64 {
	if n, ok := counting.Load(weak.Make(pc.Frontend())); ok {
		return n.(*atomic.Uint64)
	}
	return nil
}

// reportReader counts the ParameterStatus messages in the stream it
// reads: every backend message is a type byte, a 4-byte big-endian length
// that counts itself, then the body. pgx reads it from one goroutine at a
// time (bgreader's, or the connection's), so only the count, which a
// session reads, is atomic. A message is counted when its header is read,
// perhaps before pgconn has taken it: see Session.defaultReadOnly.
type reportReader struct {
	r       io.Reader
	reports atomic.Uint64
	skip    uint32  // bytes of the current message still to read (its size is at most 1<<32)
	hdr     [5]byte // the header being read
	nhdr    int     // its bytes read so far
}

func (rr *reportReader) Read(p []byte) (int, error) {
	n, err := rr.r.Read(p)
	b := p[:n]
	// What an earlier read began: a body to skip, a header split across
	// reads.
	for len(b) > 0 && (rr.skip > 0 || rr.nhdr > 0) {
		if rr.skip > 0 {
			k := uint32(min(uint64(len(b)), uint64(rr.skip)))
			b, rr.skip = b[k:], rr.skip-k
			continue
		}
		k := copy(rr.hdr[rr.nhdr:], b)
		b, rr.nhdr = b[k:], rr.nhdr+k
		if rr.nhdr == len(rr.hdr) {
			rr.nhdr = 0
			rr.skip = uint32(rr.header(rr.hdr[:]) - uint64(len(rr.hdr)))
		}
	}
	if len(b) == 0 {
		return n, err
	}
	// Whole headers: most reads hold whole messages.
	for len(b) >= len(rr.hdr) {
		size := rr.header(b)
		if size > uint64(len(b)) {
			rr.skip = uint32(size - uint64(len(b)))
			return n, err
		}
		b = b[size:]
	}
	rr.nhdr = copy(rr.hdr[:], b)
	return n, err
}

// header takes the header a message starts with and returns the
// message's size: its type byte, then a length that counts itself and the
// body (a length under 4 is malformed, and pgx fails the connection on
// it).
func (rr *reportReader) header(h []byte) uint64 {
	if h[0] == 'S' {
		rr.reports.Add(1)
	}
	return 1 + uint64(max(binary.BigEndian.Uint32(h[1:5]), 4))
}
