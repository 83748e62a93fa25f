package report

import (
	"strconv"

	"github.com/gdtopo/gdtopo/internal/nvsmi"
	"github.com/gdtopo/gdtopo/internal/rocmsmi"
)

// NVSMICheck is the host's own matrix, nvidia-smi topo -m or rocm-smi
// --showtopo, set against the source's tree (gdtopo verify, and check with
// the matrix given).
type NVSMICheck struct {
	File     string      `json:"file"`
	Tool     string      `json:"tool"`            // "nvidia-smi topo -m" or "rocm-smi --showtopo"
	Matrix   string      `json:"matrix"`          // what the matrix holds: "8 GPUs, 8 NICs (named)"
	GPUsBy   string      `json:"gpus_matched_by"` // "" when not matched
	NICsBy   string      `json:"nics_matched_by"`
	Compared int         `json:"compared"`
	Agree    int         `json:"agree"`
	NVLink   int         `json:"nvlink_not_in_source"` // NV# (or rocm-smi's XGMI) cells where the source could say only NV? (XGMI?)
	Unknown  int         `json:"unknown"`              // cells whose path the source cannot tell: not compared
	Differ   []NVSMICell `json:"differ"`
	Partial  []string    `json:"partial"` // what a cut-off matrix lacks
	Notes    []string    `json:"notes"`
}

// CellCounts counts the compared cells in words for check's summary: "72
// compared: 64 agree, 8 differ (gdtopo verify lists them); 56 NV# the
// source cannot show".
func (c *NVSMICheck) CellCounts() string {
	return c.counts(" (gdtopo verify lists them)")
}

// PageCounts counts the cells as CellCounts does, for a page that lists
// those that differ itself: a page sent around names no command.
func (c *NVSMICheck) PageCounts() string { return c.counts(" (listed below)") }

// VerifyCounts counts the cells as CellCounts does, for verify itself,
// which lists those that differ below.
func (c *NVSMICheck) VerifyCounts() string { return c.counts("") }

func (c *NVSMICheck) counts(listed string) string {
	s := strconv.Itoa(c.Compared) + " compared: " + strconv.Itoa(c.Agree) + " agree, " + strconv.Itoa(len(c.Differ)) + " differ"
	if len(c.Differ) > 0 {
		s += listed
	}
	if c.NVLink > 0 {
		fabric := "NV#"
		if c.ROCm() {
			fabric = "XGMI"
		}
		s += "; " + strconv.Itoa(c.NVLink) + " " + fabric + " the source cannot show"
	}
	if c.Unknown > 0 {
		s += "; " + strconv.Itoa(c.Unknown) + " the source cannot tell (not compared)"
	}
	return s
}

// ROCm reports a matrix from rocm-smi rather than nvidia-smi.
func (c *NVSMICheck) ROCm() bool { return c.Tool == rocmsmi.Tool }

// ToolName is the host tool's short name: nvidia-smi or rocm-smi.
func (c *NVSMICheck) ToolName() string {
	if c.ROCm() {
		return "rocm-smi"
	}
	return "nvidia-smi"
}

// NVSMICell is one cell where the driver's label and the source's differ.
type NVSMICell struct {
	Row    string `json:"row"` // the matrix's names: GPU0, NIC3, mlx5_2
	Column string `json:"column"`
	A      string `json:"a"`          // BDFs
	B      string `json:"b"`          // "" for an affinity column
	Driver string `json:"nvidia_smi"` // the host tool's label, nvidia-smi's or rocm-smi's
	Source string `json:"source"`     // gdtopo's label, "?" marking a guess
	Why    string `json:"why"`
}

// NVSMI builds the NVSMICheck of the host's matrix, read from file by tool
// (nvsmi.Tool or rocmsmi.Tool) and described by summary, compared with the
// source's tree as r.
func NVSMI(file, tool, summary string, r nvsmi.Result) *NVSMICheck {
	out := &NVSMICheck{File: file, Tool: tool, Matrix: summary, GPUsBy: r.GPUsBy, NICsBy: r.NICsBy, Compared: r.Compared, Agree: r.Agree, NVLink: r.NVLink, Unknown: r.Unknown,
		Differ: []NVSMICell{}, Partial: append([]string{}, r.Partial...), Notes: append([]string{}, r.Notes...)}
	for _, c := range r.Differ {
		cell := NVSMICell{Row: c.Row, Column: c.Column, A: c.A.BDF(), Driver: c.Driver, Source: c.Tree, Why: c.Why}
		if c.B != nil {
			cell.B = c.B.BDF()
		}
		out.Differ = append(out.Differ, cell)
	}
	return out
}

// Verification is gdtopo verify's answer: the host's matrix against the source's tree, and the exit status that follows.
type Verification struct {
	SchemaVersion int         `json:"schema_version"`
	Source        Source      `json:"source"`
	NVSMI         *NVSMICheck `json:"nvidia_smi"`
	// ExitStatus is 3 when a compared cell differs, else 0.
	ExitStatus int `json:"exit_status"`
}

// VerificationOf is r's verification; r must hold a matrix (r.NVSMI).
func VerificationOf(r *Report) *Verification {
	v := &Verification{SchemaVersion: SchemaVersion, Source: r.Source, NVSMI: r.NVSMI}
	if r.NVSMI != nil && len(r.NVSMI.Differ) > 0 {
		v.ExitStatus = ExitFindings
	}
	return v
}
