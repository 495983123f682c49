package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"strings"
	"text/tabwriter"
	"time"
	"unicode/utf8"

	"github.com/seqshim/seqshim/internal/storeurl"
	"github.com/seqshim/seqshim/sequence"
)

// Exit codes, documented in the top-level help.
const (
	exitOK       = 0
	exitFailed   = 1
	exitUsage    = 2
	exitNotFound = 3
	exitExists   = 4
	exitLimit    = 5
	// exitCheck (6, check.go): check found a counter failing a threshold.
	// exitVerify (7, verify.go): verify flagged ids or sequences.
)

// envStore names the environment variable giving the default store URL, the
// same one the driver reads.
const envStore = "SEQSHIM_STORE"

// errDeclined is returned when an operator does not confirm a destructive
// command.
var errDeclined = errors.New("not confirmed")

// usageError is a mistake in the command line: exit code 2.
type usageError struct{ msg string }

func (e *usageError) Error() string { return e.msg }

func usagef(format string, args ...any) error {
	return &usageError{msg: fmt.Sprintf(format, args...)}
}

// code maps the error run returned to the process exit code.
func code(err error) int {
	var (
		ue *usageError
		cf *checkFailed
		vf *verifyFailed
	)
	switch {
	case err == nil:
		return exitOK
	case errors.As(err, &cf):
		return exitCheck
	case errors.As(err, &vf):
		return exitVerify
	case errors.As(err, &ue), errors.Is(err, sequence.ErrInvalid):
		return exitUsage
	case errors.Is(err, sequence.ErrNotFound):
		return exitNotFound
	case errors.Is(err, sequence.ErrExists):
		return exitExists
	case errors.Is(err, sequence.ErrLimit), errors.Is(err, sequence.ErrDailyLimit):
		return exitLimit
	}
	return exitFailed
}

// command is one subcommand.
type command struct {
	name    string
	summary string
	run     func(a *app, ctx context.Context, args []string) error
}

// commands in the order the help lists them.
var commands = []command{
	{"init", "prepare the store (create the DynamoDB table or the SQL table)", (*app).cmdInit},
	{"create", "create a counter (CREATE SEQUENCE)", (*app).cmdCreate},
	{"alter", "change a counter's options or restart it (ALTER SEQUENCE)", (*app).cmdAlter},
	{"drop", "delete a counter (asks for confirmation unless --yes)", (*app).cmdDrop},
	{"list", "list the counters of the store", (*app).cmdList},
	{"show", "show one counter: spec, position, reservations, burn rate, time until its limit", (*app).cmdShow},
	{"setval", "set a counter's position (setval)", (*app).cmdSetval},
	{"next", "take values from a counter (nextval)", (*app).cmdNext},
	{"import", "create counters from the sequences of a live PostgreSQL, past their values", (*app).cmdImport},
	{"fence", "bound the native PostgreSQL sequences below the store's range", (*app).cmdFence},
	{"export", "the way back: native sequences past the store's range, column defaults back, the store fenced", (*app).cmdExport},
	{"verify", "check a live database for ids or sequences that step into the store's range (exit 7)", (*app).cmdVerify},
	{"watch", "live view of rates, burn per day and time to exhaustion", (*app).cmdWatch},
	{"check", "check runway, burn per day and staleness against thresholds (exit 6 if any fails)", (*app).cmdCheck},
	{"members", "the databases sharing a counter: prune those gone, detach one (members prune, members detach)", (*app).cmdMembers},
	{"policy", "print the least-privilege IAM policy (DynamoDB) or role (Cosmos DB) for a store", (*app).cmdPolicy},
	{"version", "print seqctl's version and the VCS revision it was built from", (*app).cmdVersion},
}

// app is one invocation of seqctl: its streams, its environment and the
// global flags. Tests replace the clock and the streams.
type app struct {
	stdin          io.Reader
	stdout, stderr io.Writer
	getenv         func(string) string
	now            func() time.Time
	sleep          func(ctx context.Context, d time.Duration) error
	terminal       bool // stdout is a terminal: watch redraws instead of appending

	storeURL string
	output   string
	timeout  time.Duration // --timeout: 0 for none
	cmd      string        // the subcommand running
	fs       *flag.FlagSet // the subcommand's flags, for the help test
	help     func()        // prints the subcommand's help
}

