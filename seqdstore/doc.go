// Package seqdstore is the client store of the sequence service (package
// seqd, command seqd): a sequence.Store whose every operation is a call to
// the service, so a fleet draws through servers that cache blocks in front
// of the real store. Importing it registers the store URL schemes seqd://
// (TLS) and seqd+http:// (plain HTTP) with the driver, the pgx front end
// and seqctl:
//
//	import (
//		_ "github.com/seqshim/seqshim/driver"
//		_ "github.com/seqshim/seqshim/seqdstore" // seqd:// store URLs
//	)
//
//	db, err := sql.Open("seqshim", "postgres://app@db/app?seqshim.store=seqd%3A%2F%2Fseqd.internal%3A7443")
//
// The driver does not import it, so a program that uses only the direct
// stores does not link the service's RPC stack (connectrpc.com/connect and
// protobuf).
//
// The bearer token comes from the URL's password (seqd://:TOKEN@HOST:PORT),
// token_file=PATH or $SEQD_TOKEN; ca=PATH names the CA certificates of a
// server with a private certificate. Reservations carry a fresh token each
// (a retry gets the same block), the last value received (so that values
// keep increasing across servers), and a tail given back carries its
// reservation's token. A refused token or permission is a configuration
// error (sequence.ErrMisconfigured), a client's rate limit is throttling
// (sequence.ErrThrottled), and a store's error comes back as the store's
// *sequence.Error: the same SQLSTATE and message.
package seqdstore
