package advisor

import (
	"bufio"
	"encoding/json"
	"fmt"
	"io"
	"math"
	"regexp"
	"strconv"
	"strings"
	"sync"

	"github.com/gdtopo/gdtopo/topology"
)

// Measurement is one perftest bandwidth run on this host with GPU memory
// (--use_cuda or --use_cuda_dmabuf).
type Measurement struct {
	From      string  // the file it was read from
	RDMA      string  // the RDMA device (-d): mlx5_0
	GPUBus    string  // the CUDA device's bus:device as perftest prints it, lower case: "17:00"
	Direction string  // "write": the NIC wrote GPU memory; "read": the NIC read it
	Gbps      float64 // BW average of the last (largest) message size
}

// perftestPatterns are the perftest lines ParsePerftest reads, compiled on
// first use rather than at every start of gdtopo.
var perftestPatterns = sync.OnceValue(func() (p struct{ device, gpu, pick *regexp.Regexp }) {
	p.device = regexp.MustCompile(`Device\s*:\s*(\S+)`)
	p.gpu = regexp.MustCompile(`CUDA device (\d+): PCIe address is ([0-9A-Fa-f]{2}):([0-9A-Fa-f]{2})`)
	p.pick = regexp.MustCompile(`Picking device No\. (\d+)`)
	return p
})

// ParsePerftest reads the text ib_write_bw or ib_read_bw printed on one
// side of a run (perftest's own format, src/perftest_parameters.c): the
// test, the side (the server prints "Waiting for client to connect"), the
// RDMA device, the CUDA device picked, and the results table. The side and
// test give the direction: an ib_write_bw server's NIC and an ib_read_bw
// client's NIC write GPU memory; the other two read it. MB/sec and MiB/sec
// are 2^20 bytes (perftest's format_factor 0x100000), Gb/sec 10^9 bits.
func ParsePerftest(name string, r io.Reader) (Measurement, error) {
	m := Measurement{From: name}
	re := perftestPatterns()
	var test string
	server := false
	gpus := map[string]string{}
	pick := ""
	unit, col := 0.0, -1
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 64<<10), 1<<20)
	for sc.Scan() {
		line := sc.Text()
		switch {
		case strings.Contains(line, "RDMA_Write BW Test"):
			test = "write"
		case strings.Contains(line, "RDMA_Read BW Test"):
			test = "read"
		case strings.Contains(line, "Waiting for client to connect"):
			server = true
		case strings.Contains(line, "BW average["):
			f := strings.Fields(strings.ReplaceAll(strings.ReplaceAll(line, "BW peak", "BW_peak"), "BW average", "BW_average"))
			for i, x := range f {
				if strings.HasPrefix(x, "BW_average[") {
					col = i
					switch {
					case strings.Contains(x, "Gb/sec"):
						unit = 1
					case strings.Contains(x, "MB/sec"), strings.Contains(x, "MiB/sec"):
						unit = 8 * 1048576 / 1e9
					}
				}
			}
			continue
		}
		if s := re.device.FindStringSubmatch(line); s != nil && m.RDMA == "" {
			m.RDMA = s[1]
		}
		if s := re.gpu.FindStringSubmatch(line); s != nil {
			gpus[s[1]] = strings.ToLower(s[2] + ":" + s[3])
		}
		if s := re.pick.FindStringSubmatch(line); s != nil {
			pick = s[1]
		}
		if f := strings.Fields(line); col >= 0 && len(f) > col {
			if _, err := strconv.ParseUint(f[0], 10, 64); err == nil {
				if v, err := strconv.ParseFloat(f[col], 64); err == nil {
					m.Gbps = v * unit
				}
			}
		}
	}
	if err := sc.Err(); err != nil {
		return m, fmt.Errorf("%s: %w", name, err)
	}
	switch {
	case test == "":
		return m, fmt.Errorf("%s: not ib_write_bw or ib_read_bw output (no \"RDMA_Write BW Test\" or \"RDMA_Read BW Test\")", name)
	case m.RDMA == "":
		return m, fmt.Errorf("%s: no \"Device :\" line naming the RDMA device", name)
	case pick == "" || gpus[pick] == "":
		return m, fmt.Errorf("%s: no CUDA device picked: run perftest with --use_cuda or --use_cuda_dmabuf", name)
	case col < 0 || unit == 0 || m.Gbps <= 0:
		return m, fmt.Errorf("%s: no results table with a BW average in MB/sec, MiB/sec or Gb/sec", name)
	}
	m.GPUBus = gpus[pick]
	m.Direction = test
	if !server { // the server's NIC is the target of the writes or reads; the client's does the opposite
		m.Direction = map[string]string{"write": "read", "read": "write"}[test]
	}
	return m, nil
}

// Fit is one measurement against the model before and after calibrating.
type Fit struct {
	Measurement
	GPU, NIC      *topology.Device
	Key           string // the model number it fitted; "" when the pair's figure is link arithmetic alone
	Before, After float64
}

