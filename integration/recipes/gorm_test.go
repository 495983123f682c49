package recipes_test

import (
	"context"
	"fmt"
	"log"

	"gorm.io/driver/postgres"
	"gorm.io/gorm"
	"gorm.io/gorm/logger"
)

// GormOrder's id is a plain bigint primary key (autoIncrement:false: no
// bigserial), set by BeforeCreate from the store.
type GormOrder struct {
	ID   int64  `gorm:"primaryKey;autoIncrement:false"`
	Item string `gorm:"not null"`
}

func (GormOrder) TableName() string { return "gorm_orders" }

// BeforeCreate draws the id from orders_seq. seqshim answers the SELECT in
// process; inside GORM's transaction it is the transaction's connection.
func (o *GormOrder) BeforeCreate(tx *gorm.DB) error {
	if o.ID != 0 {
		return nil
	}
	return tx.Raw("SELECT nextval('orders_seq')").Scan(&o.ID).Error
}

// GORM: gorm.io/driver/postgres with DriverName "seqshim"; a BeforeCreate
// hook sets each id from SELECT nextval('orders_seq').
func Example_gorm() {
	ctx := context.Background()
	db, err := gorm.Open(postgres.New(postgres.Config{
		DriverName: "seqshim", // GORM opens sql.Open("seqshim", DSN) instead of pgx
		DSN:        pgDSN("memory:recipes-gorm"),
	}), &gorm.Config{Logger: logger.Default.LogMode(logger.Silent)})
	if err != nil {
		log.Fatal(err)
	}
	sqlDB, err := db.DB()
	if err != nil {
		log.Fatal(err)
	}
	defer sqlDB.Close()

	if err := db.Migrator().DropTable(&GormOrder{}); err != nil {
		log.Fatal(err)
	}
	// AutoMigrate creates gorm_orders with id bigint, no default.
	if err := db.AutoMigrate(&GormOrder{}); err != nil {
		log.Fatal(err)
	}
	for _, stmt := range []string{
		"DROP SEQUENCE IF EXISTS orders_seq",
		"CREATE SEQUENCE orders_seq START 1000", // in the store; its fenced twin in the database
	} {
		if err := db.Exec(stmt).Error; err != nil {
			log.Fatal(err)
		}
	}

	one := GormOrder{Item: "widget"}
	if err := db.WithContext(ctx).Create(&one).Error; err != nil {
		log.Fatal(err)
	}
	// A batch: the hook runs for every element.
	more := []GormOrder{{Item: "gadget"}, {Item: "gizmo"}}
	if err := db.WithContext(ctx).Create(&more).Error; err != nil {
		log.Fatal(err)
	}
	fmt.Println("created", one.ID, more[0].ID, more[1].ID)

	var found []GormOrder
	if err := db.WithContext(ctx).Where("item IN ?", []string{"widget", "gizmo"}).Order("id").Find(&found).Error; err != nil {
		log.Fatal(err)
	}
	fmt.Println("found", found)

	finish(ctx, sqlDB, "gorm_orders")
	// Output:
	// created 1000 1001 1002
	// found [{1000 widget} {1002 gizmo}]
	// store: 3 values of orders_seq served to this process
	// database: orders_seq is the store's fenced twin: true; default of gorm_orders.id: ""
}
