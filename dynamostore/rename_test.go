package dynamostore_test

import (
	"errors"
	"io"
	"net"
	"net/http"
	"strings"
	"sync"
	"syscall"
	"testing"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"

	"github.com/seqshim/seqshim/dynamostore"
	"github.com/seqshim/seqshim/sequence"
)

// scriptedHTTP fails the next request of one DynamoDB operation, before
// sending it or after the server applied it.
type scriptedHTTP struct {
	mu      sync.Mutex
	op      string // e.g. "PutItem"; empty: no fault armed
	applied bool
}

func (s *scriptedHTTP) arm(op string, applied bool) {
	s.mu.Lock()
	s.op, s.applied = op, applied
	s.mu.Unlock()
}

func (s *scriptedHTTP) Do(r *http.Request) (*http.Response, error) {
	s.mu.Lock()
	fire := s.op != "" && strings.HasSuffix(r.Header.Get("X-Amz-Target"), "."+s.op)
	applied := s.applied
	if fire {
		s.op = ""
	}
	s.mu.Unlock()
	reset := &net.OpError{Op: "read", Net: "tcp", Err: syscall.ECONNRESET}
	if fire && !applied {
		return nil, reset
	}
	resp, err := http.DefaultClient.Do(r)
	if fire && err == nil {
		_, _ = io.Copy(io.Discard, resp.Body)
		resp.Body.Close()
		return nil, reset
	}
	return resp, err
}

// TestRenameInterrupted: a rename that fails at any step leaves both names
// serving nothing (never the same values twice), and repeating it completes
// it with the position intact.
func TestRenameInterrupted(t *testing.T) {
	tests := []struct {
		op      string
		applied bool
	}{
		{"UpdateItem", false}, // the fence, not applied: nothing happened
		{"UpdateItem", true},  // the fence applied, response lost
		{"PutItem", false},
		{"PutItem", true},
		{"DeleteItem", false},
		{"DeleteItem", true},
	}
	sh := &scriptedHTTP{}
	client := testClient(t, func(o *dynamodb.Options) {
		o.HTTPClient = sh
		o.Retryer = aws.NopRetryer{}
	})
	table := testTable(t)
	for i, tt := range tests {
		name := "step" + string(rune('a'+i))
		t.Run(name+"_"+tt.op, func(t *testing.T) {
			ctx := t.Context()
			st := dynamostore.New(client, table)
			other := dynamostore.New(testClient(t), table) // another process, no faults
			m := newSeq(t, st, name, sequence.Clauses{})
			m.reserve(t, st, 10)
			m.reserve(t, other, 10)

			sh.arm(tt.op, tt.applied)
			err := st.Rename(ctx, name, name+"_new")
			sh.arm("", false)
			if err == nil {
				t.Fatalf("Rename succeeded despite a failed %s", tt.op)
			}
			if tt.op == "UpdateItem" && !tt.applied {
				m.reserve(t, other, 1) // not fenced: still serving
			} else {
				// Whatever state the rename stopped in, no name may serve a
				// value the other could serve too.
				_, errOld := other.Reserve(ctx, name, 1)
				if !errors.Is(errOld, sequence.ErrNotFound) {
					t.Fatalf("old name after an interrupted rename: %v, want not found", errOld)
				}
				// The new name may serve already (its item was created), but
				// only after the old name's final position.
				want, pos, _ := m.spec.Reserve(name+"_new", m.pos, 1)
				got, err := other.Reserve(ctx, name+"_new", 1)
				want.Gen = got.Gen // the old name's incarnation, kept by the rename (see TestContract/Gen)
				switch {
				case err == nil && got == want:
					m.pos = pos
				case err == nil:
					t.Fatalf("new name during the rename: %+v, want %+v", got, want)
				case !errors.Is(err, sequence.ErrNotFound):
					t.Fatalf("new name during the rename: %v", err)
				}
			}
			// Repeated, it completes, or finds it completed (the last case:
			// the old item gone, the new one recording it came from it).
			if err := st.Rename(ctx, name, name+"_new"); err != nil {
				t.Fatalf("repeated Rename: %v", err)
			}
			m.name = name + "_new"
			m.reserve(t, other, 5)
			m.reserve(t, st, 5)
			if _, err := st.Describe(ctx, name); !errors.Is(err, sequence.ErrNotFound) {
				t.Fatalf("old name after the rename: %v", err)
			}
		})
	}
}

// TestRenameOntoExisting: the target name taken is ErrExists, and the old
// sequence keeps serving from where it was.
func TestRenameOntoExisting(t *testing.T) {
	client := testClient(t)
	table := testTable(t)
	st := dynamostore.New(client, table)
	m := newSeq(t, st, "a", sequence.Clauses{})
	newSeq(t, st, "b", sequence.Clauses{})
	m.reserve(t, st, 3)
	for _, target := range []string{"b", "a"} {
		err := st.Rename(t.Context(), "a", target)
		if !errors.Is(err, sequence.ErrExists) || err.Error() != `relation "`+target+`" already exists` {
			t.Fatalf("Rename(a, %s) = %v, want ErrExists", target, err)
		}
	}
	m.reserve(t, st, 3)
	if err := st.Rename(t.Context(), "missing", "c"); !errors.Is(err, sequence.ErrNotFound) {
		t.Fatalf("Rename of a missing sequence: %v", err)
	}
}
