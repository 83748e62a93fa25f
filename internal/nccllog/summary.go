package nccllog

import (
	"fmt"
	"sort"
	"strconv"
	"strings"
)

// NetUse is a rank's use of one NIC: its channels through it.
type NetUse struct {
	Net      string // IB, Socket, Libfabric, a plugin's name
	Dev      int    // the NIC's index in NCCL's list
	Proxy    int    // the PXN proxy rank; -1 for the rank's own
	Channels int
	GDR      int // of Channels, those with /GDRDMA
}

// NetUses is what the rank's NET channels went through, by NIC and proxy.
func (r *Rank) NetUses() []NetUse {
	var out []NetUse
	for _, c := range r.Channels {
		if c.Transport != "NET" {
			continue
		}
		i := -1
		for j := range out {
			if out[j].Net == c.Net && out[j].Dev == c.Dev && out[j].Proxy == c.Proxy {
				i = j
			}
		}
		if i < 0 {
			out = append(out, NetUse{Net: c.Net, Dev: c.Dev, Proxy: c.Proxy})
			i = len(out) - 1
		}
		out[i].Channels++
		if c.GDR {
			out[i].GDR++
		}
	}
	sort.Slice(out, func(i, j int) bool {
		if out[i].Proxy < 0 != (out[j].Proxy < 0) {
			return out[i].Proxy < 0
		}
		if out[i].Dev != out[j].Dev {
			return out[i].Dev < out[j].Dev
		}
		return out[i].Proxy < out[j].Proxy
	})
	return out
}

// GDR is whether the rank's NET channels carry GPUDirect RDMA: "yes",
// "no", "mixed", or "" when it has none.
func (r *Rank) GDR() string {
	n, g := 0, 0
	for _, u := range r.NetUses() {
		n += u.Channels
		g += u.GDR
	}
	switch {
	case n == 0:
		return ""
	case g == n:
		return "yes"
	case g == 0:
		return "no"
	}
	return "mixed"
}

// Transports lists the rank's intra-node transports (P2P/CUMEM,
// SHM/direct/direct, NVLS), each once, in order of appearance.
func (r *Rank) Transports() []string {
	var out []string
	seen := map[string]bool{}
	for _, c := range r.Channels {
		if c.Transport == "NET" {
			continue
		}
		t := c.Transport
		if c.Transport == "COLLNET" {
			t = "COLLNET/" + c.Net
		}
		if c.Detail != "" {
			t += "/" + c.Detail
		}
		if !seen[t] && len(out) < 8 {
			seen[t] = true
			out = append(out, t)
		}
	}
	return out
}

// Host returns the log's host of that name; nil when absent.
func (l *Log) Host(name string) *Host {
	for _, h := range l.Hosts {
		if h.Name == name {
			return h
		}
	}
	return nil
}

// NICName is the name of NIC dev of network net on the host ("" unknown):
// NCCL's IB list for its IB transport and the plugins that print it, its
// socket list for sockets.
func (h *Host) NICName(net string, dev int) string {
	list := h.IBNICs
	if net == "Socket" {
		list = h.SocketNICs
	}
	for _, n := range list {
		if n.Index == dev {
			return n.Name
		}
	}
	return ""
}

// Brief is the log's answer on NICs and GPUDirect RDMA in the form of the
// hand-written testdata/*.expected files: per host its network, per rank
// its NICs and GDR state, per HCA NCCL's verdict.
func (l *Log) Brief() string {
	var b strings.Builder
	dash := func(s string) string {
		if s == "" {
			return "-"
		}
		return s
	}
	for _, h := range l.Hosts {
		fmt.Fprintf(&b, "net %s %s\n", dash(h.Name), dash(h.Network))
	}
	for _, r := range l.Ranks {
		dev := "-"
		if r.PID >= 0 {
			dev = strconv.Itoa(r.Device)
		}
		var ranks, nics, pxn []string
		for _, x := range r.Ranks {
			ranks = append(ranks, strconv.Itoa(x))
		}
		for _, u := range r.NetUses() {
			if u.Proxy < 0 {
				nics = append(nics, strconv.Itoa(u.Dev))
			} else {
				pxn = append(pxn, fmt.Sprintf("%d(%d)", u.Dev, u.Proxy))
			}
		}
		fmt.Fprintf(&b, "rank %s %s ranks=%s nics=%s pxn=%s gdr=%s\n", dash(r.Host), dev,
			dash(strings.Join(ranks, ",")), dash(strings.Join(nics, ",")), dash(strings.Join(pxn, ",")), dash(r.GDR()))
	}
	for _, h := range l.Hosts {
		for _, g := range h.GDR {
			state := "disabled"
			if g.Enabled {
				state = "enabled"
			}
			if g.Reason != "" {
				state += " (" + g.Reason + ")"
			}
			fmt.Fprintf(&b, "hca %s %s %s\n", dash(h.Name), g.Name, state)
		}
	}
	return b.String()
}
