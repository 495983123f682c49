package sqlite_test

import (
	"errors"
	"fmt"
	"path/filepath"
	"slices"
	"sync"
	"testing"

	"github.com/seqshim/seqshim/sequence"
	"github.com/seqshim/seqshim/sqlstore"
)

// TestMembersHandles races Attach and Detach through 8 handles on one file
// (8 processes, each its own *sql.DB: only SQLite's write lock orders
// them): every membership counts, and the last Detach alone drops it.
func TestMembersHandles(t *testing.T) {
	const handles = 8
	ctx := t.Context()
	path := filepath.Join(t.TempDir(), "seq.db")
	sts := make([]*sqlstore.Store, handles)
	for i := range sts {
		sts[i] = open(t, path)
	}
	spec := sequence.DefaultSpec()
	spec.Members = []sequence.Member{{DB: "base"}}
	if err := sts[0].Create(ctx, "s", spec, spec.Initial()); err != nil {
		t.Fatal(err)
	}
	race := func(fn func(i int) error) {
		t.Helper()
		var wg sync.WaitGroup
		errs := make([]error, handles)
		for i := range handles {
			wg.Go(func() { errs[i] = fn(i) })
		}
		wg.Wait()
		for i, err := range errs {
			if err != nil {
				t.Fatalf("handle %d: %v", i, err)
			}
		}
	}
	dbs := func() []string {
		t.Helper()
		info, err := sts[0].Describe(ctx, "s")
		if err != nil {
			t.Fatal(err)
		}
		return sequence.MemberDBs(info.Spec.Members)
	}

	race(func(i int) error {
		_, err := sts[i].Attach(ctx, "s", sequence.Member{DB: fmt.Sprintf("db%d", i)}, spec)
		return err
	})
	if got, want := dbs(), []string{"base", "db0", "db1", "db2", "db3", "db4", "db5", "db6", "db7"}; !slices.Equal(got, want) {
		t.Fatalf("after concurrent Attach: %v, want %v", got, want)
	}
	race(func(i int) error {
		if i%2 == 0 {
			_, err := sts[i].Attach(ctx, "s", sequence.Member{DB: fmt.Sprintf("new%d", i)}, spec)
			return err
		}
		if dropped, err := sts[i].Detach(ctx, "s", fmt.Sprintf("db%d", i)); err != nil || dropped {
			return fmt.Errorf("Detach = %v, %v; want false, nil", dropped, err)
		}
		return nil
	})
	want := []string{"base", "db0", "db2", "db4", "db6", "new0", "new2", "new4", "new6"}
	if got := dbs(); !slices.Equal(got, want) {
		t.Fatalf("after concurrent Detach and Attach: %v, want %v", got, want)
	}
	var (
		mu    sync.Mutex
		drops int
	)
	race(func(i int) error {
		for _, db := range want[i*len(want)/handles : (i+1)*len(want)/handles] {
			dropped, err := sts[i].Detach(ctx, "s", db)
			if err != nil {
				return err
			}
			if dropped {
				mu.Lock()
				drops++
				mu.Unlock()
			}
		}
		return nil
	})
	if drops != 1 {
		t.Errorf("%d Detach calls dropped the sequence, want 1", drops)
	}
	if _, err := sts[0].Describe(ctx, "s"); !errors.Is(err, sequence.ErrNotFound) {
		t.Errorf("Describe after every member left: %v, want not found", err)
	}
}
