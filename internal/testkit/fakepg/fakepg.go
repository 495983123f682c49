// Package fakepg is a PostgreSQL server in process, for measuring what a
// client library costs in process: a net.Conn ([Dial]) that answers pgx's
// messages synchronously, as they are written, with no goroutine, no
// socket and no server work between them. Every statement gets one row of
// one int4 column, "1" (as SELECT 1 does), but the query seqshim's engine
// runs when a session opens, which gets a plausible search_path and
// database identity. It speaks what pgx sends for Exec and Query in every
// query mode; nothing else (no COPY, no authentication but trust).
package fakepg

import (
	"bytes"
	"context"
	"errors"
	"net"
	"strings"
	"sync"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgproto3"
)

// Config returns a pgx connection configuration whose connections go to
// fresh fake servers ([Dial]).
func Config() (*pgx.ConnConfig, error) {
	c, err := pgx.ParseConfig("postgres://fake@fake/fake?sslmode=disable")
	if err != nil {
		return nil, err
	}
	c.DialFunc = Dial
	c.LookupFunc = func(context.Context, string) ([]string, error) { return []string{"127.0.0.1"}, nil }
	return c, nil
}

// Dial returns a new connection to a fresh fake server; it has the
// signature of pgconn.Config.DialFunc.
func Dial(context.Context, string, string) (net.Conn, error) {
	c := &conn{}
	c.be = pgproto3.NewBackend(&c.msg, &c.out)
	return c, nil
}

// conn is the client's end: what it writes is answered into out at once.
type conn struct {
	mu      sync.Mutex
	pending []byte       // what the client wrote that is not a whole message yet
	msg     bytes.Buffer // the message being received: the backend's reader
	out     bytes.Buffer
	be      *pgproto3.Backend
	started bool
	closed  bool
	stmts   map[string]string // prepared statement name → its query
	portal  string            // the query of the unnamed portal
	binary  bool              // its result goes in binary format
	err     error
}

func (c *conn) Write(b []byte) (int, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.closed {
		return 0, net.ErrClosed
	}
	// One whole message at a time to the backend, which reads ahead
	// whatever its reader holds.
	c.pending = append(c.pending, b...)
	for c.err == nil {
		n := messageLen(c.pending, c.started)
		if n == 0 {
			break
		}
		c.msg.Write(c.pending[:n])
		c.pending = c.pending[n:]
		c.err = c.receive()
	}
	if len(c.pending) == 0 {
		c.pending = c.pending[:0:cap(c.pending)]
	}
	if c.err != nil {
		return 0, c.err
	}
	return len(b), nil
}

func (c *conn) Read(b []byte) (int, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.out.Len() == 0 {
		if c.closed {
			return 0, net.ErrClosed
		}
		return 0, errors.New("fakepg: read with nothing to read: the client waits for an answer this server never gives")
	}
	return c.out.Read(b)
}

// messageLen is the length of the first message in b, 0 when b does not
// hold all of it. A startup message has no type byte.
func messageLen(b []byte, started bool) int {
	head := 5
	if !started {
		head = 4
	}
	if len(b) < head {
		return 0
	}
	n := head - 4 + int(uint32(b[head-4])<<24|uint32(b[head-3])<<16|uint32(b[head-2])<<8|uint32(b[head-1]))
	if len(b) < n {
		return 0
	}
	return n
}

