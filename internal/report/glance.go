package report

import (
	"fmt"
	"slices"
	"strconv"
	"strings"

	"github.com/gdtopo/gdtopo/internal/words"
	"github.com/gdtopo/gdtopo/topology"
)

// CheckVerdict is the one line a check opens with: the worst severity found,
// the findings by severity, and what the rail plan gives.
func CheckVerdict(r *Report) string {
	status, rest := verdictParts(r)
	return status + ": " + rest
}

// verdictParts is CheckVerdict's status ("OK", "WARNING", "CRITICAL", or
// "UNKNOWN" where nothing was found but the source could not show what it
// would be found on) and what follows it.
func verdictParts(r *Report) (status, rest string) {
	status = "OK"
	switch {
	case r.Counts.Critical > 0:
		status = "CRITICAL"
	case r.Counts.Warning > 0:
		status = "WARNING"
	}
	// hidden is status where the source hides the accelerators, NICs or
	// paths a finding would be about: "OK" would say they were checked.
	hidden := status
	if status == "OK" {
		hidden = "UNKNOWN"
	}
	findings := r.Counts.String()
	if findings == "" {
		findings = "no findings"
	}
	line := findings
	switch {
	case len(r.Accelerators) == 0 && r.Summary.Partial != "":
		return hidden, line + "; no accelerators" + noneInPartial(r.Summary, r.Summary.SkippedAccelerators, "accelerator", "")
	case len(r.Accelerators) == 0 && r.Summary.UnidentifiedFunctions > 0:
		return hidden, line + "; no accelerators identified among " + unidentified(r.Graph)
	case len(r.Accelerators) == 0:
		return status, line + "; no accelerators"
	case len(r.NICs) == 0 && r.Summary.Partial != "":
		return hidden, line + "; no NICs" + noneInPartial(r.Summary, r.Summary.SkippedNICs, "NIC", "")
	case len(r.NICs) == 0:
		return status, line + "; no NICs for GPUDirect RDMA"
	case len(r.Plan.Assignments) == 0:
		if unknown, all := UnknownPaths(r); unknown > 0 {
			line += fmt.Sprintf("; no rail plan: %d of %s unknown", unknown, words.Count(all, "accelerator–NIC path"))
			status = hidden
		}
		return status, line + partialInput(r.Summary)
	}
	gdr, undecided, staged := gdrCounts(r.Accelerators)
	if undecided == len(r.Accelerators) {
		status = hidden // GPUDirect RDMA, what check is about, is undecided for every accelerator
	}
	line += fmt.Sprintf("; rail plan: GPUDirect RDMA for %d of %d accelerators", gdr, len(r.Accelerators))
	if undecided > 0 {
		line += fmt.Sprintf(" (undecided for %d)", undecided)
	}
	line += partitionWords(r)
	if r.Plan.WorstGbps > 0 {
		line += ", worst " + words.GbpsAtMost(r.Plan.WorstGbps, r.Plan.WorstAtMost)
		if staged == len(r.Accelerators) { // the figure is a staged one: say so beside it
			line += " host-staged"
		}
	}
	return status, line + partialInput(r.Summary)
}

// partitionWords says, where accelerators run in compute partitions, that
// the verdict counts physical accelerators (PCI functions) and how many
// ranks they run as: " (physical accelerators, run as 64 ranks: CPX
// partitions)"; "" where every accelerator is one rank.
func partitionWords(r *Report) string {
	ranks, unknown := 0, false
	var modes []string
	for _, as := range r.Plan.Assignments {
		n, parted := r.ranksOf(as)
		ranks += n
		unknown = unknown || n == 0
		if m := r.Device(as.Accelerator).ComputePartition; parted && !slices.Contains(modes, m) {
			modes = append(modes, m)
		}
	}
	switch {
	case len(modes) == 0:
		return ""
	case unknown:
		return fmt.Sprintf(" (physical accelerators, run as %s partitions, how many ranks unknown)", strings.Join(modes, "/"))
	}
	return fmt.Sprintf(" (physical accelerators, run as %d ranks: %s partitions)", ranks, strings.Join(modes, "/"))
}

// partialInput is "; partial input (why)" for a source that holds part of
// the machine: what the line says is of the part shown. "" otherwise.
func partialInput(s Summary) string {
	if s.Partial == "" {
		return ""
	}
	return "; partial input (" + s.Partial + ")"
}

