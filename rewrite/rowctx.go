package rewrite

import (
	"strings"
)

// next returns the next token index at the same parenthesis level.
func (s *stmt) next(i int) int {
	if s.punct(i, '(') {
		return s.match[i] + 1
	}
	return i + 1
}

func (s *stmt) isAny(i int, words ...string) bool {
	for _, w := range words {
		if s.is(i, w) {
			return true
		}
	}
	return false
}

// word returns the lower-case keyword at token i, or "".
func (s *stmt) word(i int) string {
	if s.tok(i).kind != tIdent {
		return ""
	}
	return strings.ToLower(s.text(i))
}

// groupWord returns the keyword a group starts with: select, insert, …
func (s *stmt) groupWord(g int) string {
	if g == 0 {
		w, _ := s.verb()
		return w
	}
	return s.word(s.grps[g].open + 1)
}

func isQueryWord(w string) bool {
	switch w {
	case "select", "values", "table", "with", "insert", "replace", "update", "delete", "merge":
		return true
	}
	return false
}

// clauseWords end a select list.
var clauseWords = []string{"from", "where", "group", "having", "order", "limit", "offset",
	"union", "intersect", "except", "window", "fetch", "for", "into", "returning", "on"}

// perRow says why the call starting at token ts is evaluated once per row,
// or "" if it is evaluated once per execution (as far as the planner can
// tell: it errs on the side of rejecting).
func (s *stmt) perRow(ts int) string {
	g, pos := s.group[ts], ts
	for {
		if why := s.levelCheck(g, pos); why != "" {
			return why
		}
		if g == 0 {
			return ""
		}
		pos, g = s.grps[g].open, s.grps[g].parent
	}
}

// levelCheck examines the query level of group g for position pos, a token
// at that level.
func (s *stmt) levelCheck(g, pos int) string {
	start, end := s.grps[g].open+1, s.grps[g].close
	switch w := s.groupWord(g); w {
	case "select", "values", "table", "with":
		return s.queryRules(g, start, end, pos)
	case "insert", "replace":
		if g == 0 {
			_, start = s.verb()
		}
		return s.insertRules(g, start, end, pos)
	case "update", "delete":
		return "in " + strings.ToUpper(w)
	case "merge":
		if g == 0 && s.inOneRowMergeInsert(pos) {
			return "" // once: the one row of the source, if it does not match
		}
		return "in MERGE"
	}
	return ""
}

// inOneRowMergeInsert reports whether token pos is in the VALUES row of an
// INSERT action of the statement's MERGE, whose source gives one row at
// most (stmt.oneRowSource): PostgreSQL evaluates it once, or not at all.
func (s *stmt) inOneRowMergeInsert(pos int) bool {
	_, i := s.verb()
	if !s.is(i, "merge") || !s.is(i+1, "into") {
		return false
	}
	_, _, j, ok := s.target(i + 2)
	if !ok || !s.oneRowSource(j) {
		return false
	}
	for k := j; k+1 < len(s.toks); k++ {
		if s.group[k] != 0 || !s.is(k, "then") || !s.is(k+1, "insert") {
			continue
		}
		v := k + 2
		if s.punct(v, '(') {
			v = s.match[v] + 1
		}
		if s.is(v, "overriding") {
			v += 3
		}
		if s.is(v, "values") && s.punct(v+1, '(') && v+1 <= pos && pos < s.match[v+1] {
			return true
		}
	}
	return false
}

// queryRules examines a query (SELECT, VALUES, WITH, set operations) at the
// level of group g spanning tokens [start, end).
func (s *stmt) queryRules(g, start, end, pos int) string {
	if s.is(start, "with") {
		mv := -1
		for i := start + 1; i < end; i = s.next(i) {
			if s.isAny(i, "select", "values", "table", "insert", "replace", "update", "delete", "merge") {
				mv = i
				break
			}
		}
		if mv < 0 || pos < mv {
			return "" // in a WITH query: evaluated once
		}
		switch w := s.word(mv); w {
		case "insert", "replace":
			return s.insertRules(g, mv, end, pos)
		case "update", "delete", "merge":
			return "in " + strings.ToUpper(w)
		}
		start = mv
	}
	bs, be := start, end
	for i := start; i < end; i = s.next(i) {
		if s.isAny(i, "union", "intersect", "except") {
			if i > pos {
				be = i
				break
			}
			bs = i + 1
		}
	}
	for s.isAny(bs, "all", "distinct") {
		bs++
	}
	if !s.is(bs, "select") {
		return ""
	}
	return s.selectRules(g, bs, be, pos)
}

