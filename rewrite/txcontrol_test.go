package rewrite

import (
	"slices"
	"testing"
)

func TestTxControls(t *testing.T) {
	tests := []struct {
		sql  string
		want []TxControl
	}{
		{"COMMIT", []TxControl{{Op: TxCommit}}},
		{"  -- c\n commit work", []TxControl{{Op: TxCommit}}},
		{"END", []TxControl{{Op: TxCommit}}},
		{"COMMIT AND CHAIN", []TxControl{{Op: TxCommit}}},
		{"COMMIT PREPARED 'x'", nil},
		{"ROLLBACK PREPARED 'x'", nil},
		{"abort", []TxControl{{Op: TxRollback}}},
		{"ROLLBACK WORK", []TxControl{{Op: TxRollback}}},
		{"ROLLBACK TO a", []TxControl{{Op: TxRollbackTo, Savepoint: "a"}}},
		{"ROLLBACK TRANSACTION TO SAVEPOINT \"B\"", []TxControl{{Op: TxRollbackTo, Savepoint: "B"}}},
		{"SAVEPOINT My", []TxControl{{Op: TxSavepoint, Savepoint: "my"}}},
		{"RELEASE SAVEPOINT x", []TxControl{{Op: TxRelease, Savepoint: "x"}}},
		{"RELEASE x", []TxControl{{Op: TxRelease, Savepoint: "x"}}},
		{"BEGIN; SELECT 1", []TxControl{{Op: TxBegin}, {}}},
		{"START TRANSACTION READ ONLY", []TxControl{{Op: TxBegin}}},
		{"PREPARE TRANSACTION 'x'", []TxControl{{Op: TxPrepare}}},
		{"PREPARE p AS SELECT 1", nil},
		{"SELECT 'commit'", nil},
		{"/* commit */ SELECT 1", nil},
		{"CREATE FUNCTION f() RETURNS int LANGUAGE sql BEGIN ATOMIC SELECT 1; END", nil},
		{"SELECT 'unterminated", nil},
	}
	for _, tt := range tests {
		if got := txControlsOf(Postgres, tt.sql); !slices.Equal(got, tt.want) {
			t.Errorf("txControlsOf(%q) = %v, want %v", tt.sql, got, tt.want)
		}
	}
	if got := txControlsOf(MySQL, "COMMIT"); got != nil {
		t.Errorf("MySQL: %v, want nil", got)
	}
}
