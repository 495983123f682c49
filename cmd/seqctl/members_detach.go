package main

import (
	"context"
	"fmt"
	"slices"
	"strings"

	"github.com/seqshim/seqshim/sequence"
)

const detachDoc = `
Detaches database DB from counter NAME, on request, as DROP SEQUENCE NAME run
in that database does: the database no longer has the sequence (its nextval
fails with 42P01, relation does not exist), its OWNED BY and column defaults
go, and the counter and its other databases are untouched. DB is the
member's identity SYSTEM_IDENTIFIER/OID/NAME, as 'seqctl show NAME' prints
it ("db" in -o json), or its database name alone when one member only has
that name. For the members whose database is gone, 'seqctl members prune'
finds them.

Detaching the last member drops the counter, for good: that takes
--drop-last ('seqctl drop NAME' drops a counter for every database at once).
A counter without members is every database's: there is nothing to detach.
The operator is asked to confirm on stdin (y or yes) unless --yes is given;
without a confirmation nothing changes and the exit code is 1. A DB that is
not a member of NAME exits 3.

examples:
  seqctl members detach orders_seq 7301234567890123456/16390/shop_old
  seqctl members detach orders_seq shop_old --yes`

// notMemberError is a database that is not a member of a counter: exit
// code 3, as a counter that does not exist.
type notMemberError struct{ msg string }

func (e *notMemberError) Error() string        { return e.msg }
func (e *notMemberError) Is(target error) bool { return target == sequence.ErrNotFound }

func (a *app) cmdMembersDetach(ctx context.Context, args []string) error {
	fs := a.flagSet("members detach", "NAME DB [flags]", detachDoc)
	yes := fs.Bool("yes", false, "detach without asking for confirmation (for scripts)")
	dropLast := fs.Bool("drop-last", false, "allow detaching the counter's last member, which drops the counter")
	args, err := a.parse(fs, args)
	if err != nil {
		return err
	}
	ctx, cancel := a.bounded(ctx)
	defer cancel()
	if len(args) != 2 {
		return usagef("want a counter name and a database, got %d arguments", len(args))
	}
	name, err := nameArg(args[0])
	if err != nil {
		return err
	}
	return a.detach(ctx, name, args[1], *dropLast, *yes)
}

func (a *app) detach(ctx context.Context, name, arg string, dropLast, yes bool) error {
	st, err := a.store(ctx)
	if err != nil {
		return err
	}
	defer closeStore(st)
	info, err := st.Describe(ctx, name)
	if err != nil {
		return a.storeErr(err, name)
	}
	members := info.Spec.Members
	db, err := findMember(name, members, arg)
	if err != nil {
		return err
	}
	last := len(members) == 1
	if last && !dropLast {
		return fmt.Errorf("%s is the last database of %s: detaching it drops the counter; pass --drop-last to drop it", fmtDB(db), name)
	}
	if !yes {
		q := fmt.Sprintf("detach database %s from counter %s, as DROP SEQUENCE in that database would", fmtDB(db), name)
		if last {
			q += fmt.Sprintf(", and drop the counter (next value %s, %d values reserved so far) with its last database", fmtNext(info), info.ValuesReserved)
		}
		if !a.confirm(q + "?") {
			return fmt.Errorf("%s not detached from %s: %w (answer y, or pass --yes)", dbName(db), name, errDeclined)
		}
	}
	dropped, err := st.Detach(ctx, name, db)
	if err != nil {
		return a.storeErr(err, name)
	}
	if a.output == "json" {
		return writeJSON(a.stdout, struct {
			Name string `json:"name"`
			dbJSON
			Detached bool `json:"detached"`
			Dropped  bool `json:"dropped"`
		}{name, toDBJSON(db), true, dropped})
	}
	msg := fmt.Sprintf("detached %s from %s", fmtDB(db), name)
	switch {
	case dropped:
		msg += fmt.Sprintf("; it was its last database: dropped %s", name)
	case last:
		msg += "; another database attached meanwhile: the counter is kept"
	}
	_, err = fmt.Fprintln(a.stdout, msg)
	return err
}

// findMember returns the member of counter name that arg names: its
// identity, or its database name when one member only has it.
func findMember(name string, members []sequence.Member, arg string) (string, error) {
	if len(members) == 0 {
		return "", &notMemberError{fmt.Sprintf("%s has no members recorded: it is every database's, nothing to detach ('seqctl drop %s' drops it for all)", name, name)}
	}
	if slices.ContainsFunc(members, func(m sequence.Member) bool { return m.DB == arg }) {
		return arg, nil
	}
	var byName []string
	for _, m := range members {
		if _, _, n, ok := sequence.ParseDatabaseID(m.DB); ok && n == arg {
			byName = append(byName, m.DB)
		}
	}
	switch len(byName) {
	case 1:
		return byName[0], nil
	case 0:
		return "", &notMemberError{fmt.Sprintf("database %s is not a member of %s (its members: %s)", arg, name, strings.Join(sequence.MemberDBs(members), ", "))}
	}
	return "", usagef("%d members of %s are databases named %s: give the one to detach as SYSTEM_IDENTIFIER/OID/NAME (%s)",
		len(byName), name, arg, strings.Join(byName, ", "))
}