// receive answers one message.
func (c *conn) receive() error {
	if !c.started {
		msg, err := c.be.ReceiveStartupMessage()
		if err != nil {
			return err
		}
		if _, ok := msg.(*pgproto3.SSLRequest); ok {
			c.out.WriteByte('N')
			return nil
		}
		c.started = true
		c.stmts = map[string]string{}
		c.be.Send(&pgproto3.AuthenticationOk{})
		for k, v := range map[string]string{"server_version": "15.0", "client_encoding": "UTF8", "DateStyle": "ISO, MDY",
			"standard_conforming_strings": "on", "integer_datetimes": "on", "TimeZone": "UTC",
			"default_transaction_read_only": "off", "in_hot_standby": "off", "is_superuser": "on"} {
			c.be.Send(&pgproto3.ParameterStatus{Name: k, Value: v})
		}
		c.be.Send(&pgproto3.BackendKeyData{ProcessID: 1, SecretKey: []byte{0, 0, 0, 1}})
		c.be.Send(&pgproto3.ReadyForQuery{TxStatus: 'I'})
		return c.be.Flush()
	}
	msg, err := c.be.Receive()
	if err != nil {
		return err
	}
	switch m := msg.(type) {
	case *pgproto3.Query:
		c.be.Send(description(m.String))
		c.be.Send(row(m.String))
		c.be.Send(selectOne)
		c.be.Send(idle)
	case *pgproto3.Parse:
		c.stmts[m.Name] = m.Query
		c.be.Send(&pgproto3.ParseComplete{})
	case *pgproto3.Describe:
		q := c.portal
		if m.ObjectType == 'S' {
			q = c.stmts[m.Name]
			c.be.Send(&pgproto3.ParameterDescription{ParameterOIDs: make([]uint32, strings.Count(q, "$"))})
		}
		c.be.Send(description(q))
	case *pgproto3.Bind:
		c.portal = c.stmts[m.PreparedStatement]
		c.binary = len(m.ResultFormatCodes) > 0 && m.ResultFormatCodes[0] == 1
		c.be.Send(&pgproto3.BindComplete{})
	case *pgproto3.Execute:
		r := row(c.portal)
		if c.binary && !session(c.portal) {
			r = oneBinary
		}
		c.be.Send(r)
		c.be.Send(selectOne)
	case *pgproto3.Close:
		c.be.Send(&pgproto3.CloseComplete{})
	case *pgproto3.Sync:
		c.be.Send(idle)
	case *pgproto3.Flush:
	case *pgproto3.Terminate:
		c.closed = true
		return nil
	default:
		c.be.Send(&pgproto3.ErrorResponse{Severity: "ERROR", Code: "0A000", Message: "fakepg: unsupported message"})
	}
	return c.be.Flush()
}

// session reports whether q is the query seqshim's engine runs when a
// session opens (its search_path and database identity).
func session(q string) bool { return strings.Contains(q, "pg_control_system") }

// The answers, made once: the server allocates as little as it can, so
// that what a benchmark against it measures is the client's.
var (
	sessionFields = &pgproto3.RowDescription{Fields: []pgproto3.FieldDescription{
		{Name: []byte("path"), DataTypeOID: 25, DataTypeSize: -1, TypeModifier: -1},
		{Name: []byte("db"), DataTypeOID: 25, DataTypeSize: -1, TypeModifier: -1},
	}}
	oneField = &pgproto3.RowDescription{Fields: []pgproto3.FieldDescription{
		{Name: []byte("?column?"), DataTypeOID: 23, DataTypeSize: 4, TypeModifier: -1},
	}}
	sessionRow = &pgproto3.DataRow{Values: [][]byte{[]byte("public"), []byte("1/1/fake")}}
	oneRow     = &pgproto3.DataRow{Values: [][]byte{[]byte("1")}}
	oneBinary  = &pgproto3.DataRow{Values: [][]byte{{0, 0, 0, 1}}}
	selectOne  = &pgproto3.CommandComplete{CommandTag: []byte("SELECT 1")}
	idle       = &pgproto3.ReadyForQuery{TxStatus: 'I'}
)

// description is the row description of q's answer.
func description(q string) *pgproto3.RowDescription {
	if session(q) {
		return sessionFields
	}
	return oneField
}

// row is q's one row, in text format.
func row(q string) *pgproto3.DataRow {
	if session(q) {
		return sessionRow
	}
	return oneRow
}

func (c *conn) Close() error {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.closed = true
	return nil
}

func (c *conn) LocalAddr() net.Addr              { return addr{} }
func (c *conn) RemoteAddr() net.Addr             { return addr{} }
func (c *conn) SetDeadline(time.Time) error      { return nil }
func (c *conn) SetReadDeadline(time.Time) error  { return nil }
func (c *conn) SetWriteDeadline(time.Time) error { return nil }

type addr struct{}

func (addr) Network() string { return "fakepg" }
func (addr) String() string  { return "fakepg" }
