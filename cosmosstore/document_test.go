package cosmosstore

import (
	"encoding/json"
	"errors"
	"math"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/Azure/azure-sdk-for-go/sdk/azcore"

	"github.com/seqshim/seqshim/sequence"
)

func mustSpec() sequence.Spec { return sequence.DefaultSpec() }

func TestEscapeID(t *testing.T) {
	seen := map[string]string{}
	for _, key := range []string{"public.s", "svc/public.s", `a\b`, "a?b#c", "a%2Fb", "a~2Fb", "~", "", "ü.ä"} {
		id := escapeID(key)
		if strings.ContainsAny(id, `/\?#%`) {
			t.Errorf("escapeID(%q) = %q: a character Cosmos DB refuses", key, id)
		}
		if other, dup := seen[id]; dup {
			t.Errorf("escapeID(%q) = escapeID(%q) = %q", key, other, id)
		}
		seen[id] = key
	}
	if got := escapeID("public.orders_seq"); got != "public.orders_seq" {
		t.Errorf("escapeID of a plain key = %q, want it unchanged", got)
	}
}

// TestNum: int64s are kept as decimal strings, exact to the last digit
// (a JSON number in Cosmos DB is a double).
func TestNum(t *testing.T) {
	for _, v := range []int64{0, 1, -1, 1<<53 + 1, math.MaxInt64, math.MinInt64} {
		b, err := json.Marshal(num(v))
		if err != nil {
			t.Fatal(err)
		}
		var got num
		if err := json.Unmarshal(b, &got); err != nil || int64(got) != v {
			t.Errorf("%d: %s decodes to %d, %v", v, b, got, err)
		}
	}
	for _, bad := range []string{`9007199254740993`, `"1.5"`, `"x"`, `null`, `"9223372036854775808"`} {
		var n num
		if err := json.Unmarshal([]byte(bad), &n); err == nil && bad != `null` {
			t.Errorf("%s decoded to %d, want an error", bad, n)
		}
	}
}

func TestRetryAfter(t *testing.T) {
	mk := func(h http.Header) error {
		return &azcore.ResponseError{StatusCode: http.StatusTooManyRequests, RawResponse: &http.Response{Header: h}}
	}
	for _, tt := range []struct {
		h    http.Header
		want time.Duration
	}{
		{http.Header{"X-Ms-Retry-After-Ms": {"40"}}, 40 * time.Millisecond},
		{http.Header{"Retry-After": {"2"}}, 2 * time.Second},
		{http.Header{}, 100 * time.Millisecond},
		{http.Header{"X-Ms-Retry-After-Ms": {"9999999"}}, 30 * time.Second},
	} {
		for range 20 {
			if got := retryAfter(mk(tt.h)); got < tt.want || got > tt.want+tt.want/4 {
				t.Errorf("retryAfter(%v) = %v, want %v plus at most a quarter", tt.h, got, tt.want)
			}
		}
	}
	if got := retryAfter(errors.New("x")); got < 100*time.Millisecond {
		t.Errorf("retryAfter of a non-response error = %v", got)
	}
}