func newApp(stdout, stderr io.Writer) *app {
	return &app{
		stdin:    os.Stdin,
		stdout:   stdout,
		stderr:   stderr,
		getenv:   os.Getenv,
		now:      time.Now,
		sleep:    sleepCtx,
		terminal: isTerminal(stdout),
		output:   "table",
	}
}

func sleepCtx(ctx context.Context, d time.Duration) error {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-t.C:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}

func isTerminal(w io.Writer) bool {
	f, ok := w.(*os.File)
	if !ok {
		return false
	}
	st, err := f.Stat()
	return err == nil && st.Mode()&os.ModeCharDevice != 0
}

// run is seqctl: it parses args, runs the subcommand, and reports an error on
// stderr before returning it (code turns it into the exit code).
func run(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	return newApp(stdout, stderr).run(ctx, args)
}

func (a *app) run(ctx context.Context, args []string) error {
	err := a.dispatch(ctx, args)
	if err == nil || errors.Is(err, flag.ErrHelp) {
		return nil
	}
	prefix := "seqctl"
	if a.cmd != "" {
		prefix += " " + a.cmd
	}
	fmt.Fprintf(a.stderr, "%s: %v\n", prefix, err)
	var ue *usageError
	if errors.As(err, &ue) {
		if a.cmd != "" {
			fmt.Fprintf(a.stderr, "run 'seqctl %s --help' for usage\n", a.cmd)
		} else {
			fmt.Fprintln(a.stderr, "run 'seqctl --help' for usage")
		}
	}
	return err
}

func (a *app) dispatch(ctx context.Context, args []string) error {
	fs := flag.NewFlagSet("seqctl", flag.ContinueOnError)
	fs.SetOutput(io.Discard)
	a.globalFlags(fs)
	version := fs.Bool("version", false, "print seqctl's version and exit (before any command; same as the version command)")
	if err := fs.Parse(args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			a.mainHelp(fs)
			return err
		}
		return usagef("%v", err)
	}
	if *version {
		return a.printVersion()
	}
	if fs.NArg() == 0 {
		return usagef("no command given (commands: %s)", commandNames())
	}
	name := fs.Arg(0)
	if name == "help" {
		if fs.NArg() > 1 { // help members prune: seqctl members prune --help
			return a.dispatch(ctx, append(fs.Args()[1:], "--help"))
		}
		a.mainHelp(fs)
		return nil
	}
	for _, c := range commands {
		if c.name == name {
			a.cmd = name
			return a.timedOut(c.run(a, ctx, fs.Args()[1:]))
		}
	}
	return usagef("unknown command %q (commands: %s)", name, commandNames())
}

func commandNames() string {
	names := make([]string, len(commands))
	for i, c := range commands {
		names[i] = c.name
	}
	return strings.Join(names, ", ")
}

// globalFlags registers --store, -o and --timeout. Every subcommand's flag
// set has them too, so they may come before or after the command.
func (a *app) globalFlags(fs *flag.FlagSet) {
	fs.StringVar(&a.storeURL, "store", a.storeURL, "store `URL`: "+storeurl.Summary()+" (default $"+envStore+")")
	fs.StringVar(&a.output, "o", a.output, "output `format`: table or json")
	fs.DurationVar(&a.timeout, "timeout", a.timeout, "give up on the command after `duration` (watch: on each refresh); 0 waits as long as the store does")
}

// bounded returns ctx limited by --timeout. Commands call it once they have
// parsed their flags (which may set --timeout), around the work the limit
// covers: all of it, or one refresh of watch.
func (a *app) bounded(ctx context.Context) (context.Context, context.CancelFunc) {
	if a.timeout <= 0 {
		return context.WithCancel(ctx)
	}
	return context.WithTimeout(ctx, a.timeout)
}

// timedOut says which limit a command hit when --timeout ran out.
func (a *app) timedOut(err error) error {
	if a.timeout > 0 && errors.Is(err, context.DeadlineExceeded) {
		return fmt.Errorf("timed out after %v (--timeout): %w", a.timeout, err)
	}
	return err
}