// noneInPartial completes "no NICs..." for a source that holds part of
// the machine (Summary.Partial), given how many functions of the kind it
// names but skipped, and among what, if anything, none was found ("
// among 4 PCI functions"): " among ... in this partial input (a tree
// fragment: give the whole lspci -tv)", or " placed among ...: 6 NIC
// functions skipped, their bus not in the input (...)".
func noneInPartial(s Summary, skipped int, kind, among string) string {
	if skipped == 0 {
		return among + " in this partial input (" + s.Partial + ")"
	}
	whose := "their"
	if skipped == 1 {
		whose = "its"
	}
	return " placed" + among + ": " + words.Count(skipped, kind+" function") + " skipped, " + whose + " bus not in the input (" + s.Partial + ")"
}

// noteGroup is one note of the accelerator-NIC pairs and the pairs it is
// about ("GPU0-NIC1"), said once for all of them.
type noteGroup struct {
	Note  string
	Pairs []string
}

// noteGroups gathers the notes of the shown accelerator-NIC pairs: notes
// with the same text, or the same text before their first ": " where the
// rest names each pair's devices, are one group, in first-seen order.
func noteGroups(r *Report) []noteGroup {
	type seen struct {
		full  string // the whole note while every pair's is the same
		pairs []string
	}
	groups := map[string]*seen{}
	var order []string
	for _, a := range r.Accelerators {
		for _, n := range r.NICs {
			p := r.Pair(a.BDF, n)
			if p == nil {
				continue
			}
			name := a.Alias + "-" + r.Device(n).Alias
			for _, note := range p.Notes {
				key, _, _ := strings.Cut(note, ": ")
				g := groups[key]
				if g == nil {
					g = &seen{full: note}
					groups[key] = g
					order = append(order, key)
				}
				if g.full != note {
					g.full = key
				}
				if !slices.Contains(g.pairs, name) {
					g.pairs = append(g.pairs, name)
				}
			}
		}
	}
	out := make([]noteGroup, 0, len(order))
	for _, k := range order {
		out = append(out, noteGroup{Note: groups[k].full, Pairs: groups[k].pairs})
	}
	return out
}

// WarningGroup is one warning message and every subject it was given for.
type WarningGroup struct {
	Message  string
	Subjects []string
}

// WarningGroups gathers the warnings by message, in first-seen order.
func WarningGroups(r *Report) []WarningGroup {
	var out []WarningGroup
	at := map[string]int{}
	for _, w := range r.Warnings {
		i, ok := at[w.Message]
		if !ok {
			i = len(out)
			at[w.Message] = i
			out = append(out, WarningGroup{Message: w.Message})
		}
		if !slices.Contains(out[i].Subjects, w.Subject) {
			out[i].Subjects = append(out[i].Subjects, w.Subject)
		}
	}
	return out
}

// switchText says how many PCIe switch chips there are and how they are
// built: "5 x Broadcom PEX89000 Gen5 switch; 5 chips holding 13
// switches, 2 levels deep". A chip is a top-level switch with the
// switches of its own model below it (topology.Graph.TopSwitches); a chip
// below another chip's downstream port is said to be cascaded.
func switchText(r *Report) string {
	s := r.Summary
	g := r.Graph
	if g == nil || s.PCIeSwitches == "none" {
		return s.PCIeSwitches
	}
	tops := g.TopSwitches()
	top := map[*topology.Device]bool{}
	for _, t := range tops {
		top[t] = true
	}
	deepest, below := 1, 0
	for _, t := range tops {
		for p := t.Parent; p != nil; p = p.Parent {
			if top[p] {
				below++
				break
			}
		}
		if d := chipDepth(t); d > deepest {
			deepest = d
		}
	}
	out := s.PCIeSwitches
	if all := len(g.Switches()); all > len(tops) {
		// a chip is one switch to the eye, several upstream ports to the tree
		out += "; " + strconv.Itoa(all) + " switches (upstream ports) inside them"
		if deepest > 1 {
			out += ", nested up to " + strconv.Itoa(deepest) + " deep"
		}
	}
	if below > 0 {
		out += fmt.Sprintf("; %d of the chips cascaded below another", below)
	}
	return out
}

// chipDepth is how many switch levels of u's own model nest from u down.
func chipDepth(u *topology.Device) int {
	deepest := 1
	for _, down := range u.Children {
		for _, c := range down.Children {
			if c.Role == topology.RoleUpstream && c.VendorID == u.VendorID && c.DeviceID == u.DeviceID {
				deepest = max(deepest, 1+chipDepth(c))
			}
		}
	}
	return deepest
}

// gdrCounts counts the accelerators whose planned pair has GPUDirect RDMA
// for certain, those whose verdict is undecided (counted on neither side:
// the source cannot say), and those the plan's figures take as staged,
// undecided or not.
func gdrCounts(accs []Accelerator) (gdr, undecided, staged int) {
	for _, a := range accs {
		switch {
		case a.GDRUndecided:
			undecided++
		case a.GDR:
			gdr++
		}
		if !a.GDR {
			staged++
		}
	}
	return gdr, undecided, staged
}
