//go:build race

package seqcache

// fleetRace: the tests run with the race detector, which multiplies the
// fleet simulation's time (see testFleetService).
const fleetRace = true
