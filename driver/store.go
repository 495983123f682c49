package driver

import (
	"net/url"

	"github.com/seqshim/seqshim/internal/storeurl"
)

// openStore opens a store URL; a variable so tests can count opens.
var openStore = storeurl.Open

// redactURL hides a password in a store URL for error messages.
func redactURL(s string) string {
	u, err := url.Parse(s)
	if err != nil || u.User == nil {
		return s
	}
	return u.Redacted()
}
