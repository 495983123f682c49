package rewrite

import "strings"

// pivot marks the bytes the trigger scan stops at: the rare letters of the
// trigger words (x of next, q of sequence, v of currval, lastval, setval),
// the & of U&"…", an identifier that may spell a trigger word with escapes
// (U&"\006Eextval"('s') is a call of nextval), and the g of regclass (a
// regclass value may be a store sequence's).
var pivot = [256]bool{'x': true, 'X': true, 'q': true, 'Q': true, 'v': true, 'V': true, 'g': true, 'G': true, '&': true}

// pivots are the rare letters of the trigger words, in both cases, and &.
var pivots = [...]byte{'x', 'X', 'q', 'Q', 'v', 'V', 'g', 'G', '&'}

// shortScan is the length under which a plain byte loop beats searching
// the string once per pivot letter with the vectorised strings.IndexByte.
const shortScan = 48

// mayTrigger reports whether s contains a trigger word, in any case and
// anywhere (literals and comments included): next, currval, lastval, setval,
// sequence or regclass; or starts a statement with ALTER, CREATE, DROP, COMMENT,
// GRANT or REVOKE ([catalogWord]). Only strings with one can hold a
// sequence call, sequence DDL or table DDL with sequence defaults (serial
// and IDENTITY have no trigger word: CREATE is one); a U&"…" identifier
// counts too. It is the hot path of every statement: it looks for the
// pivot letters x, q and v (and &) and checks the words around them,
// without allocating.
func mayTrigger(s string) bool {
	return pivotScan(s) || catalogWord(s)
}

// pivotScan finds the trigger words of sequence calls and sequence DDL.
func pivotScan(s string) bool {
	if len(s) < shortScan {
		for i := 1; i < len(s); i++ {
			if pivot[s[i]] && triggerAt(s, i) {
				return true
			}
		}
		return false
	}
	for _, c := range pivots {
		for i := 0; ; i++ {
			j := strings.IndexByte(s[i:], c)
			if j < 0 {
				break
			}
			if i += j; triggerAt(s, i) {
				return true
			}
		}
	}
	return false
}

// triggerAt reports whether the pivot letter at i is part of a trigger
// word. It may say yes for other words too (firstval): that only costs a
// plan.
func triggerAt(s string, i int) bool {
	if s[i] == '&' { // U[&]"
		return i >= 1 && s[i-1]|0x20 == 'u' && i+1 < len(s) && s[i+1] == '"'
	}
	if i < 2 {
		return false
	}
	switch s[i] | 0x20 {
	case 'x': // ne[x]t
		return i+1 < len(s) && s[i-2]|0x20 == 'n' && s[i-1]|0x20 == 'e' && s[i+1]|0x20 == 't'
	case 'q': // se[q]uence
		return i+1 < len(s) && s[i-2]|0x20 == 's' && s[i-1]|0x20 == 'e' && s[i+1]|0x20 == 'u'
	case 'g': // re[g]class
		return i+5 < len(s) && s[i-2]|0x20 == 'r' && s[i-1]|0x20 == 'e' && s[i+1]|0x20 == 'c' && s[i+2]|0x20 == 'l' &&
			s[i+3]|0x20 == 'a' && s[i+4]|0x20 == 's' && s[i+5]|0x20 == 's'
	case 'v': // curr[v]al, last[v]al, set[v]al
		return i+2 < len(s) && s[i+1]|0x20 == 'a' && s[i+2]|0x20 == 'l' &&
			(s[i-1]|0x20 == 'r' && s[i-2]|0x20 == 'r' || s[i-1]|0x20 == 't' && (s[i-2]|0x20 == 's' || s[i-2]|0x20 == 'e'))
	}
	return false
}
