//go:build !race

package cli

// raceDetector: the tests run without -race; bounds apply as measured.
const raceDetector = false
