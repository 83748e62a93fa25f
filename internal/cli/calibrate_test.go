package cli

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestCalibrate: an ib_write_bw server's run on a NODE pair of the HGX H100
// fixture fits phb_factor_intel, and the written file loads as --model.
func TestCalibrate(t *testing.T) {
	text, err := os.ReadFile("../../advisor/testdata/ib_write_bw-server.txt")
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	run1 := filepath.Join(dir, "write-server.txt")
	s := strings.Replace(string(text), "Picking device No. 1", "Picking device No. 0", 1) // 1a:00, GPU0
	s = strings.Replace(s, "Device         : mlx5_4", "Device         : mlx5_2", 1)       // NODE from GPU0
	if err := os.WriteFile(run1, []byte(s), 0o644); err != nil {
		t.Fatal(err)
	}
	model := filepath.Join(dir, "model.json")
	code, out, errb := run("calibrate", "../../fixtures/hgx-h100.tar.gz", run1, "--output-file", model)
	if code != ExitOK {
		t.Fatalf("calibrate: exit %d: %s", code, errb)
	}
	if !strings.Contains(out, "phb_factor_intel") || !strings.Contains(out, "384.0") || !strings.Contains(out, "Wrote "+model+": use it with --model "+model) {
		t.Errorf("calibrate output:\n%s", out)
	}
	// Without --output-file the fitted numbers follow the table.
	if code, out, errb := run("calibrate", "../../fixtures/hgx-h100.tar.gz", run1); code != ExitOK || !strings.Contains(out, "--model file:\n{") || !strings.Contains(out, `"phb_factor_intel"`) {
		t.Errorf("calibrate to standard output: exit %d: %s\n%s", code, errb, out)
	}
	js, err := os.ReadFile(model)
	var fitted map[string]float64
	if err == nil {
		err = json.Unmarshal(js, &fitted)
	}
	if f := fitted["phb_factor_intel"]; err != nil || f < 0.959 || f > 0.961 {
		t.Errorf("model file %s (%v): want phb_factor_intel 0.96 (5/6 × 384/333.3)", js, err)
	}
	if code, _, errb := run("check", "../../fixtures/hgx-h100.tar.gz", "--model", model); code != ExitOK && code != ExitFindings {
		t.Errorf("check --model the calibrated file: exit %d: %s", code, errb)
	}
	if code, _, errb := run("calibrate", "../../fixtures/hgx-h100.tar.gz", model); code != ExitError || !strings.Contains(errb, "not ib_write_bw") {
		t.Errorf("calibrate on a non-perftest file: exit %d: %s", code, errb)
	}
}

// TestCalibrateNCCLTests: nccl-tests output (the alltoall_perf table of
// NVIDIA/nccl-tests#321, two VMs of two H20) is read beside perftest runs
// and fits nothing: its GPUs are not hgx-h100's, which it says; no --model
// file is written from it alone; a copy cut before its first row is an
// error on one line naming the file.
func TestCalibrateNCCLTests(t *testing.T) {
	log := "../nccllog/testdata/nccl-tests-321-vm-roce-pxn.log"
	dir := t.TempDir()
	model := filepath.Join(dir, "model.json")
	code, out, errb := run("calibrate", "../../fixtures/hgx-h100.tar.gz", log, "--output-file", model)
	if code != ExitOK || !strings.Contains(out, "busbw 50.37 GB/s (402.96 Gb/s) at 4 GiB across 2 hosts") ||
		!strings.Contains(out, "fits nothing") || !strings.Contains(out, "Nothing fitted") {
		t.Errorf("calibrate with nccl-tests alone: exit %d: %s\n%s", code, errb, out)
	}
	if _, err := os.Stat(model); !os.IsNotExist(err) {
		t.Errorf("a --model file written from nccl-tests alone: %v", err)
	}

	text, err := os.ReadFile("../../advisor/testdata/ib_write_bw-server.txt")
	if err != nil {
		t.Fatal(err)
	}
	s := strings.Replace(string(text), "Picking device No. 1", "Picking device No. 0", 1)
	s = strings.Replace(s, "Device         : mlx5_4", "Device         : mlx5_2", 1)
	perf := filepath.Join(dir, "write-server.txt")
	if err := os.WriteFile(perf, []byte(s), 0o644); err != nil {
		t.Fatal(err)
	}
	code, out, errb = run("calibrate", "../../fixtures/hgx-h100.tar.gz", perf, log)
	if code != ExitOK || !strings.Contains(out, "Measured against predicted") || !strings.Contains(out, "nccl-tests bus bandwidth against the plan") || !strings.Contains(out, `"phb_factor_intel"`) {
		t.Errorf("calibrate with perftest and nccl-tests: exit %d: %s\n%s", code, errb, out)
	}

	raw, err := os.ReadFile(log)
	if err != nil {
		t.Fatal(err)
	}
	at := strings.Index(string(raw), "     1048576 ")
	if at < 0 {
		t.Fatal("nccl-tests#321 lost its first row")
	}
	cut := filepath.Join(dir, "cut-all_reduce.txt")
	if err := os.WriteFile(cut, raw[:at], 0o644); err != nil {
		t.Fatal(err)
	}
	code, _, errb = run("calibrate", "../../fixtures/hgx-h100.tar.gz", cut)
	if code != ExitError || !strings.Contains(errb, "cut-all_reduce.txt: nccl-tests output with no result row") || strings.Count(strings.TrimSpace(errb), "\n") > 0 {
		t.Errorf("calibrate on a table cut before its rows: exit %d: %q", code, errb)
	}
}