// selectRules examines one SELECT block [bs, be) at the level of group g
// for position pos, a token at that level.
func (s *stmt) selectRules(g, bs, be, pos int) string {
	for i := bs + 1; i < be; i = s.next(i) {
		if !s.is(i, "from") || s.is(i-1, "distinct") && s.isAny(i-2, "is", "not") {
			continue
		}
		if s.l.d == MySQL && s.is(i+1, "dual") && (i+2 >= be || s.isAny(i+2, clauseWords...)) {
			continue // FROM DUAL is one row
		}
		if s.soleDerived(i, be, pos) {
			// The block scans its only FROM item once: the subquery's
			// own rules (and the levels above this block) decide.
			return ""
		}
		return "over the rows of its SELECT's FROM clause"
	}
	for i := bs + 1; i < be; i++ {
		if s.tok(i).kind == tIdent && setReturning[strings.ToLower(s.text(i))] && s.punct(i+1, '(') && s.atLevel(i, g) {
			return "as the set-returning function " + s.text(i) + " in the same SELECT multiplies its rows"
		}
	}
	return ""
}

// soleDerived reports whether pos opens a subquery that is the only item
// of the FROM clause at token from, in a SELECT block ending at be:
// FROM (query) [AS] alias [(columns)], followed by the end of the block or
// a clause (WHERE, GROUP BY, ORDER BY, …), no join and no other item.
// PostgreSQL scans such a subquery once per execution of the block, so a
// call in it is evaluated once unless the subquery itself multiplies it
// (a FROM, a set-returning function of its own) or the block is run again
// (a level above decides); with a join, the subquery may be rescanned for
// every row of another item.
func (s *stmt) soleDerived(from, be, pos int) bool {
	if s.l.d != Postgres || pos != from+1 || !s.punct(pos, '(') || s.match[pos] >= be {
		return false
	}
	switch s.word(pos + 1) {
	case "select", "values", "table", "with":
	default:
		return false
	}
	k := s.match[pos] + 1
	switch {
	case s.is(k, "as") && s.isName(k+1):
		k += 2
	case s.isName(k) && !s.isAny(k, clauseWords...) && !s.isAny(k, joinWords...):
		k++
	}
	// Without an alias, PostgreSQL 15 refuses the statement with its own
	// 42601, after the values are drawn, as for its other syntax errors.
	if k > s.match[pos]+1 && s.punct(k, '(') {
		k = s.match[k] + 1 // the alias's column names
	}
	return k == be || s.isAny(k, clauseWords...) && !s.is(k, "on")
}

// joinWords start a join after a FROM item.
var joinWords = []string{"join", "cross", "natural", "inner", "left", "right", "full"}

// atLevel reports whether token i belongs to the query of group g: no
// subquery lies between them.
func (s *stmt) atLevel(i, g int) bool {
	for h := s.group[i]; h != g && h > 0; h = s.grps[h].parent {
		if isQueryWord(s.groupWord(h)) {
			return false
		}
	}
	return true
}

// insertRules examines INSERT (verb at token vi) at the level of group g.
func (s *stmt) insertRules(g, vi, end, pos int) string {
	src, kind := -1, ""
	on, ret := end, end
	for i := vi + 1; i < end; i = s.next(i) {
		switch {
		case src < 0 && s.isAny(i, "values", "value", "select", "with", "default", "set", "table"):
			src, kind = i, s.word(i)
		case src < 0 && s.punct(i, '(') && i+1 < end && isQueryWord(s.word(i+1)):
			src, kind = i, "query"
		case s.is(i, "on") && on == end && src >= 0:
			on = i
		case s.is(i, "returning") && ret == end:
			ret = i
		}
	}
	rows := 0
	switch kind {
	case "values", "value":
		for i := src + 1; i < min(on, ret); i = s.next(i) {
			if s.punct(i, '(') {
				rows++
			}
		}
	case "default", "set":
		rows = 1
	}
	tail := min(on, ret)
	if pos >= tail {
		if rows == 1 {
			return ""
		}
		clause := "ON CONFLICT"
		if pos >= ret {
			clause = "RETURNING"
		}
		return "in the " + clause + " clause of an INSERT of several rows"
	}
	if (kind == "select" || kind == "with") && pos >= src {
		return s.queryRules(g, src, tail, pos)
	}
	return ""
}

// setReturning are PostgreSQL's common set-returning functions.
var setReturning = map[string]bool{
	"generate_series": true, "generate_subscripts": true, "unnest": true,
	"json_array_elements": true, "jsonb_array_elements": true,
	"json_array_elements_text": true, "jsonb_array_elements_text": true,
	"json_each": true, "jsonb_each": true, "json_each_text": true, "jsonb_each_text": true,
	"json_object_keys": true, "jsonb_object_keys": true,
	"json_to_recordset": true, "jsonb_to_recordset": true,
	"json_populate_recordset": true, "jsonb_populate_recordset": true,
	"jsonb_path_query": true, "regexp_matches": true, "regexp_split_to_table": true,
	"string_to_table": true, "pg_ls_dir": true, "pg_listening_channels": true,
}

