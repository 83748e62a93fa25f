//go:build !race

package zstd

// raceEnabled reports whether the race detector is on (upstream's
// internal/race.Enabled).
const raceEnabled = false
