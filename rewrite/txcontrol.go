package rewrite

import "strings"

// TxOp is a transaction-control statement: what a session holding sequence
// DDL for its transaction must see before the database does.
type TxOp uint8

// Transaction-control statements of PostgreSQL.
const (
	TxNone       TxOp = iota // not transaction control
	TxBegin                  // BEGIN, START TRANSACTION
	TxCommit                 // COMMIT, END (also … AND CHAIN)
	TxRollback               // ROLLBACK, ABORT (also … AND CHAIN)
	TxSavepoint              // SAVEPOINT name
	TxRelease                // RELEASE [SAVEPOINT] name
	TxRollbackTo             // ROLLBACK [WORK | TRANSACTION] TO [SAVEPOINT] name
	TxPrepare                // PREPARE TRANSACTION 'id'
)

// TxControl is one statement's transaction control.
type TxControl struct {
	Op        TxOp
	Savepoint string // the savepoint's name, folded as PostgreSQL folds it, for the savepoint statements
}

// txControl classifies one statement's tokens.
func txControl(l *lexer, toks []token) TxControl {
	if len(toks) == 0 {
		return TxControl{}
	}
	word := func(i int, ws ...string) bool { return l.isAt(toks, i, ws...) }
	// name returns the savepoint name at i, skipping an optional SAVEPOINT.
	name := func(i int) string {
		if word(i, "savepoint") && i+1 < len(toks) {
			i++
		}
		if i >= len(toks) {
			return ""
		}
		return identName(l, toks[i])
	}
	switch {
	case word(0, "begin"), word(0, "start") && word(1, "transaction"):
		return TxControl{Op: TxBegin}
	case word(0, "commit", "end"):
		if word(1, "prepared") {
			return TxControl{} // COMMIT PREPARED: not of this session's transaction
		}
		return TxControl{Op: TxCommit}
	case word(0, "abort"):
		return TxControl{Op: TxRollback}
	case word(0, "rollback"):
		i := 1
		if word(i, "prepared") {
			return TxControl{}
		}
		if word(i, "work", "transaction") {
			i++
		}
		if word(i, "to") {
			return TxControl{Op: TxRollbackTo, Savepoint: name(i + 1)}
		}
		return TxControl{Op: TxRollback}
	case word(0, "savepoint"):
		return TxControl{Op: TxSavepoint, Savepoint: name(1)}
	case word(0, "release"):
		return TxControl{Op: TxRelease, Savepoint: name(1)}
	case word(0, "prepare") && word(1, "transaction"):
		return TxControl{Op: TxPrepare}
	}
	return TxControl{}
}

// identName is an identifier as PostgreSQL names it: an unquoted one folded
// to lower case, a quoted one as written.
func identName(l *lexer, t token) string {
	switch t.kind {
	case tIdent:
		return strings.ToLower(l.text(t))
	case tQIdent:
		s := l.text(t)
		if len(s) >= 2 {
			return strings.ReplaceAll(s[1:len(s)-1], `""`, `"`)
		}
	}
	return l.text(t)
}
