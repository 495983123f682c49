// Package testenv gives tests the real components the test script starts:
// PostgreSQL 15 and dynalite. Run without them, integration tests skip; with
// SEQSHIM_TEST_REQUIRE=1 (as in CI) a missing component fails the test instead.
//
// On dynalite it makes what tests share: a client ([DynamoDBClient]), a
// table of the test's own, deleted when the test ends ([NewDynamoTable]),
// its store URL ([DynamoTable.URL]) and an environment in which the AWS
// SDK's default chain reaches nothing real ([DynamoDBEnv]).
//
// testenv imports dynamostore (to create tables): tests of dynamostore that
// use it are in package dynamostore_test.
package testenv

import (
	"fmt"
	"os"
	"path/filepath"
	"testing"
)

// Environment variables exported by scripts/test.
const (
	// EnvPG is a postgres:// URL of a throwaway PostgreSQL 15 database.
	EnvPG = "SEQSHIM_TEST_PG"
	// EnvDynamoDB is the endpoint URL of dynalite, e.g. http://127.0.0.1:4567.
	EnvDynamoDB = "SEQSHIM_TEST_DYNAMODB"
	// EnvRequire turns every skip for a missing component into a failure.
	EnvRequire = "SEQSHIM_TEST_REQUIRE"
)

// PG returns the URL of the test PostgreSQL, or skips the test.
func PG(tb testing.TB) string { return lookup(tb, EnvPG, "PostgreSQL") }

// DynamoDB returns the dynalite endpoint URL, or skips the test.
func DynamoDB(tb testing.TB) string { return lookup(tb, EnvDynamoDB, "DynamoDB (dynalite)") }

// Required reports whether missing components fail tests rather than skip them.
func Required() bool { return os.Getenv(EnvRequire) == "1" }

// Skip skips the test for the given reason, or fails it when components are
// required.
func Skip(tb testing.TB, reason string) {
	tb.Helper()
	if Required() {
		tb.Fatalf("%s (and %s=1)", reason, EnvRequire)
	}
	tb.Skip(reason)
}

func lookup(tb testing.TB, env, what string) string {
	tb.Helper()
	v := os.Getenv(env)
	if v == "" {
		Skip(tb, what+" not available: "+env+" is unset; run scripts/test")
	}
	return v
}

// Summary logs line and appends it to $SEQSHIM_TEST_TMP/summary.txt, which
// scripts/test prints at the end of the suite whatever its outcome (go test
// hides a passing test's log): the figures of torture, outage and fleet
// runs.
func Summary(tb testing.TB, line string) {
	tb.Helper()
	tb.Log(line)
	dir := os.Getenv("SEQSHIM_TEST_TMP")
	if dir == "" {
		return
	}
	f, err := os.OpenFile(filepath.Join(dir, "summary.txt"), os.O_APPEND|os.O_CREATE|os.O_WRONLY, 0o644)
	if err != nil {
		tb.Errorf("summary: %v", err)
		return
	}
	defer f.Close()
	fmt.Fprintln(f, line)
}
