// Package torture is the machinery of seqshim's uniqueness torture test
// (conformance/torture_test.go): a fault-injecting HTTP proxy between the
// processes and the store, the worker loop a child process runs, the record
// every child writes of the values it was handed, and the checker that reads
// those records back.
//
// # Basics
//
// [StartProxy] listens on 127.0.0.1 and forwards to one upstream (dynalite).
// Per request it may, at random ([Faults]), reset the connection before
// forwarding (nothing applied), delay the request, or forward it and then
// close the connection instead of answering (applied, but the caller never
// learns it: the ambiguous case a store must treat as a gap). [Proxy.SetMode]
// stops the store altogether: connections refused (reset at once) or
// blackholed (held unanswered until the caller gives up).
//
// A child process draws values with [Draw] and writes each one to its
// [Recorder] right after the call returned. [ReadRecord] and [Check] read
// the records of every process incarnation and count duplicates (across all
// processes), values going backwards within one incarnation, values outside
// what the store issued, and the waste.
//
// # Caveats
//
//   - The upstream request is never cancelled mid-flight (dynalite dies when a
//     client aborts a request): the proxy reads the whole request first and
//     forwards it detached from the caller's connection.
//   - [Check] understands ascending sequences with increment 1 only, which is
//     what the torture test creates.
package torture
