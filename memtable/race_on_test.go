//go:build race

package memtable

// raceEnabled reports that the race detector is on. Under it sync.Pool
// drops a quarter of its Puts at random (by design, to shake out code
// that relies on reuse), so a count of allocations that a pool saves is
// not deterministic there.
const raceEnabled = true
