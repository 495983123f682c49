package driver

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"sync"

	"github.com/seqshim/seqshim/internal/storeurl"
	"github.com/seqshim/seqshim/seqcache"
	"github.com/seqshim/seqshim/sequence"
)

// setWarm parses seqshim.warm: sequence names separated by commas (a comma
// inside a "quoted name" is part of it).
func setWarm(p *[]string, v string) error {
	var names []string
	start, quoted := 0, false
	for i := 0; i <= len(v); i++ {
		if i < len(v) && v[i] == '"' {
			quoted = !quoted
		}
		if i == len(v) || (v[i] == ',' && !quoted) {
			if n := strings.TrimSpace(v[start:i]); n != "" {
				names = append(names, n)
			}
			start = i + 1
		}
	}
	if _, err := warmNames(names); err != nil {
		return err
	}
	*p = names
	return nil
}

// warmNames returns the canonical names of the sequences to warm.
func warmNames(written []string) ([]string, error) {
	names := make([]string, 0, len(written))
	for _, w := range written {
		n, err := sequence.ParseName(w)
		if err != nil {
			return nil, fmt.Errorf("sequence name %q: %w", w, err)
		}
		names = append(names, n)
	}
	return names, nil
}

// warmUp reserves the first block of each sequence of o.Warm into cache, at
// once, and waits for the store's answers, at most the cache's MaxWait. The
// error names the store and every sequence that could not be warmed, and
// wraps the store's errors (errors.Is sequence.ErrNotFound for a missing
// sequence).
func warmUp(ctx context.Context, cache *seqcache.Cache, o Options) error {
	names, err := warmNames(o.Warm)
	if err != nil || len(names) == 0 {
		return err
	}
	ctx, cancel := context.WithTimeout(ctx, cache.Options().MaxWait)
	defer cancel()
	errs := make([]error, len(names))
	var wg sync.WaitGroup
	for i, name := range names {
		wg.Go(func() { errs[i] = cache.Handle(name).Warm(ctx) })
	}
	wg.Wait()
	store := "the store given in Options.Store"
	if o.StoreURL != "" {
		store = "store " + storeurl.Redact(o.StoreURL)
	}
	var failed []error
	for i, err := range errs {
		if err != nil {
			failed = append(failed, fmt.Errorf("seqshim: warming sequence %s (seqshim.warm) from %s: %w", names[i], store, err))
		}
	}
	return errors.Join(failed...)
}
