package ids_test

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	"gorm.io/driver/postgres"
	"gorm.io/gorm"
	"gorm.io/gorm/logger"
)

// Tag is a model with no field but its id: GORM creates tags (id bigserial)
// and inserts it with DEFAULT VALUES.
type Tag struct{ ID uint64 }

// Customer is a model with an auto-increment id (uint64: bigserial) and
// fields.
type Customer struct {
	ID    uint64
	Name  string `gorm:"not null"`
	Email *string
}

// TestGorm: AutoMigrate (twice, as an application does at every start),
// the migrator's ColumnTypes (the live schema as GORM reads it),
// Create, Create of a slice, CreateInBatches mixing zero ids (drawn from the
// default) and explicit ones, a model with no other field, currval and
// lastval, a duplicate explicit id.
func TestGorm(t *testing.T) { compare(t, gormProgram) }

func gormProgram(ctx context.Context, driverName, dsn string, tr *transcript) error {
	db, err := gorm.Open(postgres.New(postgres.Config{DriverName: driverName, DSN: dsn}),
		&gorm.Config{Logger: &sqlLog{tr: tr}})
	if err != nil {
		return err
	}
	sqlDB, err := db.DB()
	if err != nil {
		return err
	}
	defer sqlDB.Close()
	// One session, so that currval and lastval see this program's inserts.
	sqlDB.SetMaxOpenConns(1)
	db = db.WithContext(ctx)

	if !tr.step("AutoMigrate", db.AutoMigrate(&Tag{}, &Customer{})) {
		return nil
	}

	// The migrator reads the live schema as schema tools do: the id column
	// of a table created through seqshim is auto-increment with its
	// default, as natively (information_schema.columns, pg_attrdef).
	for _, model := range []any{&Tag{}, &Customer{}} {
		cols, err := db.Migrator().ColumnTypes(model)
		if !tr.step("ColumnTypes", err) {
			return nil
		}
		for _, c := range cols {
			auto, _ := c.AutoIncrement()
			def, hasDef := c.DefaultValue()
			null, _ := c.Nullable()
			pk, _ := c.PrimaryKey()
			tr.printf("column %s %s: auto-increment %v, default %q (%v), nullable %v, primary key %v", c.Name(), c.DatabaseTypeName(), auto, def, hasDef, null, pk)
		}
	}

	customers := func(what string, cs []Customer) {
		var s []string
		for _, c := range cs {
			s = append(s, fmt.Sprintf("%s %s", tr.id("customers_id_seq", int64(c.ID)), c.Name))
		}
		tr.printf("%s: [%s]", what, strings.Join(s, ", "))
	}
	tags := func(what string, ts []Tag) {
		var s []string
		for _, t := range ts {
			s = append(s, tr.id("tags_id_seq", int64(t.ID)))
		}
		tr.printf("%s: [%s]", what, strings.Join(s, " "))
	}
	// explicit counts the elements with an id of their own: the other rows
	// inserted drew theirs. (Not every element with a zero id is a row: a
	// batch of models with no other field is one DEFAULT VALUES, one row.)
	explicit := func(n int, id func(int) uint64) (e int64) {
		for i := range n {
			if id(i) != 0 {
				e++
			}
		}
		return e
	}

	// Create: INSERT INTO "customers" ("name","email") VALUES ($1,$2) RETURNING "id".
	ann := Customer{Name: "ann"}
	r := db.Create(&ann)
	tr.step("Create ann", r.Error)
	tr.printf("rows affected %d", r.RowsAffected)
	customers("created", []Customer{ann})
	tr.draws("customers_id_seq", 1)

	// A model with no other field: INSERT INTO "tags" DEFAULT VALUES RETURNING "id".
	for i := range 2 {
		var tag Tag
		r := db.Create(&tag)
		tr.step(fmt.Sprintf("Create tag %d", i), r.Error)
		tags("created", []Tag{tag})
		tr.draws("tags_id_seq", 1)
	}

	// A slice of customers, every id zero: one multi-row INSERT.
	some := []Customer{{Name: "bob"}, {Name: "cy"}}
	r = db.Create(&some)
	tr.step("Create slice", r.Error)
	tr.printf("rows affected %d", r.RowsAffected)
	customers("created", some)
	tr.draws("customers_id_seq", 2)

	// CreateInBatches mixing zero and explicit ids: GORM writes DEFAULT for
	// the zero ones in a batch that has an explicit one.
	mixed := []Customer{
		{Name: "di"}, {ID: explicitBase + 1, Name: "ed"}, {Name: "flo"}, // (name, email, id): DEFAULT, 1000001, DEFAULT
		{Name: "gus"}, {Name: "hal"}, {Name: "ivy"}, // no id column
		{ID: explicitBase + 2, Name: "jo"}, {ID: explicitBase + 3, Name: "kim"}, {Name: "lu"}, // 1000002, 1000003, DEFAULT
	}
	e := explicit(len(mixed), func(i int) uint64 { return mixed[i].ID })
	r = db.CreateInBatches(&mixed, 3)
	tr.step("CreateInBatches customers", r.Error)
	tr.printf("rows affected %d", r.RowsAffected)
	customers("created", mixed)
	tr.draws("customers_id_seq", r.RowsAffected-e)

	// The model with no other field, in batches: (id) VALUES (DEFAULT),
	// (2000000), then a batch of two zero ids, which GORM writes as
	// DEFAULT VALUES: one row, and the last element keeps id 0.
	ts := []Tag{{}, {ID: 2 * explicitBase}, {}, {}}
	e = explicit(len(ts), func(i int) uint64 { return ts[i].ID })
	r = db.CreateInBatches(&ts, 2)
	tr.step("CreateInBatches tags", r.Error)
	tr.printf("rows affected %d", r.RowsAffected)
	tags("created", ts)
	tr.draws("tags_id_seq", r.RowsAffected-e)

	// currval and lastval in this session.
	var cur, last int64
	if tr.step("currval customers_id_seq", db.Raw("SELECT currval('customers_id_seq')").Scan(&cur).Error) {
		tr.printf("currval %s", tr.id("customers_id_seq", cur))
	}
	if tr.step("lastval", db.Raw("SELECT lastval()").Scan(&last).Error) {
		tr.printf("lastval %s", tr.id("tags_id_seq", last))
	}

	// An explicit id taken already: 23505, and nothing drawn.
	tr.fails("Create duplicate", db.Create(&Customer{ID: explicitBase + 1, Name: "dup"}).Error, "23505")

	// Save of a new record (id zero) inserts, drawing the id.
	nina := Customer{Name: "nina"}
	tr.step("Save nina", db.Save(&nina).Error)
	customers("saved", []Customer{nina})
	tr.draws("customers_id_seq", 1)

	// What the database holds.
	var all []Customer
	tr.step("Find customers", db.Order("id").Find(&all).Error)
	customers("customers", all)
	var allTags []Tag
	tr.step("Find tags", db.Order("id").Find(&allTags).Error)
	tags("tags", allTags)
	var found Customer
	tr.step("First by id", db.First(&found, ann.ID).Error)
	customers("first", []Customer{found})

	// AutoMigrate again, as at the next start: it reads the columns back
	// from the catalog and must find nothing to change.
	tr.printf("second AutoMigrate")
	tr.step("AutoMigrate again", db.AutoMigrate(&Tag{}, &Customer{}))
	return nil
}

// sqlLog is a GORM logger that writes every statement GORM sends into the
// transcript, with its placeholders (ids do not appear in it) and the
// number of rows.
type sqlLog struct{ tr *transcript }

func (l *sqlLog) LogMode(logger.LogLevel) logger.Interface { return l }
func (l *sqlLog) Info(context.Context, string, ...any)     {}
func (l *sqlLog) Warn(context.Context, string, ...any)     {}
func (l *sqlLog) Error(context.Context, string, ...any)    {}

func (l *sqlLog) Trace(_ context.Context, _ time.Time, fc func() (string, int64), _ error) {
	sql, rows := fc()
	l.tr.printf("  sql: %s [rows %d]", sql, rows)
}

// ParamsFilter keeps the values out of the SQL GORM logs.
func (l *sqlLog) ParamsFilter(_ context.Context, sql string, _ ...any) (string, []any) {
	return sql, nil
}
