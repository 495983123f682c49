package main

import (
	"bufio"
	"context"
	"fmt"
	"strings"
)

const dropDoc = `
Deletes a counter, as DROP SEQUENCE NAME does. Processes that still use it get
"relation does not exist" at their next reservation. The operator is asked to
confirm on stdin (y or yes) unless --yes is given; without a confirmation
nothing is dropped and the exit code is 1.`

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
	if !*yes {
		fmt.Fprintf(a.stderr, "drop counter %s (next value %s, %d values reserved so far)? [y/N] ",
			name, fmtNext(info), info.ValuesReserved)
		line, _ := bufio.NewReader(a.stdin).ReadString('\n')
		switch strings.ToLower(strings.TrimSpace(line)) {
		case "y", "yes":
		default:
			return fmt.Errorf("%s not dropped: %w (answer y, or pass --yes)", name, errDeclined)
		}
	}
	if err := st.Drop(ctx, name); err != nil {
		return a.storeErr(err, name)
	}
	return a.dropped(name, true)
}

func (a *app) dropped(name string, did bool) error {
	if a.output == "json" {
		return writeJSON(a.stdout, map[string]any{"name": name, "dropped": did})
	}
	if !did {
		_, err := fmt.Fprintf(a.stdout, "%s does not exist, nothing dropped\n", name)
		return err
	}
	_, err := fmt.Fprintf(a.stdout, "dropped %s\n", name)
	return err
}
