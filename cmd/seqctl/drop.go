package main

import (
	"bufio"
	"context"
	"fmt"
	"strings"

	"github.com/seqshim/seqshim/sequence"
)

const dropDoc = `
Deletes a counter, as DROP SEQUENCE NAME does. Processes that still use it get
"relation does not exist" at their next reservation. The operator is asked to
confirm on stdin (y or yes) unless --yes is given; without a confirmation
nothing is dropped and the exit code is 1.

A counter shared by several databases (its members, see 'seqctl members
--help') is dropped for every one of them: the question lists them, and so
does the output. To remove one database only, run DROP SEQUENCE in it, or
'seqctl members detach NAME DB'.`

func (a *app) cmdDrop(ctx context.Context, args []string) error {
	fs := a.flagSet("drop", "NAME [flags]", dropDoc)
	yes := fs.Bool("yes", false, "drop without asking for confirmation (for scripts)")
	ifExists := fs.Bool("if-exists", false, "succeed if the counter does not exist (IF EXISTS)")
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
	st, err := a.store(ctx)
	if err != nil {
		return err
	}
	defer closeStore(st)
	info, err := st.Describe(ctx, name)
	if err != nil {
		if *ifExists && code(err) == exitNotFound {
			return a.dropped(name, false)
		}
		return a.storeErr(err, name)
	}
	members := info.Spec.Members
	if !*yes {
		q := fmt.Sprintf("drop counter %s (next value %s, %d values reserved so far)", name, fmtNext(info), info.ValuesReserved)
		if len(members) > 0 {
			q += fmt.Sprintf(" for every database that uses it: %s", fmtMembersInline(members))
		}
		if !a.confirm(q + "?") {
			return fmt.Errorf("%s not dropped: %w (answer y, or pass --yes)", name, errDeclined)
		}
	}
	if err := st.Drop(ctx, name); err != nil {
		return a.storeErr(err, name)
	}
	return a.dropped(name, true, members...)
}

// confirm asks the operator question on stderr and reads the answer from
// stdin: true for y or yes.
func (a *app) confirm(question string) bool {
	fmt.Fprintf(a.stderr, "%s [y/N] ", question)
	line, _ := bufio.NewReader(a.stdin).ReadString('\n')
	switch strings.ToLower(strings.TrimSpace(line)) {
	case "y", "yes":
		return true
	}
	return false
}

// dropped reports a drop: did is false when there was nothing to drop;
// members are the databases the counter was dropped for.
func (a *app) dropped(name string, did bool, members ...sequence.Member) error {
	if a.output == "json" {
		out := map[string]any{"name": name, "dropped": did}
		if len(members) > 0 {
			out["members"] = membersJSON(members, nil)
		}
		return writeJSON(a.stdout, out)
	}
	if !did {
		_, err := fmt.Fprintf(a.stdout, "%s does not exist, nothing dropped\n", name)
		return err
	}
	if len(members) > 0 {
		_, err := fmt.Fprintf(a.stdout, "dropped %s for every database that used it: %s\n", name, fmtMembersInline(members))
		return err
	}
	_, err := fmt.Fprintf(a.stdout, "dropped %s\n", name)
	return err
}
