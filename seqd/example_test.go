package seqd_test

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"

	"github.com/seqshim/seqshim/memstore"
	"github.com/seqshim/seqshim/seqd"
	"github.com/seqshim/seqshim/sequence"
)

// Any language draws blocks with a plain HTTP/JSON POST; the same token
// again gets the same block.
func Example_httpJSON() {
	ctx := context.Background()
	store := memstore.New()
	spec := sequence.DefaultSpec()
	_ = store.Create(ctx, "orders_seq", spec, spec.Initial())

	token := "demo-token-orders"
	srv, err := seqd.New(seqd.Config{Store: store, Credentials: []seqd.Credential{{
		Name: "orders-svc", TokenSHA256: seqd.HashToken(token), Prefixes: []string{"orders_"}, Ops: []string{"reserve"},
	}}})
	if err != nil {
		panic(err)
	}
	hs := httptest.NewServer(srv.Handler())
	defer srv.Close()
	defer hs.Close()

	reserve := func(name, attempt string) string {
		body, _ := json.Marshal(map[string]any{"name": name, "count": "10", "token": attempt})
		req, _ := http.NewRequest("POST", hs.URL+"/seqshim.seqd.v1.SequenceService/Reserve", bytes.NewReader(body))
		req.Header.Set("Content-Type", "application/json")
		req.Header.Set("Authorization", "Bearer "+token)
		res, err := http.DefaultClient.Do(req)
		if err != nil {
			panic(err)
		}
		defer res.Body.Close()
		var out struct {
			Block struct{ First, Count string } `json:"block"`
			Code  string                        `json:"code"`
			Msg   string                        `json:"message"`
		}
		b, _ := io.ReadAll(res.Body)
		_ = json.Unmarshal(b, &out)
		if out.Code != "" {
			return out.Code + ": " + out.Msg
		}
		return out.Block.First + " +" + out.Block.Count
	}
	fmt.Println(reserve("orders_seq", "0123456789abcdef0123456789abcdef"))
	fmt.Println(reserve("orders_seq", "0123456789abcdef0123456789abcdef")) // a retry: the same block
	fmt.Println(reserve("orders_seq", "fedcba9876543210fedcba9876543210"))
	fmt.Println(reserve("billing_seq", "00000000000000000000000000000001"))
	// Output:
	// 1 +10
	// 1 +10
	// 11 +10
	// permission_denied: seqd: client "orders-svc" may not use sequence billing_seq: it is outside the client's name prefixes
}
