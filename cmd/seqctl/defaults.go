package main

import (
	"context"
	"flag"
	"fmt"
	"strconv"
	"strings"

	"github.com/seqshim/seqshim/sequence"
)

// Column defaults: the table columns whose default draws from a counter
// (serial, identity, DEFAULT nextval). create and alter set them with
// --default, alter removes them with --no-default and --no-defaults; show,
// list and -o json print them; import reads them from the database.

// columnFlag is a repeatable flag naming table columns, each parsed as
// [sequence.ParseColumnDefault] reads it.
type columnFlag struct {
	cols     []sequence.ColumnDefault
	withKind bool // a ":kind" suffix is allowed (--default), else refused (--no-default)
}

func (f *columnFlag) String() string {
	if f == nil {
		return ""
	}
	s := make([]string, len(f.cols))
	for i, c := range f.cols {
		s[i] = c.String()
	}
	return strings.Join(s, ", ")
}

func (f *columnFlag) Set(text string) error {
	c, err := sequence.ParseColumnDefault(text)
	if err != nil {
		return err
	}
	if !f.withKind && c.Kind != sequence.DefaultNextval {
		return fmt.Errorf("%q: give the column without a kind (TABLE.COLUMN)", text)
	}
	for _, o := range f.cols {
		if o.Is(c.Table, c.Column) {
			return fmt.Errorf("column %s given twice", columnRef(c))
		}
	}
	f.cols = append(f.cols, c)
	return nil
}

// columnRef is a column as --default and --no-default take it, without its
// kind: orders.id, shop."Items"."No".
func columnRef(d sequence.ColumnDefault) string {
	return d.Table + "." + sequence.QuoteIdent(d.Column)
}

// defaultsEdit is what --default, --no-default and --no-defaults ask of a
// counter's column defaults.
type defaultsEdit struct {
	set   []sequence.ColumnDefault // --default: added, or replacing the entry of the same column
	unset []sequence.ColumnDefault // --no-default: removed; each must be there (Kind unused)
	clear bool                     // --no-defaults: every entry removed before set is added
}

// newDefaultsEdit checks that the flags do not contradict each other.
func newDefaultsEdit(set, unset []sequence.ColumnDefault, clear bool) (defaultsEdit, error) {
	e := defaultsEdit{set: set, unset: unset, clear: clear}
	if clear && len(unset) > 0 {
		return e, usagef("conflicting options: --no-default with --no-defaults (which removes every column default)")
	}
	for _, u := range unset {
		for _, s := range set {
			if s.Is(u.Table, u.Column) {
				return e, usagef("conflicting options: --default and --no-default of column %s", columnRef(u))
			}
		}
	}
	return e, nil
}

// empty reports whether the edit changes nothing.
func (e defaultsEdit) empty() bool { return len(e.set) == 0 && len(e.unset) == 0 && !e.clear }

// replaces reports whether the result does not depend on the current
// defaults (only --no-defaults and --default).
func (e defaultsEdit) replaces() bool { return e.clear && len(e.unset) == 0 }

// apply returns the defaults of counter name after the edit, starting from
// current. Removing a column that is not there is an error: it is likely a
// typo, and an operator should hear of it.
func (e defaultsEdit) apply(name string, current []sequence.ColumnDefault) ([]sequence.ColumnDefault, error) {
	out := current
	if e.clear {
		out = nil
	}
	for _, u := range e.unset {
		found := false
		for _, d := range out {
			found = found || d.Is(u.Table, u.Column)
		}
		if !found {
			return nil, fmt.Errorf("--no-default %s: not a column default of %s (its column defaults: %s)",
				columnRef(u), name, fmtDefaultsInline(out))
		}
		out = sequence.WithoutDefault(out, u.Table, u.Column)
	}
	for _, s := range e.set {
		out = sequence.WithDefault(out, s)
	}
	if out == nil {
		out = []sequence.ColumnDefault{}
	}
	return out, nil
}

