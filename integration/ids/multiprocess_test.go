package ids_test

import (
	"bufio"
	"bytes"
	"context"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"gorm.io/driver/postgres"
	"gorm.io/gorm"
	"gorm.io/gorm/logger"

	"github.com/seqshim/seqshim/internal/storeurl"
	"github.com/seqshim/seqshim/internal/testkit/testenv"
	"github.com/seqshim/seqshim/sequence"
)

// envChild makes the test binary a child process of TestMultiProcessGorm.
const envChild = "SEQSHIM_IDS_MULTIPROCESS_CHILD"

const (
	procs          = 4               // child processes
	workersPerProc = 2               // goroutines inserting in each
	rowsPerWorker  = 100             // rows each goroutine inserts
	batchSize      = 5               // rows per Create or CreateInBatches round
	childTimeout   = 3 * time.Minute // bounds every child, and the test's wait for them
)

// Reading is the model the processes insert: an auto-increment id
// (bigserial) and fields saying who inserted it.
type Reading struct {
	ID     uint64
	Proc   int `gorm:"not null"`
	Worker int `gorm:"not null"`
	N      int `gorm:"not null"`
}

// TestMultiProcessGorm: 4 processes, 2 goroutines each, insert through GORM
// into one table — single Creates and CreateInBatches mixing zero and
// explicit ids — natively, then through seqshim with a sqlite: store file
// all processes share, then with a dynamodb:// store on dynalite. No insert
// may fail (no duplicate key), the ids the processes were given must all be
// distinct and be the table's, and through seqshim the drawn ones must come
// from the store's readings_id_seq.
func TestMultiProcessGorm(t *testing.T) {
	if os.Getenv(envChild) != "" {
		t.Skip("child process")
	}
	testenv.PG(t)
	t.Run("native", func(t *testing.T) { multiProcess(t, "pgx", "") })
	t.Run("sqlite", func(t *testing.T) {
		multiProcess(t, "seqshim", "sqlite:"+filepath.Join(t.TempDir(), "store.db"))
	})
	t.Run("dynamodb", func(t *testing.T) {
		d := testenv.NewDynamoTable(t)
		testenv.DynamoDBEnv(t) // the children inherit it: dummy credentials, nothing real
		multiProcess(t, "seqshim", d.URL(""))
	})
}

