package main

import (
	"context"
	"fmt"

	"github.com/seqshim/seqshim/sequence"
)

const alterDoc = `
Changes a counter's options, as ALTER SEQUENCE NAME does, atomically against
concurrent reservations. Only the options given change. Every process using
the counter applies the change at its next reservation: values already in a
process's cache are still handed out (restart the services, or expect up to a
cache block of old values).

--rename-to gives the counter a new name (ALTER SEQUENCE ... RENAME TO),
keeping its spec and position; it cannot be combined with other options.

examples:
  seqctl alter orders_seq --maxvalue 1000000000
  seqctl alter orders_seq --restart=5000
  seqctl alter orders_seq --rename-to order_no`

func (a *app) cmdAlter(ctx context.Context, args []string) error {
	fs := a.flagSet("alter", "NAME [flags]", alterDoc)
	var sf specFlags
	sf.register(fs, true)
	renameTo := fs.String("rename-to", "", "new `name` for the counter (RENAME TO)")
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
	c, err := sf.clauses(fs)
	if err != nil {
		return err
	}
	if *renameTo != "" {
		if c != (sequence.Clauses{}) {
			return usagef("--rename-to cannot be combined with other options")
		}
		newName, err := nameArg(*renameTo)
		if err != nil {
			return err
		}
		return a.rename(ctx, name, newName)
	}
	if c == (sequence.Clauses{}) {
		return usagef("nothing to change: give at least one option (see --help)")
	}
	st, err := a.store(ctx)
	if err != nil {
		return err
	}
	defer closeStore(st)
	info, err := st.Alter(ctx, name, c)
	if err != nil {
		return a.storeErr(err, name)
	}
	if a.output == "json" {
		return writeJSON(a.stdout, toJSON(info))
	}
	_, err = fmt.Fprintf(a.stdout, "altered %s: %s; next value %s\n", name, info.Spec, fmtNext(info))
	return err
}

func (a *app) rename(ctx context.Context, name, newName string) error {
	st, err := a.store(ctx)
	if err != nil {
		return err
	}
	defer closeStore(st)
	if err := st.Rename(ctx, name, newName); err != nil {
		return a.storeErr(err, newName)
	}
	if a.output == "json" {
		return writeJSON(a.stdout, map[string]string{"renamed": name, "to": newName})
	}
	_, err = fmt.Fprintf(a.stdout, "renamed %s to %s\n", name, newName)
	return err
}