// claimedElsewhere returns an error if one of the columns cols is the
// default of a counter other than name in infos, in every database or in
// one of its members: a column has one default, so a second claim is a
// mistake to fix first.
func claimedElsewhere(infos []sequence.Info, name string, cols []sequence.ColumnDefault) error {
	for _, info := range infos {
		if info.Name == name {
			continue
		}
		views := info.Spec.Members
		if len(views) == 0 {
			views = []sequence.Member{{Defaults: info.Spec.Defaults}}
		}
		for _, m := range views {
			for _, d := range m.Defaults {
				for _, c := range cols {
					if !d.Is(c.Table, c.Column) {
						continue
					}
					if m.DB != "" {
						return fmt.Errorf("column %s draws its default from counter %s already in database %s (that database's own column default: change it there)",
							columnRef(c), info.Name, fmtDB(m.DB))
					}
					return fmt.Errorf("column %s draws its default from counter %s already (seqctl alter %s --no-default %s first)",
						columnRef(c), info.Name, info.Name, columnRef(c))
				}
			}
		}
	}
	return nil
}

// checkUnclaimed lists the store's counters and checks that none but name
// has one of cols as a column default.
func (a *app) checkUnclaimed(ctx context.Context, st sequence.Store, name string, cols []sequence.ColumnDefault) error {
	if len(cols) == 0 {
		return nil
	}
	infos, err := st.List(ctx)
	if err != nil {
		return a.storeErr(err, "")
	}
	return claimedElsewhere(infos, name, cols)
}

// registerDefaults adds --default to fs and, for alter, --no-default and
// --no-defaults.
func (f *specFlags) registerDefaults(fs *flag.FlagSet, alter bool) {
	f.defaults.withKind = true
	usage := "column `TABLE.COLUMN[:KIND]` whose default draws from the counter (or SCHEMA.TABLE.COLUMN; KIND: default, always or by-default); repeatable"
	if alter {
		usage += "; added, or replacing that column's entry"
	}
	fs.Var(&f.defaults, "default", usage)
	if alter {
		fs.Var(&f.noDefault, "no-default", "column `TABLE.COLUMN` that no longer draws its default from the counter; repeatable")
		fs.BoolVar(&f.noDefaults, "no-defaults", false, "remove every column default of the counter (with --default: replace them)")
	}
}

// defaultsEdit returns what the flags ask of the column defaults.
func (f *specFlags) defaultsEdit() (defaultsEdit, error) {
	return newDefaultsEdit(f.defaults.cols, f.noDefault.cols, f.noDefaults)
}

// columnDefaultJSON is a column default as -o json prints it: the column as
// --default takes it, its parts unquoted (as information_schema.columns
// names them), and its kind.
type columnDefaultJSON struct {
	Column      string `json:"column"`
	TableSchema string `json:"table_schema"`
	TableName   string `json:"table_name"`
	ColumnName  string `json:"column_name"`
	Kind        string `json:"kind"` // default, always or by-default
}

func defaultsJSON(defaults []sequence.ColumnDefault) []columnDefaultJSON {
	out := make([]columnDefaultJSON, len(defaults))
	for i, d := range defaults {
		schema, table := sequence.SplitName(d.Table)
		out[i] = columnDefaultJSON{Column: columnRef(d), TableSchema: schema, TableName: table,
			ColumnName: d.Column, Kind: d.Kind.Name()}
	}
	return out
}

// fmtDefaultsShort is the column defaults in one table cell: the first,
// and how many more.
func fmtDefaultsShort(defaults []sequence.ColumnDefault) string {
	switch len(defaults) {
	case 0:
		return "-"
	case 1:
		return defaults[0].String()
	}
	return defaults[0].String() + " +" + strconv.Itoa(len(defaults)-1) + " more"
}

// fmtDefaultsSuffix ends the line create and alter print: the column
// defaults, if any or if always.
func fmtDefaultsSuffix(defaults []sequence.ColumnDefault, always bool) string {
	if len(defaults) == 0 && !always {
		return ""
	}
	return "; column defaults: " + fmtDefaultsInline(defaults)
}

// fmtDefaultsInline is every column default on one line, for messages.
func fmtDefaultsInline(defaults []sequence.ColumnDefault) string {
	if len(defaults) == 0 {
		return "none"
	}
	s := make([]string, len(defaults))
	for i, d := range defaults {
		s[i] = d.String()
	}
	return strings.Join(s, ", ")
}
