package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"strings"
	"text/tabwriter"
)

// members is the command for a counter's members (sequence.Spec.Members),
// the databases that use it: prune and detach, each in its own file.

const membersDoc = `
Manages the databases that use a counter, its members. Databases sharing a
store share its counters (one store prefix is one id space): a sequence
records each database that declared it (CREATE SEQUENCE, a serial or
identity column), with that database's OWNED BY and column defaults; DROP
SEQUENCE in a database detaches that database, and the counter goes with its
last one. A counter without members (made by seqctl, or before members were
recorded) is every database's.

A member is a database's identity SYSTEM_IDENTIFIER/OID/NAME: its cluster's
system identifier, its OID and its name. A database that is dropped (or
renamed) leaves a stale member, which nothing removes automatically. 'seqctl
show' and 'seqctl list' print the members, and mark the stale ones of the
clusters named by --check-db; 'seqctl members prune' detaches them.

commands:
`

// memberCommands are the subcommands of members, in the order the help
// lists them.
var memberCommands = []command{
	{"prune", "detach the members whose database is gone, of every counter or of the NAMEs given", (*app).cmdMembersPrune},
	{"detach", "detach one database from a counter, on request", (*app).cmdMembersDetach},
}

func (a *app) cmdMembers(ctx context.Context, args []string) error {
	var doc strings.Builder
	doc.WriteString(membersDoc)
	tw := tabwriter.NewWriter(&doc, 0, 0, 2, ' ', 0)
	for _, c := range memberCommands {
		fmt.Fprintf(tw, "  %s\t%s\n", c.name, c.summary)
	}
	tw.Flush()
	doc.WriteString("\nRun 'seqctl members COMMAND --help' for a command's flags.")
	fs := a.flagSet("members", "COMMAND [flags] [args]", doc.String())
	// Global flags may come before the subcommand; its own flags after it.
	if err := fs.Parse(args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			a.help()
			return err
		}
		return usagef("%v", err)
	}
	names := make([]string, len(memberCommands))
	for i, c := range memberCommands {
		names[i] = c.name
	}
	if fs.NArg() == 0 {
		return usagef("no members command given (commands: %s)", strings.Join(names, ", "))
	}
	for _, c := range memberCommands {
		if c.name == fs.Arg(0) {
			a.cmd = "members " + c.name
			return c.run(a, ctx, fs.Args()[1:])
		}
	}
	return usagef("unknown members command %q (commands: %s)", fs.Arg(0), strings.Join(names, ", "))
}
