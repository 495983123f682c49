// Package options is the configuration every front end of seqshim shares:
// [Options] (driver.Options and pgxseq.Options are this type), the
// seqshim.* connection-string parameters and SEQSHIM_* environment
// variables that set them ([Parameters], [SplitDSN], [ApplyDSN],
// [ApplyEnv]), their checks and defaults ([Resolve]), what they give the
// core ([Config]), and the engines one configuration opens, one per store
// URL ([Engines]). A front end parses and resolves its options here, so
// that the same string configures seqshim the same way whichever front end
// reads it.
package options
