package dynamostore

import (
	"context"

	"github.com/seqshim/seqshim/internal/storeurl"
	"github.com/seqshim/seqshim/sequence"
)

// init makes dynamodb:// URLs open with Open.
func init() {
	storeurl.Register("dynamodb", func(ctx context.Context, rawurl string) (sequence.Store, error) {
		return Open(ctx, rawurl)
	})
}
