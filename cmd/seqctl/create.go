package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"strconv"

	"github.com/seqshim/seqshim/sequence"
)

const createDoc = `
Creates a counter, as CREATE SEQUENCE NAME with the options given does, with
PostgreSQL's defaults and checks: without options it is a bigint counting
1, 2, 3, ... up to 9223372036854775807.

examples:
  seqctl create orders_seq
  seqctl create app.invoice_no --start 1000 --increment 10
  seqctl create ticket --as integer --cycle --maxvalue 9999`

// specFlags are the CREATE/ALTER SEQUENCE options as flags.
type specFlags struct {
	typ                     string
	increment, start, cache int64
	minValue, maxValue      int64
	noMinValue, noMaxValue  bool
	cycle, noCycle          bool
	restart                 restartFlag
}

// restartFlag is --restart (go back to START) or --restart=N.
type restartFlag struct {
	on bool
	at *int64
}

func (r *restartFlag) IsBoolFlag() bool { return true }

func (r *restartFlag) String() string {
	if r == nil || !r.on {
		return ""
	}
	if r.at != nil {
		return strconv.FormatInt(*r.at, 10)
	}
	return "true"
}

func (r *restartFlag) Set(s string) error {
	switch s {
	case "true":
		r.on, r.at = true, nil
	case "false":
		r.on, r.at = false, nil
	default:
		v, err := strconv.ParseInt(s, 10, 64)
		if err != nil {
			return errors.New("want --restart or --restart=N with an integer N")
		}
		r.on, r.at = true, &v
	}
	return nil
}

func (f *specFlags) register(fs *flag.FlagSet, alter bool) {
	fs.StringVar(&f.typ, "as", "bigint", "data `type`: smallint, integer or bigint (AS); bounds the values")
	fs.Int64Var(&f.increment, "increment", 1, "INCREMENT BY: step between values; negative counts down")
	fs.Int64Var(&f.minValue, "minvalue", 0, "MINVALUE (default 1 ascending, the type's minimum descending)")
	fs.Int64Var(&f.maxValue, "maxvalue", 0, "MAXVALUE (default the type's maximum ascending, -1 descending)")
	fs.Int64Var(&f.start, "start", 0, "START WITH: the first value (default MINVALUE ascending, MAXVALUE descending)")
	fs.Int64Var(&f.cache, "cache", 1, "CACHE: kept as PostgreSQL's hint; seqshim sizes its blocks by the measured rate")
	fs.BoolVar(&f.cycle, "cycle", false, "CYCLE: wrap around at the limit instead of failing (--cycle=false: NO CYCLE)")
	if alter {
		fs.BoolVar(&f.noMinValue, "no-minvalue", false, "NO MINVALUE: back to the default minimum")
		fs.BoolVar(&f.noMaxValue, "no-maxvalue", false, "NO MAXVALUE: back to the default maximum")
		fs.BoolVar(&f.noCycle, "no-cycle", false, "NO CYCLE: fail at the limit (the same as --cycle=false)")
		fs.Var(&f.restart, "restart", "RESTART: the next value is START (--restart) or `N` (--restart=N)")
	}
}

// clauses turns the flags that were given into CREATE/ALTER options; flags
// not given are clauses not written.
func (f *specFlags) clauses(fs *flag.FlagSet) (sequence.Clauses, error) {
	set := map[string]bool{}
	fs.Visit(func(fl *flag.Flag) { set[fl.Name] = true })
	var c sequence.Clauses
	if set["as"] {
		t, err := sequence.ParseType(f.typ)
		if err != nil {
			return c, usagef("--as %q: want smallint, integer or bigint", f.typ)
		}
		c.Type = &t
	}
	if set["increment"] {
		c.Increment = sequence.Int64(f.increment)
	}
	if set["minvalue"] {
		c.MinValue = sequence.Int64(f.minValue)
	}
	if set["maxvalue"] {
		c.MaxValue = sequence.Int64(f.maxValue)
	}
	if set["minvalue"] && set["no-minvalue"] || set["maxvalue"] && set["no-maxvalue"] {
		return c, usagef("conflicting options: --minvalue/--maxvalue with --no-minvalue/--no-maxvalue")
	}
	c.NoMinValue, c.NoMaxValue = f.noMinValue, f.noMaxValue
	if set["start"] {
		c.Start = sequence.Int64(f.start)
	}
	if set["cache"] {
		c.Cache = sequence.Int64(f.cache)
	}
	if set["cycle"] && set["no-cycle"] {
		return c, usagef("conflicting options: --cycle and --no-cycle")
	}
	if set["cycle"] {
		c.Cycle = sequence.Bool(f.cycle)
	}
	if set["no-cycle"] {
		c.Cycle = sequence.Bool(!f.noCycle)
	}
	c.Restart = f.restart.on
	c.RestartAt = f.restart.at
	return c, nil
}

func (a *app) cmdCreate(ctx context.Context, args []string) error {
	fs := a.flagSet("create", "NAME [flags]", createDoc)
	var sf specFlags
	sf.register(fs, false)
	ifNotExists := fs.Bool("if-not-exists", false, "succeed without change if the counter exists (IF NOT EXISTS)")
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
	spec, pos, err := c.Create()
	if err != nil {
		return usagef("%v", err)
	}
	st, err := a.store(ctx)
	if err != nil {
		return err
	}
	defer closeStore(st)
	err = st.Create(ctx, name, spec, pos)
	existed := *ifNotExists && errors.Is(err, sequence.ErrExists)
	if err != nil && !existed {
		return a.storeErr(err, name)
	}
	info, err := st.Describe(ctx, name)
	if err != nil {
		return a.storeErr(err, name)
	}
	if a.output == "json" {
		return writeJSON(a.stdout, toJSON(info))
	}
	verb := "created"
	if existed {
		verb = "exists already, left as it is:"
	}
	_, err = fmt.Fprintf(a.stdout, "%s %s: %s; next value %s\n", verb, name, info.Spec, fmtNext(info))
	return err
}
