package conformance

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"net/url"
	"os"
	"path/filepath"
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
)

// DefaultSession is the session of a step without session=.
const DefaultSession = "a"

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

	expectFrom, expectTo int // line range of Expect in the file, 0-based, for -update
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
		for i < len(lines) && strings.TrimSpace(lines[i]) != "" {
			i++
		}
		st.expectTo = i
		st.Expect = strings.Join(lines[st.expectFrom:st.expectTo], "\n")
		if err := st.check(); err != nil {
			return nil, errf(st.Line-1, "%v", err)
		}
		sc.Steps = append(sc.Steps, st)
	}
	if len(sc.Steps) == 0 {
		return nil, fmt.Errorf("%w: %s: no steps", ErrSyntax, path)
	}
	return sc, nil
}

// parseVerbLine reads "VERB [key=value | flag]... [args ARG...]".
func parseVerbLine(line string) (Step, error) {
	toks, err := splitArgs(line)
	if err != nil {
		return Step{}, err
	}
	st := Step{Verb: Verb(toks[0].text), Session: DefaultSession}
	switch st.Verb {
	case Exec, Query, Prepare, Begin, Commit, Rollback:
	default:
		return Step{}, fmt.Errorf("unknown verb %q (want exec, query, prepare, begin, commit or rollback)", toks[0].text)
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
		default:
			return Step{}, fmt.Errorf("unknown option %q", t.text)
		}
	}
	return st, nil
}

// check rejects steps that cannot mean anything.
func (st *Step) check() error {
	switch st.Verb {
	case Begin, Commit, Rollback:
		if st.SQL != "" || st.Stmt != "" || st.Mode != "" || st.Args != nil || st.PerRow {
			return fmt.Errorf("%s takes only session= (and begin readonly)", st.Verb)
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
