package cosmosstore

import (
	"context"

	"github.com/seqshim/seqshim/internal/storeurl"
	"github.com/seqshim/seqshim/sequence"
)

// init makes cosmos:// and cosmos+http:// URLs open with Open.
func init() {
	open := func(ctx context.Context, rawurl string) (sequence.Store, error) {
		st, err := Open(ctx, rawurl)
		if err != nil {
			return nil, err // not a nil *Store in a non-nil sequence.Store
		}
		return st, nil
	}
	storeurl.Register("cosmos", open)
	storeurl.Register("cosmos+http", open)
}
