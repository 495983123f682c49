// Package ent is the code ent generates from ./schema for the ent recipe
// (recipes/ent_test.go). Regenerate it with go generate ./ent after changing
// the schema; the ent version is pinned by the tool line of integration/go.mod.
package ent

//go:generate go tool ent generate ./schema
