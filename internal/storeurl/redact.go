package storeurl

import (
	"net/url"
	"regexp"
	"strings"
)

// redacted replaces a secret in a redacted URL, as [url.URL.Redacted] does.
const redacted = "xxxxx"

// keywordPassword is password=… in a keyword/value DSN ("host=h password=p"),
// quoted or not; what follows a closing quote up to white space is hidden
// with it (libpq would refuse the DSN: no telling where the secret ends).
var keywordPassword = regexp.MustCompile(`(?i)\bpassword\s*=\s*('(?:[^'\\]|\\.)*'?\S*|\S*)`)

// Redact returns s, a store URL or a database URL or DSN, with its secrets
// replaced by xxxxx, for messages: the password of the user info
// (postgres://u:xxxxx@h/db), a password query parameter (pgx reads one), the
// same in a URL given as a query value (a dynamodb:// endpoint), and
// password=… in a keyword/value DSN. A URL that does not parse still has the
// user info's password hidden. s without a secret is returned as it is.
func Redact(s string) string {
	u, err := url.Parse(s)
	if err != nil {
		r := redactUnparsed(s)
		if _, err := url.Parse(r); err == nil && r != s {
			// Hiding made it a URL (a stray % was in the password):
			// what it shows now is redacted as a URL's, so that Redact
			// of its own output changes nothing.
			return Redact(r)
		}
		return r
	}
	if u.Scheme == "" && u.User == nil {
		return keywordPassword.ReplaceAllString(s, "password="+redacted)
	}
	changed := false
	if pw, ok := u.User.Password(); ok && pw != redacted { // hidden already: as it is
		u.User = url.UserPassword(u.User.Username(), redacted)
		changed = true
	}
	if u.RawQuery != "" {
		if q, err := url.ParseQuery(u.RawQuery); err == nil && redactQuery(q) {
			u.RawQuery = q.Encode()
			changed = true
		}
	}
	out := s
	if changed {
		out = u.String()
	}
	if u.Scheme == "" {
		// No scheme, yet user info (//u:p@h): a keyword/value DSN may
		// follow all the same.
		out = keywordPassword.ReplaceAllString(out, "password="+redacted)
	}
	return out
}

// redactQuery redacts the values of q in place and reports whether any
// changed.
func redactQuery(q url.Values) bool {
	changed := false
	for k, vs := range q {
		for i, v := range vs {
			r := v
			switch {
			case strings.EqualFold(k, "password"):
				r = redacted
			case strings.Contains(v, "://"):
				r = Redact(v)
			}
			if r != v {
				vs[i], changed = r, true
			}
		}
	}
	return changed
}

// redactUnparsed hides the password of SCHEME://USER:PASSWORD@… in a URL
// url.Parse rejects (a password with an unescaped / or %, say), taking the
// user info to end at the last @: better too much hidden than too little.
func redactUnparsed(s string) string {
	scheme, rest, ok := strings.Cut(s, "://")
	if !ok {
		return keywordPassword.ReplaceAllString(s, "password="+redacted)
	}
	at := strings.LastIndex(rest, "@")
	if at < 0 {
		return s
	}
	user, _, hasPassword := strings.Cut(rest[:at], ":")
	if !hasPassword {
		return s
	}
	return scheme + "://" + user + ":" + redacted + rest[at:]
}
