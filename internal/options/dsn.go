package options

import (
	"fmt"
	"net/url"
	"slices"
	"strings"

	"github.com/seqshim/seqshim/internal/storeurl"
)

// Param is one seqshim.* parameter taken out of a DSN.
type Param struct{ Key, Value string }

// SplitDSN removes the seqshim.* parameters from a DSN and returns the rest,
// byte for byte, for the inner driver. It understands URL DSNs
// (postgres://…?seqshim.store=…, and anything with a ?query such as
// file:x.db?… or user@tcp(h)/db?…) and PostgreSQL keyword/value DSNs
// (host=h seqshim.store=memory:).
func SplitDSN(dsn string) (string, []Param, error) {
	if !strings.Contains(dsn, paramPrefix) {
		return dsn, nil, nil // the common case: nothing to do
	}
	if IsKeywordValue(dsn) {
		return splitKeywordValue(dsn)
	}
	return splitQuery(dsn)
}

// IsKeywordValue reports whether dsn looks like libpq's keyword/value form:
// its first token is a bare keyword followed by '='.
func IsKeywordValue(dsn string) bool {
	s := strings.TrimLeft(dsn, " \t\n\r")
	i := 0
	for i < len(s) && (isWordByte(s[i]) || s[i] == '.') {
		i++
	}
	if i == 0 {
		return false
	}
	s = strings.TrimLeft(s[i:], " \t\n\r")
	return strings.HasPrefix(s, "=")
}

func isWordByte(c byte) bool {
	return c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '_'
}

// splitQuery removes seqshim.* pairs from the query string after the first
// '?'. Values are URL-decoded: a store URL with its own query must be
// escaped (seqshim.store=dynamodb%3A%2F%2Ft%3Fregion%3Dr).
func splitQuery(dsn string) (string, []Param, error) {
	q := strings.IndexByte(dsn, '?')
	if q < 0 {
		return dsn, nil, nil
	}
	query, fragment := dsn[q+1:], ""
	if h := strings.IndexByte(query, '#'); h >= 0 {
		query, fragment = query[:h], query[h:]
	}
	var kept []string
	var out []Param
	for _, pair := range strings.Split(query, "&") {
		k, v, _ := strings.Cut(pair, "=")
		key, err := url.QueryUnescape(k)
		if err != nil || !strings.HasPrefix(key, paramPrefix) {
			if pair != "" {
				kept = append(kept, pair)
			}
			continue
		}
		val, err := url.QueryUnescape(v)
		if err != nil {
			return "", nil, fmt.Errorf("seqshim: DSN parameter %s: %w", key, err)
		}
		out = append(out, Param{key, val})
	}
	if len(out) == 0 {
		return dsn, nil, nil // "seqshim." elsewhere (a value, the fragment): nothing to take out
	}
	if err := misplacedStoreParams(dsn[:q], kept, out, fragment); err != nil {
		return "", nil, err
	}
	inner := dsn[:q]
	if len(kept) > 0 {
		inner += "?" + strings.Join(kept, "&")
	}
	return inner + fragment, out, nil
}

// storeOnlyParams are parameters of store URLs (dynamodb://…?region, endpoint,
// prefix; sqlite: and postgres:// stores' table) that no database takes.
var storeOnlyParams = []string{"region", "endpoint", "prefix", "table"}

// misplacedStoreParams catches a store URL written unencoded inside a URL
// DSN: postgres://h/db?seqshim.store=dynamodb://t?region=r&endpoint=e splits
// at the '&', and endpoint would reach PostgreSQL as a setting it does not
// know. The error shows the DSN with the store URL percent-encoded (the
// password hidden).
func misplacedStoreParams(base string, kept []string, params []Param, fragment string) error {
	store := -1
	for i, p := range params {
		if p.Key == "seqshim.store" {
			store = i
		}
	}
	if store < 0 {
		return nil
	}
	var moved, rest, names []string
	for _, pair := range kept {
		k, _, _ := strings.Cut(pair, "=")
		if key, err := url.QueryUnescape(k); err == nil && slices.Contains(storeOnlyParams, strings.ToLower(key)) {
			moved = append(moved, pair)
			names = append(names, key)
			continue
		}
		rest = append(rest, pair)
	}
	if len(moved) == 0 {
		return nil
	}
	storeURL := params[store].Value
	sep := "?"
	if strings.Contains(storeURL, "?") {
		sep = "&"
	}
	storeURL += sep + strings.Join(moved, "&")
	fixed := storeurl.Redact(base) + "?" + strings.Join(append(rest, "seqshim.store="+url.QueryEscape(storeURL)), "&")
	var others strings.Builder
	for _, p := range params {
		if p.Key != "seqshim.store" {
			others.WriteString("&" + url.QueryEscape(p.Key) + "=" + url.QueryEscape(p.Value))
		}
	}
	return fmt.Errorf("seqshim: DSN parameter %s belongs to the store URL in seqshim.store, not to the database: "+
		"percent-encode the store URL inside the DSN, as in %s%s%s (or set SEQSHIM_STORE=%s)",
		strings.Join(names, ", "), fixed, others.String(), fragment, storeurl.Redact(storeURL))
}

// splitKeywordValue removes seqshim.* settings from a keyword/value DSN,
// keeping every other byte. Values follow libpq's rules: bare up to
// whitespace, or 'single-quoted', with backslash escapes in both.
func splitKeywordValue(dsn string) (string, []Param, error) {
	var inner strings.Builder
	var out []Param
	i := 0
	for i < len(dsn) {
		start := i
		for i < len(dsn) && isSpace(dsn[i]) {
			i++
		}
		if i == len(dsn) {
			inner.WriteString(dsn[start:])
			break
		}
		ks := i
		for i < len(dsn) && dsn[i] != '=' && !isSpace(dsn[i]) {
			i++
		}
		key := dsn[ks:i]
		for i < len(dsn) && isSpace(dsn[i]) {
			i++
		}
		if i == len(dsn) || dsn[i] != '=' {
			return "", nil, fmt.Errorf("seqshim: invalid keyword/value DSN: missing \"=\" after %q", key)
		}
		if key == "" {
			// libpq refuses it too (invalid connection option ""); read
			// on, the next setting would be taken for its value.
			return "", nil, fmt.Errorf("seqshim: invalid keyword/value DSN: \"=\" without a keyword at offset %d", i)
		}
		i++
		for i < len(dsn) && isSpace(dsn[i]) {
			i++
		}
		var val strings.Builder
		if i < len(dsn) && dsn[i] == '\'' {
			i++
			closed := false
			for i < len(dsn) {
				c := dsn[i]
				if c == '\\' && i+1 < len(dsn) {
					val.WriteByte(dsn[i+1])
					i += 2
					continue
				}
				i++
				if c == '\'' {
					closed = true
					break
				}
				val.WriteByte(c)
			}
			if !closed {
				return "", nil, fmt.Errorf("seqshim: invalid keyword/value DSN: unterminated quoted value of %q", key)
			}
		} else {
			for i < len(dsn) && !isSpace(dsn[i]) {
				c := dsn[i]
				if c == '\\' && i+1 < len(dsn) {
					c = dsn[i+1]
					i++
				}
				val.WriteByte(c)
				i++
			}
		}
		if strings.HasPrefix(key, paramPrefix) {
			out = append(out, Param{key, val.String()})
			continue
		}
		inner.WriteString(dsn[start:i])
	}
	return strings.TrimLeft(inner.String(), " \t\n\r"), out, nil
}

func isSpace(c byte) bool {
	return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\f' || c == '\v'
}
