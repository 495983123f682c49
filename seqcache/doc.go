// Package seqcache is the sequence model and the in-process block cache of
// seqshim. (Package documentation is completed with the Cache.)
package seqcache
