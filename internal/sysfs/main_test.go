package sysfs_test

import (
	"os"
	"testing"

	"github.com/gdtopo/gdtopo/fixtures/fixturetest"
)

// TestMain lets the tests that run lspci, lstopo and ghw share unpacked
// fixtures.
func TestMain(m *testing.M) { os.Exit(fixturetest.Run(m)) }
