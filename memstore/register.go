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
		st, err := Open(Scheme + ":" + rest)
		if err != nil {
			return nil, err // not a nil *Store in a non-nil sequence.Store
		}
		return st, nil
	})
}
