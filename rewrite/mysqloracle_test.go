package rewrite

import (
	"strings"

	"github.com/xwb1989/sqlparser"
)

// mysqlPerRow is the tests' second opinion on the MySQL dialect, from a
// real MySQL parser: it says why a sequence function in text is evaluated
// once per row, or "" if it finds none or cannot parse the text (x.NEXTVAL
// and NEXT VALUE FOR are not MySQL syntax it knows). The planner's own
// reading must refuse every text it finds per-row: FuzzPlanMySQL checks
// it. (It was a second opinion inside the planner until no input could be
// found, by fuzzing, where it caught what the lexer did not; it cost the
// driver's binary half a megabyte.)
func mysqlPerRow(text string) (why string) {
	stmt, ok := mysqlParse(text)
	if !ok {
		return ""
	}
	switch n := stmt.(type) {
	case *sqlparser.Update:
		if hasSeqFunc(n) {
			return "in UPDATE"
		}
	case *sqlparser.Delete:
		if hasSeqFunc(n) {
			return "in DELETE"
		}
	case *sqlparser.Insert:
		if values, ok := n.Rows.(sqlparser.Values); (!ok || len(values) > 1) && hasSeqFunc(n.OnDup) {
			return "in the ON DUPLICATE KEY UPDATE clause of an INSERT of several rows"
		}
	}
	_ = sqlparser.Walk(func(node sqlparser.SQLNode) (bool, error) {
		if sel, ok := node.(*sqlparser.Select); ok && why == "" && hasFrom(sel) && hasSeqFunc(sel) {
			why = "over the rows of its SELECT's FROM clause"
		}
		return why == "", nil
	}, stmt)
	return why
}

// mysqlParse parses text with sqlparser, which panics on some inputs (an
// empty /*!*/ comment): a parser bug must not take the driver down.
func mysqlParse(text string) (stmt sqlparser.Statement, ok bool) {
	defer func() {
		if recover() != nil {
			stmt, ok = nil, false
		}
	}()
	stmt, err := sqlparser.ParseStrictDDL(text)
	return stmt, err == nil
}

// hasFrom reports whether a SELECT reads a table other than DUAL.
func hasFrom(sel *sqlparser.Select) bool {
	for _, te := range sel.From {
		if a, ok := te.(*sqlparser.AliasedTableExpr); ok {
			if t, ok := a.Expr.(sqlparser.TableName); ok && t.Qualifier.IsEmpty() && strings.EqualFold(t.Name.String(), "dual") {
				continue
			}
		}
		return true
	}
	return false
}

// hasSeqFunc reports whether a sequence function is called under node.
func hasSeqFunc(node sqlparser.SQLNode) bool {
	found := false
	_ = sqlparser.Walk(func(n sqlparser.SQLNode) (bool, error) {
		if f, ok := n.(*sqlparser.FuncExpr); ok {
			if _, ok := seqFuncs[f.Name.Lowered()]; ok {
				found = true
			}
		}
		return !found, nil
	}, node)
	return found
}
