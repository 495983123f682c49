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
keeping its spec, position and column defaults; it cannot be combined with
other options.

--default TABLE.COLUMN[:KIND] adds a column whose default draws from the
counter, or changes the kind of one it has (see 'seqctl create --help' for the
form); --no-default TABLE.COLUMN removes one (an error if the counter does
not have it); --no-defaults removes them all, and with --default replaces
them. --default and --no-default read the counter's column defaults and write
the whole list back: run one such change of a counter at a time. A counter
shared by databases that declared it (its members, see 'seqctl members
--help') has each database's column defaults instead, changed by that
database's DDL: these flags refuse it.

--daily-limit N is a daily budget: the store hands out at most N values of
the counter per UTC day, over every process, counted atomically with each
reservation. A block that would cross the limit is cut short to the values
left, so the day's budget is used to the last value; after that every
reservation is refused with SQLSTATE 54000 (the application's nextval fails,
naming the counter, the limit and when it resets) until midnight UTC.
--daily-limit 0 or --no-daily-limit removes it. Values are counted only
while a limit is set; changing the limit keeps the day's count, so lowering
it below what the day used stops reservations at once. Values already in a
process's cache are still served.
` + cachePolicyDoc + `

examples:
  seqctl alter orders_seq --maxvalue 1000000000
  seqctl alter orders_seq --restart=5000
  seqctl alter orders_seq --rename-to order_no
  seqctl alter orders_seq --default orders.id:by-default --no-default old_orders.id
  seqctl alter orders_seq --daily-limit 5000000
  seqctl alter orders_seq --buffer 30s --min-block 1000 --max-block 100000 --revalidate 5s
  seqctl alter orders_seq --buffer 0   # back to each process's own buffer`

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
	edit, err := sf.defaultsEdit()
	if err != nil {
		return err
	}
	if *renameTo != "" {
		if c != (sequence.Clauses{}) || !edit.empty() {
			return usagef("--rename-to cannot be combined with other options")
		}
		newName, err := nameArg(*renameTo)
		if err != nil {
			return err
		}
		return a.rename(ctx, name, newName)
	}
	if c == (sequence.Clauses{}) && edit.empty() {
		return usagef("nothing to change: give at least one option (see --help)")
	}
	st, err := a.store(ctx)
	if err != nil {
		return err
	}
	defer closeStore(st)
	if !edit.empty() {
		if c.Defaults, err = a.editDefaults(ctx, st, name, edit); err != nil {
			return err
		}
	}
	info, err := st.Alter(ctx, name, c)
	if err != nil {
		return a.storeErr(err, name)
	}
	if a.output == "json" {
		return writeJSON(a.stdout, toJSON(info, nil))
	}
	_, err = fmt.Fprintf(a.stdout, "altered %s: %s; next value %s%s%s%s\n", name, info.Spec, fmtNext(info),
		fmtDefaultsSuffix(info.Spec.Defaults, !edit.empty()), fmtDailyLimitSuffix(info.Spec, c.DailyLimit != nil),
		fmtCachePolicySuffix(info.Spec.Policy, c.Policy != nil))
	return err
}

// editDefaults returns the column defaults counter name has after edit,
// checked against the other counters' claims. A counter with members has
// no column defaults of its own to edit: each database has its own, set by
// its DDL.
func (a *app) editDefaults(ctx context.Context, st sequence.Store, name string, edit defaultsEdit) (*[]sequence.ColumnDefault, error) {
	info, err := st.Describe(ctx, name)
	if err != nil {
		return nil, a.storeErr(err, name)
	}
	if len(info.Spec.Members) > 0 {
		return nil, fmt.Errorf("%s is shared by databases that each have their own column defaults, set by their DDL through seqshim ('seqctl show %s' lists them): "+
			"--default, --no-default and --no-defaults edit those of a counter without members only", name, name)
	}
	var current []sequence.ColumnDefault
	if !edit.replaces() {
		current = info.Spec.Defaults
	}
	defaults, err := edit.apply(name, current)
	if err != nil {
		return nil, err
	}
	if err := a.checkUnclaimed(ctx, st, name, edit.set); err != nil {
		return nil, err
	}
	return &defaults, nil
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