func multiProcess(t *testing.T, driverName, store string) {
	ctx, cancel := context.WithTimeout(context.Background(), childTimeout)
	defer cancel()
	dbURL := freshDB(t)
	dsn := dbURL
	if store != "" {
		dsn = withParam(dsn, "seqshim.store", store)
	}

	// The schema, through the same driver: through seqshim, the store gets
	// readings_id_seq and the database a plain bigint column.
	db, err := gorm.Open(postgres.New(postgres.Config{DriverName: driverName, DSN: dsn}),
		&gorm.Config{Logger: logger.Discard})
	if err != nil {
		t.Fatal(err)
	}
	if err := db.WithContext(ctx).AutoMigrate(&Reading{}); err != nil {
		t.Fatalf("AutoMigrate: %v", err)
	}
	if sqlDB, err := db.DB(); err == nil {
		sqlDB.Close()
	}

	// Small blocks, so that the processes reserve from the store many times
	// each, interleaved, rather than once.
	childDSN := dsn
	if store != "" {
		childDSN = withParam(withParam(dsn, "seqshim.min_block", "10"), "seqshim.max_block", "20")
	}
	dir := t.TempDir()
	type child struct {
		cmd *exec.Cmd
		out string
		log bytes.Buffer
	}
	children := make([]*child, procs)
	for i := range children {
		c := &child{out: filepath.Join(dir, fmt.Sprintf("ids-%d.txt", i))}
		c.cmd = exec.CommandContext(ctx, os.Args[0], "-test.run=^TestMultiProcessGormChild$", "-test.count=1",
			"-test.timeout="+childTimeout.String())
		c.cmd.Env = append(os.Environ(), envChild+"=1",
			"IDS_CHILD_DRIVER="+driverName, "IDS_CHILD_DSN="+childDSN,
			"IDS_CHILD_PROC="+strconv.Itoa(i), "IDS_CHILD_OUT="+c.out)
		c.cmd.Stdout, c.cmd.Stderr = &c.log, &c.log
		if err := c.cmd.Start(); err != nil {
			t.Fatal(err)
		}
		children[i] = c
	}
	failed := false
	for i, c := range children {
		if err := c.cmd.Wait(); err != nil {
			t.Errorf("process %d: %v\n%s", i, err, c.log.String())
			failed = true
		}
	}
	if failed {
		t.FailNow()
	}

	// What the processes saw.
	var ids []int64
	var errs []string
	dupKeys := 0
	for i, c := range children {
		f, err := os.Open(c.out)
		if err != nil {
			t.Fatal(err)
		}
		sc := bufio.NewScanner(f)
		for sc.Scan() {
			kind, rest, _ := strings.Cut(sc.Text(), " ")
			switch kind {
			case "id":
				v, err := strconv.ParseInt(rest, 10, 64)
				if err != nil {
					t.Fatal(err)
				}
				ids = append(ids, v)
			case "error":
				errs = append(errs, fmt.Sprintf("process %d: %s", i, rest))
				if strings.Contains(rest, "ERROR 23505") {
					dupKeys++
				}
			default:
				t.Fatalf("process %d wrote %q", i, sc.Text())
			}
		}
		f.Close()
		if err := sc.Err(); err != nil {
			t.Fatal(err)
		}
	}
	const want = procs * workersPerProc * rowsPerWorker
	if len(errs) > 0 {
		t.Errorf("%d inserts failed, %d of them with a duplicate key (23505); the first ones:\n%s",
			len(errs), dupKeys, strings.Join(errs[:min(len(errs), 10)], "\n"))
	}
	slices.Sort(ids)
	distinct := slices.Compact(slices.Clone(ids))
	if len(ids) != want || len(distinct) != want {
		t.Errorf("the processes were given %d ids, %d distinct; want %d distinct", len(ids), len(distinct), want)
	}

	// What the table holds: the rows and ids the processes were given.
	native := openNative(t, dbURL)
	var rows, distinctRows int64
	if err := native.QueryRowContext(ctx, "SELECT count(*), count(DISTINCT id) FROM readings").Scan(&rows, &distinctRows); err != nil {
		t.Fatal(err)
	}
	if rows != want || distinctRows != want {
		t.Errorf("readings has %d rows, %d distinct ids; want %d", rows, distinctRows, want)
	}
	var inTable []int64
	r, err := native.QueryContext(ctx, "SELECT id FROM readings ORDER BY id")
	if err != nil {
		t.Fatal(err)
	}
	for r.Next() {
		var v int64
		if err := r.Scan(&v); err != nil {
			t.Fatal(err)
		}
		inTable = append(inTable, v)
	}
	if err := r.Err(); err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(inTable, distinct) {
		t.Errorf("the table's ids are not the ids the processes were given (%d in the table, %d given)", len(inTable), len(distinct))
	}

	var drawn []int64
	for _, v := range distinct {
		if v < explicitBase {
			drawn = append(drawn, v)
		}
	}
	// Every other round of a worker is a batch with one explicit id.
	const wantDrawn = want - procs*workersPerProc*(rowsPerWorker/batchSize/2)
	if len(drawn) != wantDrawn {
		t.Errorf("%d ids drawn from the default, want %d", len(drawn), wantDrawn)
	}
	t.Logf("%d rows, %d ids drawn from the default, from %d to %d", len(inTable), len(drawn), first(drawn), last(drawn))
	if store == "" {
		return
	}

	// Through seqshim: the drawn ids are values the store handed out, from
	// readings_id_seq, which is readings.id's default; the database has the
	// default drawing from its fenced twin.
	st, err := storeurl.Open(ctx, store)
	if err != nil {
		t.Fatal(err)
	}
	if c, ok := st.(io.Closer); ok {
		defer c.Close()
	}
	dbID := databaseID(t, ctx, native)
	info, err := st.Describe(ctx, "readings_id_seq")
	if err != nil {
		t.Errorf("the store's readings_id_seq: %v", err)
	} else {
		// The database's view of the sequence: its column default.
		view, ok := info.Spec.View(dbID)
		wantDefault := sequence.ColumnDefault{Table: "readings", Column: "id", Kind: sequence.DefaultNextval}
		if !ok || !slices.Contains(view.Defaults, wantDefault) {
			t.Errorf("readings_id_seq (members %v) is, for database %s (a member: %v), the default of %v; want %v among them",
				info.Spec.Members, dbID, ok, view.Defaults, wantDefault)
		}
		if len(drawn) > 0 && (drawn[0] < info.Spec.Start || !info.Position.Called || last(drawn) > info.Position.Last) {
			t.Errorf("ids drawn from %d to %d; the store's readings_id_seq handed out %d to %d (called %v)",
				drawn[0], last(drawn), info.Spec.Start, info.Position.Last, info.Position.Called)
		}
		t.Logf("store: readings_id_seq at %d after %d reservations", info.Position.Last, info.Reservations)
	}
	// The database has the column's default as natively, drawing from the
	// fenced twin, which no process drew from: it stands at its end.
	var def *string
	var fenced bool
	if err := native.QueryRowContext(ctx, `SELECT c.column_default, s.last_value = s.max_value FROM information_schema.columns c, pg_sequences s
		WHERE c.table_schema = 'public' AND c.table_name = 'readings' AND c.column_name = 'id'
		AND s.schemaname = 'public' AND s.sequencename = 'readings_id_seq'`).Scan(&def, &fenced); err != nil {
		t.Fatal(err)
	}
	if def == nil || *def != "nextval('readings_id_seq'::regclass)" || !fenced {
		t.Errorf("readings.id in the database: default %v, its sequence fenced %v; want nextval('readings_id_seq'::regclass) from a fenced twin", def, fenced)
	}
}

