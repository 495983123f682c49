package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

func TestThousands(t *testing.T) {
	for _, tt := range []struct {
		n    int64
		want string
	}{
		{0, "0"}, {999, "999"}, {1000, "1,000"}, {1234567, "1,234,567"}, {-10000, "-10,000"},
	} {
		if got := thousands(tt.n); got != tt.want {
			t.Errorf("thousands(%d) = %q, want %q", tt.n, got, tt.want)
		}
	}
}

func TestFmtRatio(t *testing.T) {
	for _, tt := range []struct {
		x    float64
		want string
	}{
		{1.3149, "1.31×"}, {1.0064, "1.006×"}, {0.9871, "0.987×"}, {0.0373, "0.0373×"}, {0.0001, "0.0001×"}, {0.00001, "1e-05×"}, {250, "250×"},
	} {
		if got := fmtRatio(tt.x); got != tt.want {
			t.Errorf("fmtRatio(%v) = %q, want %q", tt.x, got, tt.want)
		}
	}
}

func TestMedian(t *testing.T) {
	for _, tt := range []struct {
		xs   []float64
		want float64
	}{
		{[]float64{3}, 3}, {[]float64{5, 1, 3}, 3}, {[]float64{4, 1, 3, 2}, 2.5},
	} {
		if got := median(tt.xs); got != tt.want {
			t.Errorf("median(%v) = %v, want %v", tt.xs, got, tt.want)
		}
	}
	for _, tt := range []struct {
		xs   []float64
		q    float64
		want float64
	}{
		{[]float64{5, 1, 3, 2, 4}, 0.25, 2}, {[]float64{5, 1, 3, 2, 4}, 0.75, 4},
		{[]float64{4, 1, 3, 2}, 0.25, 1.75}, {[]float64{7}, 0.75, 7}, {[]float64{1, 9}, 1, 9},
	} {
		if got := quantile(tt.xs, tt.q); got != tt.want {
			t.Errorf("quantile(%v, %v) = %v, want %v", tt.xs, tt.q, got, tt.want)
		}
	}
}

func TestMachineFiles(t *testing.T) {
	path := filepath.Join(t.TempDir(), "cpuinfo")
	cpuinfo := "processor\t: 0\nvendor_id\t: AuthenticAMD\nmodel name\t: AMD EPYC 7B13\ncpu MHz\t\t: 2596.120\nflags\t\t: fpu\n"
	if err := os.WriteFile(path, []byte(cpuinfo), 0o644); err != nil {
		t.Fatal(err)
	}
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	if got := cpuModel(f); got != "AMD EPYC 7B13 at 2596 MHz" {
		t.Errorf("cpuModel = %q", got)
	}
	if got := osRelease("NAME=\"Debian GNU/Linux\"\nPRETTY_NAME=\"Debian GNU/Linux 12 (bookworm)\"\n"); got != "Debian GNU/Linux 12 (bookworm)" {
		t.Errorf("osRelease = %q", got)
	}
}

func TestMarkdown(t *testing.T) {
	r := report{
		Command: command, Date: time.Date(2026, 1, 2, 3, 4, 0, 0, time.UTC),
		Machine: machineInfo{CPU: "cpu X", Cores: 2, GOMAXPROCS: 2, OS: "linux", Go: "go1.26", PostgreSQL: "PostgreSQL 15.18 on x86_64, compiled by gcc, 64-bit, fsync off"},
		Rows: []row{{Name: "SELECT nextval('s')", Subject: "seqshim", Baseline: "pgx", Samples: "3 blocks of 1,000 pairs",
			SubjectNs: []float64{1000, 1100, 900}, BaselineNs: []float64{40000, 40000, 40000}}},
		Store: storeResult{Rate: 10000, SteadyPerMillion: 100, TotalPerMillion: 300, Warm: 5 * time.Second},
	}
	md := r.markdown()
	for _, want := range []string{
		"`" + command + "`",
		"cpu X, 2 logical cores",
		"- Database: PostgreSQL 15.18, local, fsync off\n",
		"| SELECT nextval('s') | seqshim: 1.0 µs | pgx: 40.0 µs | **0.0250×** (0.0238×–0.0263×): 40× faster | 3 blocks of 1,000 pairs |",
		"| seqshim: 100 | one write per value: 1,000,000 | **0.0001×**: 10,000× fewer writes |",
	} {
		if !strings.Contains(md, want) {
			t.Errorf("markdown lacks %q:\n%s", want, md)
		}
	}
}
