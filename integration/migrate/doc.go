// Package migrate runs a real migration tool, goose (pinned in
// integration/go.mod), through seqshim: migrations create sequences inside
// goose's per-migration transactions, and a failed migration leaves nothing
// in the store, so its retry after a fix succeeds.
package migrate
