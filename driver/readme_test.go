package driver

import (
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/seqshim/seqshim/memstore"
	"github.com/seqshim/seqshim/rewrite"
	"github.com/seqshim/seqshim/seqcache"
)

// TestReadmeConfiguration keeps README.md's configuration table, the options
// table in code and the defaults in effect in step: every row is a real
// option with its real default, and every option and SEQSHIM_* variable the
// code reads is in the README.
func TestReadmeConfiguration(t *testing.T) {
	readme, err := os.ReadFile("../README.md")
	if err != nil {
		t.Fatal(err)
	}
	row := regexp.MustCompile("(?m)^\\| `(seqshim\\.[a-z_]+)` \\| `(SEQSHIM_[A-Z_]+)` \\| ([^|]*) \\| ([^|]*) \\|$")
	documented := map[string]Parameter{}
	for _, m := range row.FindAllStringSubmatch(string(readme), -1) {
		documented[m[1]] = Parameter{DSN: m[1], Env: m[2], Default: m[3], Doc: m[4]}
	}
	for _, p := range Parameters() {
		d, ok := documented[p.DSN]
		if !ok {
			t.Errorf("README lacks %s", p.DSN)
			continue
		}
		if d != p {
			t.Errorf("README row %+v, code %+v", d, p)
		}
		delete(documented, p.DSN)
	}
	for name := range documented {
		t.Errorf("README documents %s, which the code does not have", name)
	}

	// The documented defaults are the ones in effect.
	c := seqcache.New(memstore.New())
	defer c.Close()
	o := c.Options()
	want := map[string]string{
		"seqshim.plan_cache":     strconv.Itoa(rewrite.DefaultCacheSize),
		"seqshim.buffer":         o.Buffer.String(),
		"seqshim.min_threshold":  strconv.FormatInt(o.MinThreshold, 10),
		"seqshim.min_block":      strconv.FormatInt(o.MinBlock, 10),
		"seqshim.max_block":      strconv.FormatInt(o.MaxBlock, 10),
		"seqshim.max_wait":       o.MaxWait.String(),
		"seqshim.refill_timeout": o.RefillTimeout.String(),
		"seqshim.revalidate":     o.Revalidate.String(),
	}
	for _, p := range Parameters() {
		w, ok := want[p.DSN]
		if !ok {
			continue
		}
		got := p.Default
		if d, err := time.ParseDuration(got); err == nil {
			got = d.String()
		}
		if got != w {
			t.Errorf("%s: documented default %q, in effect %q", p.DSN, p.Default, w)
		}
	}

	// Every SEQSHIM_* variable read by non-test code is in the README.
	env := regexp.MustCompile(`"(SEQSHIM_[A-Z_]+)"`)
	err = filepath.WalkDir("..", func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() && (d.Name() == ".tmp" || d.Name() == ".git" || d.Name() == "testdata") {
			return filepath.SkipDir
		}
		if d.IsDir() || !strings.HasSuffix(path, ".go") || strings.HasSuffix(path, "_test.go") {
			return nil
		}
		src, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		for _, m := range env.FindAllStringSubmatch(string(src), -1) {
			if !strings.Contains(string(readme), m[1]) {
				t.Errorf("%s reads %s, which README.md does not document", path, m[1])
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
}
