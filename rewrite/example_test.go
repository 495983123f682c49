package rewrite_test

import (
	"fmt"

	"github.com/seqshim/seqshim/rewrite"
)

func Example() {
	p := rewrite.NewPlanner(rewrite.Postgres, 0)

	plan, err := p.Plan("INSERT INTO orders (id, item) VALUES (nextval('Orders_Seq'), $1) RETURNING id")
	if err != nil {
		panic(err)
	}
	st := &plan.Statements[0]
	fmt.Println(st.Kind, st.Calls[0].Func, st.Calls[0].Name)
	// The driver binds the value drawn for the call as parameter $2.
	fmt.Println(string(st.AppendSQL(nil, []int64{1001})))

	plan, _ = p.Plan("SELECT nextval('orders_seq') AS id, currval('orders_seq')")
	st = &plan.Statements[0]
	fmt.Println(st.Kind, st.Columns)

	plan, _ = p.Plan("SELECT * FROM orders WHERE id = 7")
	fmt.Println(plan.PassThrough())

	_, err = p.Plan("UPDATE orders SET id = nextval('orders_seq')")
	fmt.Println(err != nil)
	// Output:
	// Rewrite nextval orders_seq
	// INSERT INTO orders (id, item) VALUES (($2::int8), $1) RETURNING id
	// Local [id currval]
	// true
	// true
}

func ExampleStatement_AppendSQL() {
	// Without bind parameters, values are inlined, so the string can go over
	// PostgreSQL's simple protocol (multi-statement strings need it).
	plan := rewrite.Build(rewrite.Postgres, "INSERT INTO t VALUES (nextval('s')), (nextval('s'))")
	fmt.Println(string(plan.Statements[0].AppendSQL(nil, []int64{41, 42})))
	// Output:
	// INSERT INTO t VALUES ((41::int8)), ((42::int8))
}

func ExampleTableDDL_AppendSQL() {
	plan := rewrite.Build(rewrite.Postgres, `CREATE TABLE "users" ("id" bigserial,"name" text,PRIMARY KEY ("id"))`)
	st := &plan.Statements[0]
	id := st.Table.Columns[0]
	fmt.Println(st.Kind, st.Table.Names[0], id.Name, id.Default.Serial, id.Default.Type)
	// The front end creates the sequence PostgreSQL would have created,
	// then sends the table without its default.
	fmt.Println(rewrite.ImplicitSequenceName("public", "users", id.Name, func(string) bool { return false }))
	sql, _ := st.Table.AppendSQL(nil, nil)
	fmt.Println(string(sql))

	// ALTER TABLE: the front end leaves out what it served.
	plan = rewrite.Build(rewrite.Postgres, "ALTER TABLE users ALTER id SET GENERATED ALWAYS, ADD email text")
	t := plan.Statements[0].Table
	sql, _ = t.AppendSQL(nil, func(i int) rewrite.Rendering {
		if t.Cmds[i].Action == rewrite.SetIdentity {
			return rewrite.Omit
		}
		return rewrite.Strip
	})
	fmt.Println(string(sql))
	// Output:
	// CatalogDDL users id true bigint
	// users_id_seq
	// CREATE TABLE "users" ("id" bigint NOT NULL,"name" text,PRIMARY KEY ("id"))
	// ALTER TABLE users ADD email text
}

// ParseView reads a view's definition as PostgreSQL prints it: the relation
// it selects from and the base column of each of its columns.
func ExampleParseView() {
	v, ok := rewrite.ParseView(" SELECT t.id AS order_id,\n    t.note,\n    (t.total * 2) AS double\n   FROM orders t\n  WHERE (t.total > 0);")
	fmt.Println(ok, v.Base)
	for _, c := range v.Columns {
		fmt.Printf("%s <- %q\n", c.Name, c.Base)
	}
	// Output:
	// true orders
	// order_id <- "id"
	// note <- "note"
	// double <- ""
}
