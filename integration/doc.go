// Package integration is the root of seqshim's integration module: a
// separate Go module (integration/go.mod, replace github.com/seqshim/seqshim
// => ../) so that the ORMs and tools it exercises never enter seqshim's own
// go.mod.
//
//   - recipes: seqshim under sqlx, GORM, bun and ent, as examples that run
//     against PostgreSQL;
//   - ent: the code ent generates for the ent recipe (go generate ./ent);
//   - migrate: goose runs migrations through seqshim; a failed one
//     leaves no sequence in the store, and its retry succeeds;
//   - ids: implicit ids (serial, bigserial, IDENTITY) under GORM, bun,
//     sqlx and goose, each program run natively and through seqshim and
//     the transcripts compared, the store's sequences checked; four
//     processes inserting through GORM with a sqlite: and a dynamodb://
//     store;
//   - cmd/coexist: a program importing seqshim's driver next to another
//     SQLite driver, built and run by TestCoexist.
//   - otel: every metric instrument read through the OpenTelemetry SDK's
//     ManualReader against a workload and a store outage (with the logs),
//     statistics through otelsql with every connection checked out, and
//     the hot path's benchmark under the SDK.
//
// Run the tests from this directory with the test environment:
//
//	bash -c '. ../scripts/testenv.sh; SEQSHIM_TEST_REQUIRE=1 go test -count=1 ./...'
package integration