// TestMultiProcessGormChild is one process of TestMultiProcessGorm.
func TestMultiProcessGormChild(t *testing.T) {
	if os.Getenv(envChild) == "" {
		t.Skip("run by TestMultiProcessGorm")
	}
	proc, err := strconv.Atoi(os.Getenv("IDS_CHILD_PROC"))
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), childTimeout)
	defer cancel()
	db, err := gorm.Open(postgres.New(postgres.Config{DriverName: os.Getenv("IDS_CHILD_DRIVER"), DSN: os.Getenv("IDS_CHILD_DSN")}),
		&gorm.Config{Logger: logger.Discard})
	if err != nil {
		t.Fatal(err)
	}
	sqlDB, err := db.DB()
	if err != nil {
		t.Fatal(err)
	}
	f, err := os.Create(os.Getenv("IDS_CHILD_OUT"))
	if err != nil {
		t.Fatal(err)
	}
	w := bufio.NewWriter(f)
	var mu sync.Mutex
	write := func(format string, args ...any) {
		mu.Lock()
		defer mu.Unlock()
		fmt.Fprintf(w, format+"\n", args...)
	}

	var wg sync.WaitGroup
	for worker := range workersPerProc {
		wg.Add(1)
		go func() {
			defer wg.Done()
			gdb := db.WithContext(ctx)
			for round := range rowsPerWorker / batchSize {
				batch := make([]Reading, batchSize)
				for k := range batch {
					batch[k] = Reading{Proc: proc, Worker: worker, N: round*batchSize + k}
				}
				var err error
				if round%2 == 0 {
					// Single Creates: INSERT … RETURNING "id", one row each.
					for k := range batch {
						if err = gdb.Create(&batch[k]).Error; err != nil {
							break
						}
					}
				} else {
					// One batch, one explicit id in it: (…, id) VALUES (…, DEFAULT), (…, 10xxxxxx), …
					batch[2].ID = uint64(10*explicitBase + proc*100_000 + worker*10_000 + round)
					err = gdb.CreateInBatches(&batch, batchSize).Error
				}
				if err != nil {
					write("error %s", errText(err))
					continue
				}
				for _, r := range batch {
					write("id %d", r.ID)
				}
			}
		}()
	}
	wg.Wait()
	if err := sqlDB.Close(); err != nil {
		t.Errorf("close: %v", err)
	}
	if err := w.Flush(); err != nil {
		t.Fatal(err)
	}
	if err := f.Close(); err != nil {
		t.Fatal(err)
	}
}

func first(s []int64) int64 {
	if len(s) == 0 {
		return 0
	}
	return s[0]
}

func last(s []int64) int64 {
	if len(s) == 0 {
		return 0
	}
	return s[len(s)-1]
}
