package conformance

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"net/url"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strconv"
	"strings"

	"github.com/jackc/pgx/v5"
)

// ErrSyntax is wrapped by every error [Parse] returns for a malformed
// scenario.
var ErrSyntax = errors.New("conformance: scenario syntax")

// Verb is what a [Step] does.
type Verb string

// The verbs of a scenario file (see the package documentation).
const (
	Exec     Verb = "exec"     // ExecContext: "ok N" with N rows affected
	Query    Verb = "query"    // QueryContext: header, rows and row count
	Prepare  Verb = "prepare"  // PrepareContext, kept under a name per session
	Begin    Verb = "begin"    // BeginTx on the session
	Commit   Verb = "commit"   // Commit of the session's transaction
	Rollback Verb = "rollback" // Rollback of the session's transaction
	// Recreate drops the step's database (db=) and creates it again, empty.
	Recreate Verb = "recreate"
	// Disconnect ends the session's connection: its database session ends
	// (its temporary objects go); its next step opens a new one.
	Disconnect Verb = "disconnect"
)

// DefaultSession is the session of a step without session= (or db=).
const DefaultSession = "a"

// DefaultDB is the database of a session none of whose steps says db=.
const DefaultDB = "a"

// SeqshimSection is the line that starts a differs step's second
// expectation: seqshim's transcript, written by hand.
const SeqshimSection = "---- seqshim"

// execModes maps mode= values to pgx's query execution modes, passed as the
// first argument of a statement.
var execModes = map[string]pgx.QueryExecMode{
	"simple":          pgx.QueryExecModeSimpleProtocol,
	"exec":            pgx.QueryExecModeExec,
	"describe":        pgx.QueryExecModeDescribeExec,
	"cache_statement": pgx.QueryExecModeCacheStatement,
	"cache_describe":  pgx.QueryExecModeCacheDescribe,
}

// Step is one action of a scenario and the transcript PostgreSQL gives for it.
type Step struct {
	Line    int    // line of the verb in the file, from 1
	Verb    Verb   // what to do
	Session string // session (pinned connection) it runs on
	SQL     string // statement text; empty for begin/commit/rollback and stmt= steps
	Stmt    string // name of the prepared statement (prepare, and exec/query with stmt=)
	Mode    string // pgx query execution mode (mode=), "" for pgx's default
	// ReadOnly is begin's readonly flag: sql.TxOptions{ReadOnly: true}.
	ReadOnly bool
	// DSN are parameters added to the target's DSN for the step's session
	// (dsn=, a URL query such as options=-c%20search_path%3Dapp): it opens
	// on a database handle of its own. Only a session's first step may
	// have them.
	DSN  string
	Args []any // bind arguments (args …)
	// PerRow marks a statement PostgreSQL evaluates once per row. seqshim
	// may reject it with 0A000 or give distinct values, never one value for
	// many rows; PerRowCols names the columns that must be distinct (all
	// columns when empty).
	PerRow     bool
	PerRowCols []string
	Expect     string // the expected transcript: PostgreSQL's

	// DB is the database of the step's session (db=; a session is on one
	// database), or the database recreate re-creates. Every name is a
	// database of its own; through seqshim they share one store.
	DB string
	// Together names the group of a step run at the same moment as the
	// consecutive steps of the same group (together=NAME; "together" alone
	// is the group "together"), each on its own session, in goroutines.
	Together string
	// IDs are the query's columns of ids handed out by the step (ids=):
	// their values may differ from PostgreSQL's, but each must be an
	// integer never seen before in its id space during the run.
	IDs []IDCol
	// Seen are the query's columns of ids handed out earlier (seen=): each
	// value must be the one an ids= step handed out for the same row
	// (the same database and PostgreSQL value).
	Seen []IDCol
	// Differs marks a step whose seqshim transcript differs from
	// PostgreSQL's by design: it is compared with Seqshim instead, the
	// file's second expectation (after a "---- seqshim" line), in which
	// "..." stands for any text within a line.
	Differs bool
	Seqshim string

	expectFrom, expectTo int // line range of Expect in the file, 0-based, for -update
}

// IDCol is a column of an ids= or seen= option: a column name and the id
// space its values belong to (COL@SPACE), the column name when not given.
// Every value handed out in one space must be unique in the whole run:
// name one space per sequence.
type IDCol struct {
	Col, Space string
}

// Scenario is one scenario file.
type Scenario struct {
	Name  string // file name without extension
	Path  string
	Title string // first comment line
	Steps []Step

	lines []string // the file, for Rewrite
}

