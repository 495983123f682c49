package main

import (
	"context"
	"fmt"
	"strconv"
)

const setvalDoc = `
Sets a counter's position, as SELECT setval('NAME', VALUE, is_called) does:
with --is-called (the default) VALUE counts as handed out and the next value
is VALUE + INCREMENT; with --is-called=false the next value is VALUE itself.
VALUE must lie within MINVALUE..MAXVALUE. Processes apply it at their next
reservation; values already in their caches are still handed out.

Moving a counter backwards can hand out values again: only do it when the
values above are known to be unused.`

func (a *app) cmdSetval(ctx context.Context, args []string) error {
	fs := a.flagSet("setval", "NAME VALUE [flags]", setvalDoc)
	isCalled := fs.Bool("is-called", true, "VALUE counts as handed out (setval's third argument)")
	args, err := a.parse(fs, args)
	if err != nil {
		return err
	}
	ctx, cancel := a.bounded(ctx)
	defer cancel()
	if len(args) != 2 {
		return usagef("want NAME VALUE, got %d arguments", len(args))
	}
	name, err := nameArg(args[0])
	if err != nil {
		return err
	}
	value, err := strconv.ParseInt(args[1], 10, 64)
	if err != nil {
		return usagef("VALUE %q: want a 64-bit integer", args[1])
	}
	st, err := a.store(ctx)
	if err != nil {
		return err
	}
	defer closeStore(st)
	info, err := st.SetVal(ctx, name, value, *isCalled)
	if err != nil {
		return a.storeErr(err, name)
	}
	if a.output == "json" {
		return writeJSON(a.stdout, toJSON(info, nil))
	}
	_, err = fmt.Fprintf(a.stdout, "%s: next value %s\n", name, fmtNext(info))
	return err
}
