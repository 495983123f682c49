// Command coexist checks that seqshim and another SQLite driver live in one
// program: it imports the seqshim driver and github.com/glebarez/go-sqlite,
// the pure-Go SQLite driver that GORM's github.com/glebarez/sqlite uses, which
// registers the database/sql driver name "sqlite".
//
//	go run ./cmd/coexist
//
// It opens a SQLite database through that driver, then the same database
// through seqshim (seqshim.driver=sqlite, store memory:), and inserts a row
// whose id comes from nextval. It exits 0 when both work.
//
// Importing the seqshim driver must register no database/sql driver name but
// "seqshim": were it to link modernc.org/sqlite, which registers "sqlite",
// this program would panic at start-up with "sql: Register called twice for
// driver sqlite" (see ../../coexist_test.go).
package main

import (
	"database/sql"
	"fmt"
	"os"
	"path/filepath"

	_ "github.com/glebarez/go-sqlite"     // registers "sqlite"
	_ "github.com/seqshim/seqshim/driver" // registers "seqshim"
)

func main() {
	if err := run(); err != nil {
		fmt.Fprintln(os.Stderr, "coexist:", err)
		os.Exit(1)
	}
}

func run() error {
	dir, err := os.MkdirTemp("", "seqshim-coexist-")
	if err != nil {
		return err
	}
	defer os.RemoveAll(dir)
	path := filepath.Join(dir, "app.db")

	// The application's SQLite database, through glebarez's driver directly.
	app, err := sql.Open("sqlite", path)
	if err != nil {
		return err
	}
	defer app.Close()
	var version string
	if err := app.QueryRow("SELECT sqlite_version()").Scan(&version); err != nil {
		return fmt.Errorf("sqlite: %w", err)
	}
	if _, err := app.Exec("CREATE TABLE orders (id INTEGER PRIMARY KEY, item TEXT NOT NULL)"); err != nil {
		return fmt.Errorf("sqlite: %w", err)
	}

	// The same file through seqshim, whose inner driver is that "sqlite".
	db, err := sql.Open("seqshim", "file:"+path+"?seqshim.driver=sqlite&seqshim.store=memory:coexist")
	if err != nil {
		return err
	}
	defer db.Close()
	if _, err := db.Exec("CREATE SEQUENCE orders_seq START 1000"); err != nil {
		return fmt.Errorf("seqshim: %w", err)
	}
	if _, err := db.Exec("INSERT INTO orders (id, item) VALUES (nextval('orders_seq'), 'widget')"); err != nil {
		return fmt.Errorf("seqshim: %w", err)
	}

	var id int64
	var item string
	if err := app.QueryRow("SELECT id, item FROM orders").Scan(&id, &item); err != nil {
		return fmt.Errorf("sqlite: %w", err)
	}
	fmt.Printf("sqlite %s through github.com/glebarez/go-sqlite; through seqshim: inserted %s with id %d from nextval('orders_seq')\n", version, item, id)
	if id != 1000 {
		return fmt.Errorf("id %d, want 1000 (START 1000 in the store)", id)
	}
	return nil
}
