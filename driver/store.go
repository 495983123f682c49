package driver

import "github.com/seqshim/seqshim/internal/storeurl"

// openStore opens a store URL; a variable so tests can count opens.
var openStore = storeurl.Open

// redactURL hides the secrets of a store URL in error messages.
func redactURL(s string) string { return storeurl.Redact(s) }
