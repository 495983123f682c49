// Package recipes shows seqshim under the common Go database tools — sqlx,
// GORM, bun and ent — as compiled examples that run as tests against a real
// PostgreSQL (go test ./recipes with SEQSHIM_TEST_PG set; they skip without
// it, and fail with SEQSHIM_TEST_REQUIRE=1).
//
// Each recipe opens PostgreSQL through the seqshim driver with a memory:
// store, creates orders_seq through the driver (so it lives in the store, with
// a fenced twin in the database that nothing draws from), creates a table
// whose id is a plain bigint primary key,
// and inserts rows whose ids the application draws from orders_seq in the way
// the tool allows:
//
//   - sqlx: nextval('orders_seq') in the INSERT of a named query
//     (after sqlx.BindDriver("seqshim", sqlx.DOLLAR));
//   - GORM: a BeforeCreate hook running SELECT nextval('orders_seq');
//   - bun: InsertQuery.Value("id", "nextval('orders_seq')");
//   - ent: a hook on the Order client setting the id from SELECT nextval
//     before Create.
//
// Each prints what the store served (driver.Stats) and checks that the
// database's sequence of that name is the fenced twin (at its end) and that
// the id column has no default, then drops the sequence.
//
// # Implicit ids
//
// The recipes draw their ids from a named sequence in code. A model whose id
// the database fills in (serial, bigserial, IDENTITY: GORM's default ID,
// bun's autoincrement) needs no such code: its table DDL through seqshim
// puts the column's default in the store, and INSERTs that leave the id out
// draw from it. Package ids (integration/ids) tests that under GORM, bun,
// sqlx and goose.
package recipes