func (a *app) mainHelp(fs *flag.FlagSet) {
	w := a.stdout
	fmt.Fprint(w, `seqctl: the operator's tool for seqshim counters (sequences served from a store).

usage: seqctl [--store URL] [-o table|json] [--timeout D] COMMAND [flags] [args]

commands:
`)
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	for _, c := range commands {
		fmt.Fprintf(tw, "  %s\t%s\n", c.name, c.summary)
	}
	tw.Flush()
	fmt.Fprint(w, `
global flags (also accepted after the command; -flag and --flag are the same):
`)
	fs.SetOutput(w)
	fs.PrintDefaults()
	fs.SetOutput(io.Discard)
	fmt.Fprint(w, "\nstores:\n")
	for _, f := range storeurl.Forms() {
		const width = 31
		if utf8.RuneCountInString(f.Syntax) > width {
			fmt.Fprintf(w, "  %s\n  %*s  %s\n", f.Syntax, width, "", f.Doc)
		} else {
			fmt.Fprintf(w, "  %-*s  %s\n", width, f.Syntax, f.Doc)
		}
	}
	fmt.Fprint(w, `
names follow PostgreSQL: orders_seq, ORDERS_SEQ and public.orders_seq are one
counter; "Orders_Seq" (quoted) is another; app.orders_seq is in schema app.

exit codes:
  0  success
  1  the operation failed (store or database error, confirmation declined, conflict)
  2  usage error: unknown command or flag, a bad argument or option value
     (one PostgreSQL would reject too), no store given
  3  a named counter does not exist (members detach: the database is not
     a member of the counter)
  4  a counter of that name exists already (create, import)
  5  a counter reached its MAXVALUE (MINVALUE when descending) without CYCLE,
     or its daily limit (next)
  6  a counter fails a threshold of check (--min-runway, --max-burn-per-day, --stale)
  7  verify found ids or native sequences that step into the store's range

Run 'seqctl COMMAND --help' for a command's flags.
`)
}

// flagSet returns the flag set of a subcommand, with the global flags, whose
// help shows usage (the argument synopsis) and doc (what the command does).
func (a *app) flagSet(name, usage, doc string) *flag.FlagSet {
	fs := flag.NewFlagSet(name, flag.ContinueOnError)
	fs.SetOutput(io.Discard)
	// The flag package calls Usage on every parse error too; the help is
	// printed by parse, for --help only.
	fs.Usage = func() {}
	a.help = func() {
		fmt.Fprintf(a.stdout, "usage: seqctl %s %s\n\n%s\n\nflags:\n", name, usage, strings.TrimSpace(doc))
		fs.SetOutput(a.stdout)
		fs.PrintDefaults()
		fs.SetOutput(io.Discard)
	}
	a.globalFlags(fs)
	a.fs = fs
	return fs
}

// parse parses a subcommand's arguments, allowing flags after positional
// arguments (seqctl show orders_seq -o json). A negative number is an
// argument, not a flag, and "--" ends the flags.
func (a *app) parse(fs *flag.FlagSet, args []string) ([]string, error) {
	var pos []string
	for {
		if err := fs.Parse(args); err != nil {
			if errors.Is(err, flag.ErrHelp) {
				a.help()
				return nil, err
			}
			return nil, usagef("%v", err)
		}
		rest := fs.Args()
		if len(rest) == 0 {
			break
		}
		// fs.Parse stops at the first argument; an explicit "--" is gone by
		// then, so check whether it was there.
		consumed := len(args) - len(rest)
		if consumed > 0 && args[consumed-1] == "--" {
			pos = append(pos, rest...)
			break
		}
		pos = append(pos, rest[0])
		args = rest[1:]
		for len(args) > 0 && isNegativeNumber(args[0]) {
			pos = append(pos, args[0])
			args = args[1:]
		}
	}
	if a.output != "table" && a.output != "json" {
		return nil, usagef("-o %q: want table or json", a.output)
	}
	return pos, nil
}

func isNegativeNumber(s string) bool {
	if len(s) < 2 || s[0] != '-' {
		return false
	}
	for _, c := range s[1:] {
		if c < '0' || c > '9' {
			return false
		}
	}
	return true
}

// nameArg parses a counter name given on the command line.
func nameArg(s string) (string, error) {
	name, err := sequence.ParseName(s)
	if err != nil {
		return "", usagef("counter name %q: %v", s, err)
	}
	return name, nil
}

// oneName checks that exactly one argument, a counter name, was given.
func oneName(args []string) (string, error) {
	if len(args) != 1 {
		return "", usagef("want one counter name, got %d arguments", len(args))
	}
	return nameArg(args[0])
}