// Calibrate fits the model numbers that the measured pairs rest on: the
// root-complex factor of a write through the CPU, the cross-socket cap, and
// the read factor, each as the mean over the measurements that fit it.
// Writes are fitted first, then reads on the fitted writes. A same-switch
// pair has no factor to fit. It returns the fitted model and every
// measurement with its prediction before and after.
func Calibrate(g *topology.Graph, pairs []topology.Pair, opts Options, ms []Measurement) (*Model, []Fit, error) {
	base := opts.Model
	if base == nil {
		base = DefaultModel()
	}
	m := *base
	fits := make([]Fit, len(ms))
	for i, x := range ms {
		fits[i].Measurement = x
		if err := locate(g, &fits[i]); err != nil {
			return nil, nil, err
		}
	}
	predict := func(mod *Model) (map[[2]*topology.Device]Prediction, error) {
		o := opts
		o.Model, o.SkipExplain = mod, true
		r, err := Analyze(g, pairs, o)
		if err != nil {
			return nil, err
		}
		out := map[[2]*topology.Device]Prediction{}
		for _, p := range r.Predictions {
			out[[2]*topology.Device{p.GPU, p.NIC}] = p
		}
		return out, nil
	}
	figure := func(p Prediction, dir string) float64 {
		if dir == "read" {
			return p.ExpectedReadGbps
		}
		return p.ExpectedWriteGbps
	}
	for _, dir := range []string{"write", "read"} {
		preds, err := predict(&m)
		if err != nil {
			return nil, nil, err
		}
		a := &analysis{g: g, m: &m}
		sums, counts := map[*Param]float64{}, map[*Param]int{}
		for i := range fits {
			f := &fits[i]
			p, ok := preds[[2]*topology.Device{f.GPU, f.NIC}]
			if !ok {
				return nil, nil, fmt.Errorf("%s: no prediction for %s and %s", f.From, f.GPU.BDF(), f.NIC.BDF())
			}
			if dir == "write" {
				f.Before = figure(p, f.Direction)
			}
			if f.Direction != dir {
				continue
			}
			pair := g.Classify(f.GPU, f.NIC)
			local, cross := pair.SMI == topology.PIX || pair.SMI == topology.PXB, pair.CrossSocket() // predict's cases
			capped := cross && p.ExpectedWriteGbps == a.sysP2P().Value
			var targets []*Param
			v := 0.0
			switch {
			case local:
			case dir == "write" && cross && a.cpuKind().inter != nil && p.ExpectedWriteGbps == a.cpuKind().inter.Value:
				// Capped by NCCL's inter-socket constant: a measurement above
				// it shows the link carries more on this machine, so the
				// constant and the cross-socket cap both take it; one below
				// it lowers the cap alone.
				targets, v = []*Param{a.sysP2P()}, f.Gbps
				if f.Gbps > a.cpuKind().inter.Value {
					targets = append(targets, a.cpuKind().inter)
				}
			case dir == "read" && cross && a.cpuKind().inter != nil && p.ExpectedWriteGbps == a.cpuKind().inter.Value:
				// a read at the inter-socket constant says nothing of the read factor
			case dir == "write" && capped:
				targets, v = []*Param{a.sysP2P()}, f.Gbps
			case dir == "write":
				phb := a.cpuKind().phb
				targets, v = []*Param{phb}, phb.Value*f.Gbps/p.ExpectedWriteGbps
			case cross && f.Gbps >= a.sysP2P().Value-1e-6:
				// a read at the cross-socket cap says nothing of the read factor
			case p.ExpectedReadGbps > 0:
				lo, hi := a.readFactor(f.GPU)
				targets, v = []*Param{lo}, lo.Value*f.Gbps/p.ExpectedReadGbps
				if hi != lo {
					targets = append(targets, hi)
				}
			}
			if len(targets) > 0 {
				f.Key = targets[0].Key
			}
			for _, t := range targets {
				if t.max > 0 {
					v = min(v, t.max)
				}
				sums[t] += v
				counts[t]++
			}
		}
		for t, s := range sums {
			t.Value, t.Source, t.Confidence = s/float64(counts[t]), "gdtopo calibrate", FromMeasured
		}
	}
	preds, err := predict(&m)
	if err != nil {
		return nil, nil, err
	}
	for i := range fits {
		fits[i].After = figure(preds[[2]*topology.Device{fits[i].GPU, fits[i].NIC}], fits[i].Direction)
	}
	return &m, fits, nil
}

// locate finds the measurement's NIC by its RDMA device and its GPU by the
// bus and device perftest printed; both must be unique.
func locate(g *topology.Graph, f *Fit) error {
	for _, n := range g.OfKind(topology.KindNIC) {
		for _, r := range n.RDMA {
			if r == f.RDMA {
				f.NIC = n
			}
		}
	}
	if f.NIC == nil {
		return fmt.Errorf("%s: RDMA device %s is not in the source", f.From, f.RDMA)
	}
	for _, d := range g.OfKind(topology.KindAccelerator) {
		if fmt.Sprintf("%02x:%02x", d.Addr.Bus, d.Addr.Device) == f.GPUBus {
			if f.GPU != nil {
				return fmt.Errorf("%s: CUDA device at %s matches %s and %s (several PCI domains): cannot tell which", f.From, f.GPUBus, f.GPU.BDF(), d.BDF())
			}
			f.GPU = d
		}
	}
	if f.GPU == nil {
		return fmt.Errorf("%s: no accelerator at bus %s in the source", f.From, f.GPUBus)
	}
	return nil
}

// Changed returns the model's numbers that differ from base as a --model
// JSON object, keys sorted.
func (m *Model) Changed(base *Model) ([]byte, error) {
	out := map[string]float64{}
	bp := base.Params()
	for i, p := range m.Params() {
		if p.Value != bp[i].Value {
			out[p.Key] = math.Round(p.Value*1e6) / 1e6
		}
	}
	b, err := json.MarshalIndent(out, "", "  ") // encoding/json sorts map keys
	if err != nil {
		return nil, err
	}
	return append(b, '\n'), nil
}
