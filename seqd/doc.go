// Package seqd is the sequence service: a server between many thick
// clients and one store, so that a fleet of hundreds of thousands of
// processes, in any language, draws from the same counters without
// hammering one store item.
//
// A [Server] keeps its own block cache (package seqcache) per counter in
// front of any store — DynamoDB, a PostgreSQL table, SQLite — sized to the
// values all its clients take together (rate × buffer, throttle-aware), so
// the store sees writes in proportion to total demand, not to the number of
// clients; a start-up storm of clients is served from that cache. Several
// servers run side by side behind one address: each reserves its own
// blocks, which never overlap. [Server.Close] hands unused values back.
//
// The API (proto/seqshim/seqd/v1/seqd.proto; generated code in seqdv1) is
// served over gRPC, gRPC-Web and the Connect protocol by
// connectrpc.com/connect, so a plain HTTP/JSON POST works:
//
//	curl -H 'Authorization: Bearer TOKEN' -H 'Content-Type: application/json' \
//	  -d '{"name":"orders_seq","count":"100","token":"5f0c…"}' \
//	  https://seqd.internal:7443/seqshim.seqd.v1.SequenceService/Reserve
//
// Reservations are idempotent: a retry with the same token gets the same
// block. Clients authenticate with bearer tokens over TLS; each
// [Credential] allows sequence-name prefixes, operations (reserve, admin)
// and a rate limit. Go programs use the client store, package
// github.com/seqshim/seqshim/seqd/client, through a store URL
// (seqd://HOST:PORT): the driver, the pgx front end and seqctl take it
// like any other store.
package seqd
