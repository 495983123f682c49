package sequence

import (
	"fmt"
	"strings"
	"time"
)

// Policy is a sequence's cache policy, kept in the store with its spec
// ([Spec.Policy]) so that an operator can tune a hot counter without a
// redeploy (seqctl alter --buffer, --min-block, --max-block, --revalidate):
// every store returns it with each block ([Block.Policy]), and a block cache
// (package seqcache) applies it from the next block it receives, overriding
// its process-wide options for that sequence. A zero field means "the
// process's default"; the zero Policy overrides nothing. Not SQL.
type Policy struct {
	// Buffer is how much consumption, at the observed rate, a process keeps
	// cached: seqcache's Options.Buffer for this sequence.
	Buffer time.Duration
	// MinBlock and MaxBlock clamp the size of the blocks a process asks
	// for: seqcache's Options.MinBlock and MaxBlock for this sequence.
	MinBlock, MaxBlock int64
	// Revalidate is how often a process that holds cached values checks
	// the sequence in the store even while its cache does not run low:
	// seqcache's Options.Revalidate for this sequence, where checks are on.
	Revalidate time.Duration
}

// Bounds of a Policy, checked by [Policy.Validate]. Durations are kept in
// whole milliseconds.
const (
	MaxPolicyDuration = 24 * time.Hour         // the longest Buffer or Revalidate
	MinRevalidate     = 100 * time.Millisecond // the shortest Revalidate, so that processes do not hammer the store
	MaxPolicyBlock    = int64(1) << 40         // the largest MinBlock or MaxBlock
)

// IsZero reports whether the policy overrides nothing.
func (p Policy) IsZero() bool { return p == Policy{} }

// Validate checks the policy: no negative field, durations in whole
// milliseconds up to [MaxPolicyDuration], Revalidate at least
// [MinRevalidate] when set, block sizes up to [MaxPolicyBlock], and MinBlock
// not above MaxBlock when both are set. The error is an [*Error] wrapping
// [ErrInvalid] (SQLSTATE 22023) that names the setting and its bounds.
func (p Policy) Validate() error {
	if err := checkPolicyDuration("buffer", p.Buffer); err != nil {
		return err
	}
	if err := checkPolicyDuration("revalidate", p.Revalidate); err != nil {
		return err
	}
	if p.Revalidate != 0 && p.Revalidate < MinRevalidate {
		return invalidf("revalidate (%v) must be at least %v (0 takes the process default)", p.Revalidate, MinRevalidate)
	}
	for _, f := range []struct {
		name string
		v    int64
	}{{"min block", p.MinBlock}, {"max block", p.MaxBlock}} {
		if f.v < 0 || f.v > MaxPolicyBlock {
			return invalidf("%s (%d) must be between 1 and %d (0 takes the process default)", f.name, f.v, MaxPolicyBlock)
		}
	}
	if p.MinBlock > 0 && p.MaxBlock > 0 && p.MinBlock > p.MaxBlock {
		return invalidf("min block (%d) must not be greater than max block (%d)", p.MinBlock, p.MaxBlock)
	}
	return nil
}

func checkPolicyDuration(name string, d time.Duration) error {
	if d < 0 || d > MaxPolicyDuration {
		return invalidf("%s (%v) must be between 0 and %v (0 takes the process default)", name, d, MaxPolicyDuration)
	}
	if d%time.Millisecond != 0 {
		return invalidf("%s (%v) must be a whole number of milliseconds", name, d)
	}
	return nil
}

// String lists the fields set, as seqctl's flags name them
// ("buffer=30s min-block=1000"), or "default" for the zero policy.
func (p Policy) String() string {
	var parts []string
	if p.Buffer != 0 {
		parts = append(parts, "buffer="+p.Buffer.String())
	}
	if p.MinBlock != 0 {
		parts = append(parts, fmt.Sprintf("min-block=%d", p.MinBlock))
	}
	if p.MaxBlock != 0 {
		parts = append(parts, fmt.Sprintf("max-block=%d", p.MaxBlock))
	}
	if p.Revalidate != 0 {
		parts = append(parts, "revalidate="+p.Revalidate.String())
	}
	if len(parts) == 0 {
		return "default"
	}
	return strings.Join(parts, " ")
}

// PolicyClauses change some fields of a sequence's [Policy]: a nil pointer
// keeps the field, a pointer to zero resets it to the process default.
type PolicyClauses struct {
	Buffer     *time.Duration
	MinBlock   *int64
	MaxBlock   *int64
	Revalidate *time.Duration
}

// Check validates the fields given on their own, as [Policy.Validate] does
// (MinBlock against MaxBlock only when both are given): what a caller can
// refuse before it reads the stored policy. [Clauses.Alter] validates the
// whole resulting policy.
func (c PolicyClauses) Check() error {
	return c.apply(Policy{}).Validate()
}

// apply returns p with the clauses' fields replaced.
func (c *PolicyClauses) apply(p Policy) Policy {
	if c == nil {
		return p
	}
	if c.Buffer != nil {
		p.Buffer = *c.Buffer
	}
	if c.MinBlock != nil {
		p.MinBlock = *c.MinBlock
	}
	if c.MaxBlock != nil {
		p.MaxBlock = *c.MaxBlock
	}
	if c.Revalidate != nil {
		p.Revalidate = *c.Revalidate
	}
	return p
}

// Duration returns a pointer to d, for filling in PolicyClauses.
func Duration(d time.Duration) *time.Duration { return &d }