// LoadDir parses every *.txt file of dir, sorted by name.
func LoadDir(dir string) ([]*Scenario, error) {
	files, err := filepath.Glob(filepath.Join(dir, "*.txt"))
	if err != nil {
		return nil, err
	}
	sort.Strings(files)
	out := make([]*Scenario, 0, len(files))
	for _, f := range files {
		data, err := os.ReadFile(f)
		if err != nil {
			return nil, err
		}
		sc, err := Parse(f, data)
		if err != nil {
			return nil, err
		}
		out = append(out, sc)
	}
	return out, nil
}

// Parse parses a scenario file; path names it in errors and in [Scenario.Name].
func Parse(path string, data []byte) (*Scenario, error) {
	sc := &Scenario{
		Name: strings.TrimSuffix(filepath.Base(path), filepath.Ext(path)),
		Path: path,
	}
	sc.lines = strings.Split(strings.TrimRight(string(data), "\n"), "\n")
	if len(data) == 0 {
		sc.lines = nil
	}
	lines := sc.lines
	errf := func(i int, format string, a ...any) error {
		return fmt.Errorf("%w: %s:%d: %s", ErrSyntax, path, i+1, fmt.Sprintf(format, a...))
	}
	i := 0
	for i < len(lines) {
		line := lines[i]
		trimmed := strings.TrimSpace(line)
		if trimmed == "" {
			i++
			continue
		}
		if strings.HasPrefix(trimmed, "#") {
			if sc.Title == "" {
				sc.Title = strings.TrimSpace(strings.TrimPrefix(trimmed, "#"))
			}
			i++
			continue
		}
		st, err := parseVerbLine(line)
		if err != nil {
			return nil, errf(i, "%v", err)
		}
		st.Line = i + 1
		i++
		var sql []string
		for i < len(lines) && lines[i] != "----" {
			sql = append(sql, lines[i])
			i++
		}
		if i == len(lines) {
			return nil, errf(st.Line-1, "%s: no ---- line ends the statement", st.Verb)
		}
		st.SQL = strings.TrimSpace(strings.Join(sql, "\n"))
		i++ // ----
		st.expectFrom = i
		for i < len(lines) && strings.TrimSpace(lines[i]) != "" && lines[i] != SeqshimSection {
			i++
		}
		st.expectTo = i
		st.Expect = strings.Join(lines[st.expectFrom:st.expectTo], "\n")
		if i < len(lines) && lines[i] == SeqshimSection {
			if !st.Differs {
				return nil, errf(i, "%s section on a step without differs", SeqshimSection)
			}
			i++
			from := i
			for i < len(lines) && strings.TrimSpace(lines[i]) != "" {
				i++
			}
			st.Seqshim = strings.Join(lines[from:i], "\n")
			if st.Seqshim == "" {
				return nil, errf(from-1, "empty %s section", SeqshimSection)
			}
		} else if st.Differs {
			return nil, errf(st.Line-1, "differs needs a %s section after the expectation", SeqshimSection)
		}
		if err := st.check(); err != nil {
			return nil, errf(st.Line-1, "%v", err)
		}
		sc.Steps = append(sc.Steps, st)
	}
	if len(sc.Steps) == 0 {
		return nil, fmt.Errorf("%w: %s: no steps", ErrSyntax, path)
	}
	if err := sc.resolve(); err != nil {
		return nil, err
	}
	return sc, nil
}

// resolve gives every step its session and database, and checks that a
// session stays on one database and that together steps form groups of
// several sessions. A step with db= and no session= is on the session
// named like the database; one with neither on session a; a session is on
// the database its first step names, a by default.
func (sc *Scenario) resolve() error {
	errf := func(st *Step, format string, a ...any) error {
		return fmt.Errorf("%w: %s:%d: %s", ErrSyntax, sc.Path, st.Line, fmt.Sprintf(format, a...))
	}
	dbOf := map[string]string{}
	for i := range sc.Steps {
		st := &sc.Steps[i]
		if st.Verb == Recreate {
			continue
		}
		if st.Session == "" {
			st.Session = DefaultSession
			if st.DB != "" {
				st.Session = st.DB
			}
		}
		known, ok := dbOf[st.Session]
		switch {
		case st.DB == "" && ok:
			st.DB = known
		case st.DB == "":
			st.DB = DefaultDB
		case ok && known != st.DB:
			return errf(st, "session %s is on database %s, not db=%s (a session belongs to one database)", st.Session, known, st.DB)
		}
		dbOf[st.Session] = st.DB
	}
	for _, g := range sc.Groups() {
		i, j := g[0], g[1]
		if sc.Steps[i].Together == "" {
			continue
		}
		sessions := map[string]bool{}
		for k := i; k < j; k++ {
			if s := sc.Steps[k].Session; sessions[s] {
				return errf(&sc.Steps[k], "together: session %s has another step in the group (a session runs one statement at a time)", s)
			}
			sessions[sc.Steps[k].Session] = true
		}
		if j-i < 2 {
			return errf(&sc.Steps[i], "together=%s needs at least two consecutive steps", sc.Steps[i].Together)
		}
	}
	return nil
}

