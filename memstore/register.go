package memstore

import (
	"context"
	"strings"

	"github.com/seqshim/seqshim/internal/storeurl"
	"github.com/seqshim/seqshim/sequence"
)

// init makes memory: URLs (any case) open with Open.
func init() {
	storeurl.Register(Scheme, func(_ context.Context, rawurl string) (sequence.Store, error) {
		_, rest, _ := strings.Cut(rawurl, ":")
		return Open(Scheme + ":" + rest)
	})
}
