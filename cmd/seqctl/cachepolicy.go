package main

import (
	"flag"

	"github.com/seqshim/seqshim/sequence"
)

// cachePolicyDoc is the part of create's and alter's help on the cache
// policy flags.
const cachePolicyDoc = `
--buffer, --min-block, --max-block and --revalidate set the counter's cache
policy, kept in the store: every process serving the counter applies it from
its next reservation, overriding its own settings (seqshim.buffer and the
cache's block bounds) for this counter only, without a restart. --buffer D is
how much consumption a process keeps cached (a duration: 30s, 2m);
--min-block and --max-block N bound the blocks it reserves; --revalidate D is
how often a process checks the counter in the store while its cache lasts
(at least 100ms). 0 resets a setting to each process's own default; only the
settings given change.`

// registerCachePolicy registers --buffer, --min-block, --max-block and
// --revalidate.
func (f *specFlags) registerCachePolicy(fs *flag.FlagSet) {
	fs.DurationVar(&f.buffer, "buffer", 0, "cache policy: keep `D` of consumption cached in each process (0: the process default)")
	fs.Int64Var(&f.minBlock, "min-block", 0, "cache policy: reserve blocks of at least `N` values (0: the process default)")
	fs.Int64Var(&f.maxBlock, "max-block", 0, "cache policy: reserve blocks of at most `N` values (0: the process default)")
	fs.DurationVar(&f.revalidate, "revalidate", 0, "cache policy: check the counter in the store every `D` (0: the process default)")
}

// cachePolicyClause sets c.Policy from the flags that were given; the store
// validates the resulting policy (sequence.Policy.Validate).
func (f *specFlags) cachePolicyClause(set map[string]bool, c *sequence.Clauses) error {
	var pc sequence.PolicyClauses
	if set["buffer"] {
		pc.Buffer = sequence.Duration(f.buffer)
	}
	if set["min-block"] {
		pc.MinBlock = sequence.Int64(f.minBlock)
	}
	if set["max-block"] {
		pc.MaxBlock = sequence.Int64(f.maxBlock)
	}
	if set["revalidate"] {
		pc.Revalidate = sequence.Duration(f.revalidate)
	}
	if pc != (sequence.PolicyClauses{}) {
		// Fail here, with the flags' names, what is wrong on its own; what
		// depends on the stored policy (min above the stored max) the
		// store refuses.
		if err := pc.Check(); err != nil {
			return usagef("%v", err)
		}
		c.Policy = &pc
	}
	return nil
}

// cachePolicyJSON is a counter's cache policy as -o json prints it: only
// the settings made (null for none).
type cachePolicyJSON struct {
	BufferMS     int64 `json:"buffer_ms,omitempty"`
	MinBlock     int64 `json:"min_block,omitempty"`
	MaxBlock     int64 `json:"max_block,omitempty"`
	RevalidateMS int64 `json:"revalidate_ms,omitempty"`
}

func policyJSON(p sequence.Policy) *cachePolicyJSON {
	if p.IsZero() {
		return nil
	}
	return &cachePolicyJSON{BufferMS: p.Buffer.Milliseconds(), MinBlock: p.MinBlock, MaxBlock: p.MaxBlock,
		RevalidateMS: p.Revalidate.Milliseconds()}
}

// fmtCachePolicy is show's line for the cache policy.
func fmtCachePolicy(p sequence.Policy) string {
	if p.IsZero() {
		return "none (each process's defaults)"
	}
	return p.String() + " (each process's defaults for the rest)"
}

// fmtCachePolicyShort is list's column.
func fmtCachePolicyShort(p sequence.Policy) string {
	if p.IsZero() {
		return "-"
	}
	return p.String()
}

// fmtCachePolicySuffix ends create's and alter's line: the policy if there
// is one, or always when the command changed it.
func fmtCachePolicySuffix(p sequence.Policy, always bool) string {
	switch {
	case !p.IsZero():
		return "; cache policy " + p.String()
	case always:
		return "; cache policy: process defaults"
	}
	return ""
}
