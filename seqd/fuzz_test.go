package seqd_test

import (
	"bytes"
	"context"
	"net/http"
	"net/http/httptest"
	"testing"

	"github.com/seqshim/seqshim/memstore"
	"github.com/seqshim/seqshim/seqd"
	"github.com/seqshim/seqshim/sequence"
)

// FuzzRequest posts arbitrary bodies, as JSON and as protobuf, to every
// method of the API with a reserve-only credential: the server answers
// each with a Connect error or an answer, never a server error or a panic,
// and nothing changes in the store but the positions Reserve moves.
func FuzzRequest(f *testing.F) {
	methods := []string{"Reserve", "Recover", "Release", "Gen", "Check", "Create", "Alter", "Rename", "Drop",
		"Describe", "List", "SetVal", "Attach", "Detach"}
	for i := range methods {
		f.Add(uint8(i), true, []byte(`{"name":"fz_seq","count":"5","token":"0123456789abcdef0123456789abcdef"}`))
		f.Add(uint8(i), false, []byte{0x0a, 0x06, 'f', 'z', '_', 's', 'e', 'q', 0x10, 0x05})
	}
	f.Add(uint8(0), true, []byte(`{"name":"fz_seq","count":"-1"}`))
	f.Add(uint8(0), true, []byte(`{"name":"`+string(bytes.Repeat([]byte("x"), 70_000))+`"}`))
	f.Add(uint8(5), true, []byte(`{"name":"fz_new","spec":{"type":"bigint","increment":"0"},"position":{}}`))
	f.Add(uint8(6), true, []byte(`{"name":"fz_seq","clauses":{"maxValue":"1"}}`))
	f.Add(uint8(0), true, []byte("\xff\xfe{"))

	ctx := context.Background()
	st := memstore.New()
	spec := sequence.DefaultSpec()
	if err := st.Create(ctx, "fz_seq", spec, spec.Initial()); err != nil {
		f.Fatal(err)
	}
	token := "fuzz-token"
	srv, err := seqd.New(seqd.Config{Store: st, Credentials: []seqd.Credential{{
		Name: "fuzz", TokenSHA256: seqd.HashToken(token), Prefixes: []string{"fz_"}, Ops: []string{"reserve"}}}})
	if err != nil {
		f.Fatal(err)
	}
	hs := httptest.NewServer(srv.Handler())
	f.Cleanup(func() {
		hs.Close()
		srv.Close()
	})
	before, err := st.Describe(ctx, "fz_seq")
	if err != nil {
		f.Fatal(err)
	}

	f.Fuzz(func(t *testing.T, method uint8, asJSON bool, body []byte) {
		m := methods[int(method)%len(methods)]
		req, err := http.NewRequest("POST", hs.URL+"/seqshim.seqd.v1.SequenceService/"+m, bytes.NewReader(body))
		if err != nil {
			t.Fatal(err)
		}
		if asJSON {
			req.Header.Set("Content-Type", "application/json")
		} else {
			req.Header.Set("Content-Type", "application/proto")
		}
		req.Header.Set("Authorization", "Bearer "+token)
		res, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		res.Body.Close()
		if res.StatusCode >= 500 && res.StatusCode != http.StatusServiceUnavailable {
			t.Fatalf("%s %q: HTTP %d", m, body, res.StatusCode)
		}
		infos, err := st.List(ctx)
		if err != nil {
			t.Fatal(err)
		}
		if len(infos) != 1 || infos[0].Name != "fz_seq" || !infos[0].Spec.Equal(before.Spec) {
			t.Fatalf("%s %q changed the store: %+v", m, body, infos)
		}
	})
}
