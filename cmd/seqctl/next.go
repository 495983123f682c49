package main

import (
	"context"
	"fmt"
	"strconv"

	"github.com/seqshim/seqshim/sequence"
)

const nextDoc = `
Takes N values from a counter, as N calls of nextval('NAME') would, and prints
them one a line. The values are reserved from the store directly (in as few
blocks as the limit allows), so the counter moves by exactly N values and
none is left in a cache. Fails with exit code 5 at MAXVALUE (MINVALUE when
descending) without CYCLE, or at the counter's daily limit, after printing
the values it got.`

// maxNext bounds -n so that a typo cannot print for hours.
const maxNext = 10_000_000

func (a *app) cmdNext(ctx context.Context, args []string) error {
	fs := a.flagSet("next", "NAME [flags]", nextDoc)
	n := fs.Int64("n", 1, "how many values to take (at most 10000000)")
	args, err := a.parse(fs, args)
	if err != nil {
		return err
	}
	ctx, cancel := a.bounded(ctx)
	defer cancel()
	name, err := oneName(args)
	if err != nil {
		return err
	}
	if *n < 1 || *n > maxNext {
		return usagef("-n %d: want 1 to %d", *n, maxNext)
	}
	st, err := a.store(ctx)
	if err != nil {
		return err
	}
	defer closeStore(st)
	var blocks []sequence.Block
	var got int64
	for got < *n {
		b, err := st.Reserve(ctx, name, *n-got)
		if err != nil {
			if perr := a.printValues(name, blocks); perr != nil {
				return perr
			}
			return a.storeErr(err, name)
		}
		blocks = append(blocks, b)
		got += b.Count
	}
	return a.printValues(name, blocks)
}

func (a *app) printValues(name string, blocks []sequence.Block) error {
	if a.output == "json" {
		vals := []int64{}
		for _, b := range blocks {
			for i := range b.Count {
				vals = append(vals, b.Value(i))
			}
		}
		return writeJSON(a.stdout, map[string]any{"name": name, "values": vals})
	}
	var buf []byte
	for _, b := range blocks {
		for i := range b.Count {
			buf = strconv.AppendInt(buf, b.Value(i), 10)
			buf = append(buf, '\n')
			if len(buf) > 64<<10 {
				if _, err := a.stdout.Write(buf); err != nil {
					return err
				}
				buf = buf[:0]
			}
		}
	}
	_, err := a.stdout.Write(buf)
	if err != nil {
		return fmt.Errorf("write values: %w", err)
	}
	return nil
}
