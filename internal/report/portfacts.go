package report

import "github.com/gdtopo/gdtopo/topology"

// Port is one port of a device's RDMA devices, as sysfs shows it; a field
// is left out where its file was not read.
type Port struct {
	RDMA      string  `json:"rdma"`                 // mlx5_0
	Port      string  `json:"port"`                 // "1"
	State     string  `json:"state,omitempty"`      // ACTIVE, DOWN, INIT, ARMED
	PhysState string  `json:"phys_state,omitempty"` // LinkUp, Polling, Disabled
	RateGbps  float64 `json:"rate_gbps,omitempty"`
	Rate      string  `json:"rate,omitempty"`       // "400 Gb/sec (4X NDR)"
	LinkLayer string  `json:"link_layer,omitempty"` // InfiniBand, or Ethernet (RoCE)
}

// AER are a device's AER counters since boot; a class is absent where its
// file was not read.
type AER struct {
	Correctable *AERClass `json:"correctable,omitempty"`
	Nonfatal    *AERClass `json:"nonfatal,omitempty"`
	Fatal       *AERClass `json:"fatal,omitempty"`
}

// AERClass is one aer_dev_* file: its TOTAL_ line and the error kinds
// counted above zero, by the kernel's names.
type AERClass struct {
	Total  uint64            `json:"total"`
	Errors map[string]uint64 `json:"errors,omitempty"`
}

func ports(d *topology.Device) []Port {
	var out []Port
	for _, p := range d.Ports {
		out = append(out, Port{RDMA: p.Device, Port: p.Port, State: p.State, PhysState: p.PhysState,
			RateGbps: Round(p.RateGbps), Rate: p.Rate, LinkLayer: p.LinkLayer})
	}
	return out
}

func aer(d *topology.Device) *AER {
	if d.AER == nil {
		return nil
	}
	class := func(c topology.AERClass) *AERClass {
		if !c.Read {
			return nil
		}
		out := &AERClass{Total: c.Total}
		for _, e := range c.Errors {
			if out.Errors == nil {
				out.Errors = map[string]uint64{}
			}
			out.Errors[e.Name] += e.Count
		}
		return out
	}
	return &AER{Correctable: class(d.AER.Correctable), Nonfatal: class(d.AER.Nonfatal), Fatal: class(d.AER.Fatal)}
}