// DBNames returns the databases the scenario's steps name, in order of
// first use.
func (sc *Scenario) DBNames() []string {
	var out []string
	for _, st := range sc.Steps {
		if !slices.Contains(out, st.DB) {
			out = append(out, st.DB)
		}
	}
	return out
}

// Groups returns the steps of the scenario as they run: one step alone, or
// consecutive steps of one together group, as index ranges [from, to).
func (sc *Scenario) Groups() [][2]int {
	var out [][2]int
	for i := 0; i < len(sc.Steps); {
		j := i + 1
		if g := sc.Steps[i].Together; g != "" {
			for j < len(sc.Steps) && sc.Steps[j].Together == g {
				j++
			}
		}
		out = append(out, [2]int{i, j})
		i = j
	}
	return out
}

// parseVerbLine reads "VERB [key=value | flag]... [args ARG...]".
func parseVerbLine(line string) (Step, error) {
	toks, err := splitArgs(line)
	if err != nil {
		return Step{}, err
	}
	// Session and DB stay "" when not given: Scenario.resolve fills them in.
	st := Step{Verb: Verb(toks[0].text)}
	switch st.Verb {
	case Exec, Query, Prepare, Begin, Commit, Rollback, Recreate, Disconnect:
	default:
		return Step{}, fmt.Errorf("unknown verb %q (want exec, query, prepare, begin, commit, rollback, recreate or disconnect)", toks[0].text)
	}
	for j := 1; j < len(toks); j++ {
		t := toks[j]
		if t.quoted {
			return Step{}, fmt.Errorf("unexpected %s before args", t.text)
		}
		key, val, hasVal := strings.Cut(t.text, "=")
		switch {
		case key == "args" && !hasVal:
			for _, a := range toks[j+1:] {
				v, err := a.value()
				if err != nil {
					return Step{}, err
				}
				st.Args = append(st.Args, v)
			}
			if len(st.Args) == 0 {
				return Step{}, errors.New("args without arguments")
			}
			return st, nil
		case key == "session" && val != "":
			st.Session = val
		case key == "stmt" && val != "":
			st.Stmt = val
		case key == "dsn" && val != "":
			if _, err := url.ParseQuery(val); err != nil {
				return Step{}, fmt.Errorf("dsn=%s: %v", val, err)
			}
			st.DSN = val
		case key == "mode":
			if _, ok := execModes[val]; !ok {
				return Step{}, fmt.Errorf("unknown mode %q (want simple, exec, describe, cache_statement or cache_describe)", val)
			}
			st.Mode = val
		case key == "readonly" && !hasVal && st.Verb == Begin:
			st.ReadOnly = true
		case key == "per-row":
			st.PerRow = true
			if hasVal {
				st.PerRowCols = strings.Split(val, ",")
			}
		case key == "db" && val != "":
			st.DB = val
		case key == "together" && !hasVal:
			st.Together = "together"
		case key == "together" && val != "":
			st.Together = val
		case key == "differs" && !hasVal:
			st.Differs = true
		case (key == "ids" || key == "seen") && val != "":
			cols, err := parseIDCols(val)
			if err != nil {
				return Step{}, fmt.Errorf("%s=%s: %v", key, val, err)
			}
			if key == "ids" {
				st.IDs = append(st.IDs, cols...)
			} else {
				st.Seen = append(st.Seen, cols...)
			}
		default:
			return Step{}, fmt.Errorf("unknown option %q", t.text)
		}
	}
	return st, nil
}

// parseIDCols reads "COL[@SPACE],…".
func parseIDCols(val string) ([]IDCol, error) {
	var out []IDCol
	for _, c := range strings.Split(val, ",") {
		col, space, hasSpace := strings.Cut(c, "@")
		if col == "" || hasSpace && space == "" {
			return nil, errors.New("want COL or COL@SPACE, comma-separated")
		}
		if !hasSpace {
			space = col
		}
		out = append(out, IDCol{Col: col, Space: space})
	}
	return out, nil
}

