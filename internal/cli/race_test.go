//go:build race

package cli

// raceDetector: the tests run under -race, which slows execution 2-20x and
// changes what escapes to the heap (https://go.dev/doc/articles/race_detector),
// so bounds measured without it are scaled (raceScale).
const raceDetector = true
