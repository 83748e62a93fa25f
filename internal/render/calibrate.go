package render

import (
	"fmt"
	"io"

	"github.com/gdtopo/gdtopo/advisor"
)

// Calibration is what gdtopo calibrate shows: every measurement with its
// prediction before and after the fit, and the fitted --model file, either
// its text (Model) or the file it was written to (Wrote).
type Calibration struct {
	Fits  []advisor.Fit
	BusBW []advisor.BusBWCheck // nccl-tests runs: bounds against the plan, never fitted
	Model []byte               // the --model JSON, shown when Wrote is ""
	Wrote string               // the file the --model JSON went to; "" for standard output
}

// Calibrate writes gdtopo calibrate's table of measured against predicted
// throughput, then the fitted --model file or where it went, laid out as
// style says (the first given).
func Calibrate(w io.Writer, c *Calibration, style ...Style) error {
	p := NewPrinter(w, Table, style...)
	rows := make([][]string, 0, len(c.Fits))
	for _, f := range c.Fits {
		key := f.Key
		if key == "" {
			key = "none: link arithmetic"
		}
		rows = append(rows, []string{f.From, f.GPU.BDF(), f.RDMA + " " + f.NIC.BDF(), f.Direction,
			fmt.Sprintf("%.1f", f.Gbps), fmt.Sprintf("%.1f", f.Before), fmt.Sprintf("%.1f", f.After), key})
	}
	if len(rows) > 0 {
		p.Heading("Measured against predicted (Gb/s)")
		if err := p.Table([]string{"File", "Accelerator", "NIC", "Direction", "Measured", "Before", "After", "Fits"}, rows); err != nil {
			return err
		}
	}
	if len(c.BusBW) > 0 {
		p.Heading("nccl-tests bus bandwidth against the plan (fits nothing)")
		for _, b := range c.BusBW {
			p.Lines(b.From+": "+b.Says, "", "  ")
		}
	}
	if len(c.Fits) == 0 {
		p.Printf("\n")
		p.Lines("Nothing fitted: no ib_write_bw or ib_read_bw output given, so no --model file.", "", "  ")
		return nil
	}
	if c.Wrote != "" {
		p.Printf("\n")
		p.Lines(fmt.Sprintf("Wrote %s: use it with --model %s", c.Wrote, c.Wrote), "", "  ")
		return nil
	}
	p.Printf("\n--model file:\n")
	_, err := w.Write(c.Model)
	return err
}
