package main

import (
	"context"
	"errors"
	"fmt"
	"io"

	"github.com/seqshim/seqshim/internal/storeurl"
	"github.com/seqshim/seqshim/sequence"
)

// openStoreURL opens a store by the scheme of its URL, exactly as the driver
// does.
func openStoreURL(ctx context.Context, rawurl string) (sequence.Store, error) {
	st, err := storeurl.Open(ctx, rawurl)
	if errors.Is(err, storeurl.ErrURL) {
		return nil, usagef("store: %v", err)
	}
	return st, err
}

// store opens the store of --store or $SEQSHIM_STORE. The caller closes it
// with closeStore.
func (a *app) store(ctx context.Context) (sequence.Store, error) {
	u, err := a.storeURLOrEnv()
	if err != nil {
		return nil, err
	}
	st, err := openStoreURL(ctx, u)
	if err != nil {
		var ue *usageError
		if errors.As(err, &ue) {
			return nil, err
		}
		return nil, usagef("store %s: %v", storeurl.Redact(u), err)
	}
	return st, nil
}

func (a *app) storeURLOrEnv() (string, error) {
	u := a.storeURL
	if u == "" {
		u = a.getenv(envStore)
	}
	if u == "" {
		return "", usagef("no store: pass --store URL or set %s (%s)", envStore, storeurl.Summary())
	}
	return u, nil
}

func closeStore(st sequence.Store) {
	if c, ok := st.(io.Closer); ok {
		_ = c.Close() // read-mostly use; nothing left to flush that an error could save
	}
}

// storeErr adds to a store error what the operator can do about it.
func (a *app) storeErr(err error, name string) error {
	switch {
	case errors.Is(err, sequence.ErrNotFound):
		return fmt.Errorf("%w ('seqctl list' shows the counters of %s)", err, storeurl.Redact(a.storeURLQuiet()))
	case errors.Is(err, sequence.ErrExists):
		return fmt.Errorf("%w ('seqctl show %s' shows it)", err, name)
	case errors.Is(err, context.DeadlineExceeded):
		return fmt.Errorf("%w (store %s did not answer in time)", err, storeurl.Redact(a.storeURLQuiet()))
	case errors.Is(err, context.Canceled):
		return fmt.Errorf("interrupted: %w", err)
	}
	return err
}

func (a *app) storeURLQuiet() string {
	u, _ := a.storeURLOrEnv()
	return u
}
