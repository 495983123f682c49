// Package testkit is the folder of seqshim's test scaffolding, kept apart
// from the product's own internals (internal/engine, internal/storeurl). Its
// packages are imported by tests, and by the benchmark command (bench), never
// by the library:
//
//   - testenv: the real components scripts/test starts (PostgreSQL 15,
//     dynalite), skipping or failing a test without them, and the suites'
//     summary lines.
//   - fakedriver: an in-memory database/sql driver that records what
//     reaches it, for the driver's tests and examples.
//   - fakepg: a PostgreSQL server in process, answering as the messages
//     are written, for measuring what a front end costs in process
//     (bench, pgxseq's benchmarks).
//   - faultstore: a store wrapper that injects failures, for tests of callers
//     that must survive a failing store.
//   - torture: the proxy, worker loop, records and checker of the uniqueness
//     torture test (conformance/torture_test.go).
//
// The store contract suite is not here: it is public, in package
// sequence/storetest, so that a store written outside this repository can
// run it.
package testkit
