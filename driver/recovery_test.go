package driver_test

import (
	"testing"

	seqdriver "github.com/seqshim/seqshim/driver"
)

// TestRecoveryOption checks seqshim.recovery, SEQSHIM_RECOVERY and their
// precedence: on by default, off only when asked.
func TestRecoveryOption(t *testing.T) {
	tests := []struct {
		dsn, env string
		want     string
		wantErr  bool
	}{
		{"host=h", "", "", false}, // "": on
		{"host=h seqshim.recovery=off", "", seqdriver.RecoveryOff, false},
		{"host=h seqshim.recovery=on", "", seqdriver.RecoveryOn, false},
		{"host=h", "off", seqdriver.RecoveryOff, false},
		{"host=h seqshim.recovery=on", "off", seqdriver.RecoveryOn, false}, // explicit wins
		{"host=h seqshim.recovery=maybe", "", "", true},
		{"host=h", "0", "", true},
	}
	for _, tt := range tests {
		t.Run(tt.dsn+"|"+tt.env, func(t *testing.T) {
			t.Setenv("SEQSHIM_RECOVERY", tt.env)
			c, err := (&seqdriver.Driver{}).OpenConnector(tt.dsn)
			if tt.wantErr {
				if err == nil {
					t.Fatal("OpenConnector succeeded")
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if got := c.(*seqdriver.Connector).Options().Recovery; got != tt.want {
				t.Errorf("Recovery = %q, want %q", got, tt.want)
			}
		})
	}
	if _, err := seqdriver.NewConnector(nopConnector{}, func(o *seqdriver.Options) { o.Recovery = "bogus" }); err == nil {
		t.Error("NewConnector with Options.Recovery bogus succeeded")
	}
}