// local matches a statement made of sequence calls only:
// SELECT call [::int8] [[AS] alias], … [FROM generate_series(a, b) [[AS] alias[(col)]]].
func (s *stmt) local() (cols []string, series *Series, ok bool) {
	if !s.is(0, "select") {
		return nil, nil, false
	}
	i := 1
	for k := 0; ; k++ {
		if k >= len(s.found) || s.found[k].ts != i {
			return nil, nil, false
		}
		f := s.found[k]
		i = f.te
		for s.tok(i).kind == tCast && s.isAny(i+1, "int8", "bigint") {
			i += 2
		}
		col := f.column
		if s.l.d != Postgres {
			col = s.src(f.ts, i) // MySQL and SQLite name a column by its text
		}
		switch {
		case s.is(i, "as") && s.isName(i+1):
			col, i = s.aliasName(i+1), i+2
		case s.isName(i) && !s.isAny(i, clauseWords...):
			col, i = s.aliasName(i), i+1
		}
		cols = append(cols, col)
		if s.punct(i, ',') {
			i++
			continue
		}
		if k+1 != len(s.found) {
			return nil, nil, false
		}
		break
	}
	if i == len(s.toks) {
		return cols, nil, true
	}
	if !s.is(i, "from") {
		return nil, nil, false
	}
	i++
	if s.l.d == MySQL && s.is(i, "dual") && i+1 == len(s.toks) {
		return cols, nil, true
	}
	if s.is(i, "pg_catalog") && s.punct(i+1, '.') {
		i += 2
	}
	if !s.is(i, "generate_series") || !s.punct(i+1, '(') || s.match[i+1] >= len(s.toks) {
		return nil, nil, false
	}
	args := s.args(i+1, s.match[i+1])
	if len(args) != 2 {
		return nil, nil, false
	}
	a, okA := s.intOperand(args[0])
	b, okB := s.intOperand(args[1])
	if !okA || !okB {
		return nil, nil, false
	}
	i = s.match[i+1] + 1
	if s.is(i, "as") {
		i++
		if !s.isName(i) {
			return nil, nil, false
		}
	}
	if s.isName(i) && !s.isAny(i, clauseWords...) {
		i++
		if s.punct(i, '(') {
			if s.match[i] != i+2 || !s.isName(i+1) {
				return nil, nil, false
			}
			i += 3
		}
	}
	if i != len(s.toks) {
		return nil, nil, false
	}
	return cols, &Series{Start: a, End: b}, true
}

// aliasName is the column name an alias gives: PostgreSQL folds unquoted
// names to lower case, MySQL and SQLite keep them as written.
func (s *stmt) aliasName(i int) string {
	txt := s.text(i)
	if s.tok(i).kind == tIdent {
		if s.l.d == Postgres {
			return strings.ToLower(txt)
		}
		return txt
	}
	switch txt[0] {
	case '"':
		return strings.ReplaceAll(txt[1:len(txt)-1], `""`, `"`)
	case '`':
		return strings.ReplaceAll(txt[1:len(txt)-1], "``", "`")
	case '[':
		return txt[1 : len(txt)-1]
	}
	return txt // U&"…": left as written
}

// aliases gives a rewritten call that is a whole select item, or inside
// one with only parentheses and casts around it, the column name the
// database would have given the call, so that replacing it by a value does
// not rename the column. In PostgreSQL this holds at every query level (a
// scalar subquery's column names the outer column); in MySQL and SQLite only
// for a bare call in the top-level select list.
func (s *stmt) aliases(calls []Call) {
	for k, f := range s.found {
		a, b := s.item(f.ts, f.te)
		if s.l.d != Postgres && s.group[a] != 0 || s.hasAlias(b) || !s.selectItem(a, b) {
			continue
		}
		var alias string
		switch s.l.d {
		case Postgres:
			alias = aliasFor(f.column)
		case MySQL:
			alias = quoteAlias(s.src(f.ts, f.te), '`')
		case SQLite:
			alias = quoteAlias(s.src(f.ts, f.te), '"')
		}
		if alias == "" {
			continue
		}
		at := s.toks[b-1].end - s.sp.start
		if end := at + s.sp.start; end < len(s.l.s) && isIdentCont(s.l.s[end]) {
			alias += " " // keep it apart from a word that follows without space
		}
		calls[k].alias, calls[k].aliasAt = alias, at
	}
}

// quoteAlias quotes a call's text as a column alias, or returns "" when the
// text holds anything that would need more than plain quoting.
func quoteAlias(text string, q byte) string {
	if strings.ContainsAny(text, "\n\r\\#`\"") || strings.Contains(text, "--") || strings.Contains(text, "/*") {
		return ""
	}
	return string(q) + text + string(q)
}
