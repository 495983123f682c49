// Package otel tests seqshim's operations surface with the real
// OpenTelemetry SDK, which stays out of seqshim's own go.mod: every metric
// instrument read through the SDK's ManualReader and checked against what a
// workload did (served equals the calls made; reserved − served equals
// remaining) and against a store outage (store errors, waits, logs);
// statistics through an otelsql-wrapped *sql.DB with every connection
// checked out; and BenchmarkNext, the hot path with the SDK installed.
package otel