// check rejects steps that cannot mean anything.
func (st *Step) check() error {
	if (st.IDs != nil || st.Seen != nil) && st.Verb != Query {
		return errors.New("ids= and seen= name columns of a query")
	}
	if st.PerRow && (st.IDs != nil || st.Seen != nil || st.Differs) {
		return errors.New("per-row does not go with ids=, seen= or differs")
	}
	switch st.Verb {
	case Recreate:
		if st.DB == "" || st.Session != "" || st.SQL != "" || st.Stmt != "" || st.Mode != "" || st.DSN != "" ||
			st.Args != nil || st.PerRow || st.Together != "" || st.Differs {
			return errors.New("recreate takes only db=NAME")
		}
	case Begin, Commit, Rollback:
		if st.SQL != "" || st.Stmt != "" || st.Mode != "" || st.Args != nil || st.PerRow {
			return fmt.Errorf("%s takes only session= (and begin readonly)", st.Verb)
		}
	case Disconnect:
		if st.SQL != "" || st.Stmt != "" || st.Mode != "" || st.DSN != "" || st.Args != nil || st.PerRow || st.Together != "" || st.Differs {
			return errors.New("disconnect takes only session= (or db=)")
		}
	case Prepare:
		if st.Stmt == "" || st.SQL == "" {
			return errors.New("prepare needs stmt=NAME and a statement")
		}
		if st.Mode != "" || st.Args != nil || st.PerRow {
			return errors.New("prepare takes only stmt= and session=")
		}
	case Exec, Query:
		if (st.Stmt == "") == (st.SQL == "") {
			return fmt.Errorf("%s needs either a statement or stmt=NAME (not both)", st.Verb)
		}
		if st.Stmt != "" && st.Mode != "" {
			return errors.New("mode= does not apply to a prepared statement")
		}
	}
	return nil
}

// Rewrite returns the file with every step's expectation replaced by the
// transcript of the same index (used by go test -update, with PostgreSQL's
// transcript). Comments and statements are kept byte for byte.
func (sc *Scenario) Rewrite(tr Transcript) []byte {
	var b bytes.Buffer
	next := 0
	for i, st := range sc.Steps {
		for _, l := range sc.lines[next:st.expectFrom] {
			b.WriteString(l)
			b.WriteByte('\n')
		}
		if i < len(tr) {
			b.WriteString(tr[i])
			b.WriteByte('\n')
		}
		next = st.expectTo
	}
	for _, l := range sc.lines[next:] {
		b.WriteString(l)
		b.WriteByte('\n')
	}
	return b.Bytes()
}

// token is a word of a verb line; quoted ones come from '…' with ” escapes.
type token struct {
	text   string
	quoted bool
}

func splitArgs(line string) ([]token, error) {
	var out []token
	r := bufio.NewReader(strings.NewReader(line))
	for {
		c, err := r.ReadByte()
		if err != nil {
			break
		}
		switch {
		case c == ' ' || c == '\t':
		case c == '\'':
			var s strings.Builder
			for {
				c, err := r.ReadByte()
				if err != nil {
					return nil, errors.New("unterminated quoted argument")
				}
				if c == '\'' {
					if n, err := r.Peek(1); err == nil && n[0] == '\'' {
						r.ReadByte()
						s.WriteByte('\'')
						continue
					}
					break
				}
				s.WriteByte(c)
			}
			out = append(out, token{s.String(), true})
		default:
			var s strings.Builder
			s.WriteByte(c)
			for {
				n, err := r.Peek(1)
				if err != nil || n[0] == ' ' || n[0] == '\t' {
					break
				}
				r.ReadByte()
				s.WriteByte(n[0])
			}
			out = append(out, token{s.String(), false})
		}
	}
	if len(out) == 0 {
		return nil, errors.New("empty verb line")
	}
	return out, nil
}

// value converts an argument: 'text' is a string, NULL is nil, true/false
// are booleans, anything else must be an integer.
func (t token) value() (any, error) {
	if t.quoted {
		return t.text, nil
	}
	switch strings.ToLower(t.text) {
	case "null":
		return nil, nil
	case "true":
		return true, nil
	case "false":
		return false, nil
	}
	n, err := strconv.ParseInt(t.text, 10, 64)
	if err != nil {
		return nil, fmt.Errorf("argument %q: want an integer, 'text', NULL, true or false", t.text)
	}
	return n, nil
}

// Expected returns the expectations of the steps as a transcript.
func (sc *Scenario) Expected() Transcript {
	tr := make(Transcript, len(sc.Steps))
	for i, st := range sc.Steps {
		tr[i] = st.Expect
	}
	return tr
}
