package export

import (
	"bytes"
	"encoding/xml"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/gdtopo/gdtopo/advisor"
	"github.com/gdtopo/gdtopo/fixtures/fixturetest"
	"github.com/gdtopo/gdtopo/internal/ncclxml"
	"github.com/gdtopo/gdtopo/internal/report"
	"github.com/gdtopo/gdtopo/internal/source"
	"github.com/gdtopo/gdtopo/internal/sysfs"
	"github.com/gdtopo/gdtopo/topology"
)

// fixtures returns every fixture's graph, by name.
func fixtures(t *testing.T) map[string]*topology.Graph {
	t.Helper()
	out := map[string]*topology.Graph{}
	for _, name := range fixturetest.Names(t) {
		archive := filepath.Join("..", "..", "fixtures", name+".tar.gz")
		src, err := source.Open(archive)
		if err != nil {
			t.Fatalf("%s: %v", archive, err)
		}
		g, err := sysfs.Read(src.Root)
		if err != nil {
			t.Fatalf("%s: %v", archive, err)
		}
		out[name] = g
	}
	if len(out) < 5 {
		t.Fatalf("only %d fixtures found", len(out))
	}
	return out
}

func fixture(t *testing.T, name string) *topology.Graph {
	t.Helper()
	g := fixtures(t)[name]
	if g == nil {
		t.Fatalf("no fixture %s", name)
	}
	return g
}

// wellFormed decodes data to EOF and returns the root element's name.
func wellFormed(t *testing.T, what string, data []byte) xml.StartElement {
	t.Helper()
	dec := xml.NewDecoder(bytes.NewReader(data))
	var root xml.StartElement
	for {
		tok, err := dec.Token()
		if err == io.EOF {
			break
		}
		if err != nil {
			t.Fatalf("%s: not well-formed XML: %v", what, err)
		}
		if se, ok := tok.(xml.StartElement); ok && root.Name.Local == "" {
			root = se
		}
	}
	return root
}

func TestNCCLXMLRoundTrip(t *testing.T) {
	for name, g := range fixtures(t) {
		t.Run(name, func(t *testing.T) {
			var buf bytes.Buffer
			if err := NCCLXML(&buf, g); err != nil {
				t.Fatal(err)
			}
			if root := wellFormed(t, name, buf.Bytes()); root.Name.Local != "system" {
				t.Fatalf("root is <%s>, want <system>", root.Name.Local)
			}
			back, err := ncclxml.Parse(name, buf.Bytes())
			if err != nil {
				t.Fatalf("read back: %v\n%s", err, buf.String())
			}
			for _, k := range []topology.Kind{topology.KindAccelerator, topology.KindNIC} {
				if a, b := len(g.OfKind(k)), len(back.OfKind(k)); a != b {
					t.Errorf("%s: %d in sysfs, %d read back", k, a, b)
				}
			}
			pairs := topology.PairsOf(g.Pairs(), topology.KindAccelerator, topology.KindNIC)
			if len(pairs) == 0 && len(g.OfKind(topology.KindAccelerator)) > 0 && len(g.OfKind(topology.KindNIC)) > 0 {
				t.Fatal("no pairs")
			}
			for _, p := range pairs {
				if p.C2C || p.DataDirect != nil {
					// The export writes neither NCCL's <c2c> element nor a
					// Data Direct NIC's "<dev>_dma" entry: those labels do
					// not survive the round trip yet.
					continue
				}
				a, b := back.Device(p.A.Addr), back.Device(p.B.Addr)
				if a == nil || b == nil {
					t.Errorf("%s or %s missing from the file", p.A.BDF(), p.B.BDF())
					continue
				}
				if got := back.Classify(a, b).NCCL; got != p.NCCL {
					t.Errorf("%s-%s: NCCL %s read back, %s from sysfs", p.A.BDF(), p.B.BDF(), got, p.NCCL)
				}
			}
			// A view is written as it is: exporting it again reaches a fixed point.
			var x2, x3 bytes.Buffer
			if err := NCCLXML(&x2, back); err != nil {
				t.Fatal(err)
			}
			back2, err := ncclxml.Parse(name, x2.Bytes())
			if err != nil {
				t.Fatal(err)
			}
			if err := NCCLXML(&x3, back2); err != nil {
				t.Fatal(err)
			}
			if x2.String() != x3.String() {
				t.Errorf("re-exporting a view changed it:\n%s\n---\n%s", x2.String(), x3.String())
			}
		})
	}
}

// TestNCCLXMLCorpus: NCCL's and the clouds' own files, read and written
// again, keep every pair's NCCL label; fragments of them are refused.
func TestNCCLXMLCorpus(t *testing.T) {
	files, _ := filepath.Glob("../../../shared/corpus/nccl-xml/*.xml")
	if len(files) == 0 {
		if os.Getenv("CI") == "true" {
			t.Fatal("no NCCL XML corpus in ../shared/corpus/nccl-xml under CI")
		}
		t.Skip("no NCCL XML corpus next to the repository")
	}
	for _, f := range files {
		data, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		g, err := ncclxml.Parse(f, data)
		if err != nil {
			continue // graph files and the like are not topologies
		}
		var buf bytes.Buffer
		err = NCCLXML(&buf, g)
		if g.Partial != "" { // the fragments pasted in issues
			if err == nil {
				t.Errorf("%s: a partial topology exported", filepath.Base(f))
			}
			continue
		}
		if err != nil {
			t.Fatal(err)
		}
		wellFormed(t, f, buf.Bytes())
		back, err := ncclxml.Parse(f, buf.Bytes())
		if err != nil {
			t.Fatalf("%s: %v", f, err)
		}
		want, got := g.Pairs(), back.Pairs()
		if len(want) != len(got) {
			t.Errorf("%s: %d pairs, %d read back", filepath.Base(f), len(want), len(got))
			continue
		}
		for i := range want {
			if got[i].SMI == topology.NVLinkUnknown && want[i].NCCL != topology.NVL && want[i].SMI == got[i].PCIeSMI {
				continue // NCCL's schema cannot say "no NVLink": read back, such a pair is NV? over the same PCIe path
			}
			if want[i].A.Addr != got[i].A.Addr || want[i].B.Addr != got[i].B.Addr || want[i].NCCL != got[i].NCCL {
				t.Errorf("%s: pair %s-%s %s, read back %s-%s %s", filepath.Base(f), want[i].A.BDF(), want[i].B.BDF(), want[i].NCCL, got[i].A.BDF(), got[i].B.BDF(), got[i].NCCL)
			}
		}
	}
}

func TestWritePictures(t *testing.T) {
	dir := os.Getenv("GDTOPO_PICTURES")
	if dir == "" {
		t.Skip("set GDTOPO_PICTURES to a folder to write the pictures for a look")
	}
	for name, g := range fixtures(t) {
		for ext, f := range map[string]func(io.Writer, *topology.Graph, map[*topology.Device]string, map[*topology.Device]*topology.Device) error{"svg": SVG, "dot": DOT} {
			var buf bytes.Buffer
			if err := f(&buf, g, nil, best(t, g)); err != nil {
				t.Fatal(err)
			}
			if err := os.WriteFile(filepath.Join(dir, name+"."+ext), buf.Bytes(), 0o644); err != nil {
				t.Fatal(err)
			}
		}
	}
}

// TestNCCLXMLRefusesWhatHasNoBusID checks that a graph holding a bridge
// known only by its position, or functions with no hierarchy, is refused:
// an NCCL topology names every PCI node by its bus ID. So is a partial
// source, whose topology would pin part of a machine as all of it.
func TestNCCLXMLRefusesWhatHasNoBusID(t *testing.T) {
	bridge := topology.NewPositional(0, 29, "in.txt line 29")
	bridge.Kind = topology.KindBridge
	gpu := &topology.Device{Addr: topology.BDF{Bus: 1}, Kind: topology.KindAccelerator, Parent: bridge, NUMANode: -1, RawNUMANode: -1}
	for name, g := range map[string]*topology.Graph{
		"positional":   {Devices: []*topology.Device{gpu, bridge}},
		"no hierarchy": {Devices: []*topology.Device{{Addr: topology.BDF{Bus: 2}, Kind: topology.KindNIC, PlaceUnknown: true, NUMANode: -1, RawNUMANode: -1}}},
		"partial": {Partial: "a tree fragment: give the whole lspci -tv",
			Devices: []*topology.Device{{Addr: topology.BDF{Bus: 2}, Kind: topology.KindNIC, NUMANode: -1, RawNUMANode: -1}}},
	} {
		var buf bytes.Buffer
		if err := NCCLXML(&buf, g); err == nil || buf.Len() != 0 {
			t.Errorf("%s: err %v, %d bytes written; want an error and nothing", name, err, buf.Len())
		}
	}
}

// best is each accelerator's best NIC as gdtopo's report gives it.
func best(t *testing.T, g *topology.Graph) map[*topology.Device]*topology.Device {
	t.Helper()
	pairs := g.Pairs()
	res, err := advisor.Analyze(g, pairs, advisor.Options{})
	if err != nil {
		t.Fatal(err)
	}
	return report.Build(report.Input{Graph: g, Pairs: pairs, Advice: res, FailOn: "critical"}).BestNICs()
}

// TestNCCLXMLCPUArch: a <cpu> says the architecture the source shows, in
// NCCL's words, with vendor, family and model on x86 only, as NCCL's
// ncclTopoGetXmlFromCpu writes them; a source without cpuinfo leaves arch
// out for NCCL to fill from the machine it runs on. Grace (gb200-tray) was
// once written as x86_64.
func TestNCCLXMLCPUArch(t *testing.T) {
	all := fixtures(t)
	unknown := *all["hgx-h100"]
	unknown.System.CPUArch, unknown.System.CPUVendor = "", ""
	for _, tt := range []struct {
		name string
		g    *topology.Graph
		want string // the first <cpu>'s attributes after its affinity
	}{
		{"gb200-tray", all["gb200-tray"], `arch="arm64">`},
		{"hgx-h100", all["hgx-h100"], `arch="x86_64" vendor="GenuineIntel" familyid="6" modelid="143">`},
		{"no cpuinfo", &unknown, `affinity="00ff00ff">`},
	} {
		var b bytes.Buffer
		if err := NCCLXML(&b, tt.g); err != nil {
			t.Fatalf("%s: %v", tt.name, err)
		}
		wellFormed(t, tt.name, b.Bytes())
		first, _, _ := bytes.Cut(b.Bytes()[bytes.Index(b.Bytes(), []byte("<cpu ")):], []byte("\n"))
		if !bytes.HasSuffix(first, []byte(tt.want)) {
			t.Errorf("%s: %s, want it to end %s", tt.name, first, tt.want)
		}
	}
}

// TestNCCLXMLGDR: a <gpu>'s and an RDMA <net>'s gdr is written only where
// gdtopo can back it (a peer-memory module in the source, or the source's
// own NCCL topology); NCCL keeps a gdr a file gives, so an unfounded "1"
// would have it try GPUDirect RDMA where it may not work.
func TestNCCLXMLGDR(t *testing.T) {
	count := func(g *topology.Graph) (one, zero, gpus int) {
		var b bytes.Buffer
		if err := NCCLXML(&b, g); err != nil {
			t.Fatal(err)
		}
		out := b.String()
		return strings.Count(out, `gdr="1"`), strings.Count(out, `gdr="0"`), strings.Count(out, "<gpu ")
	}
	with := *fixture(t, "hgx-h100") // nvidia_peermem loaded
	if one, zero, gpus := count(&with); gpus != 8 || one != 8+8 || zero != 0 {
		t.Errorf("peer memory loaded: %d gdr=1, %d gdr=0 for %d GPUs and 8 NICs; want all 1", one, zero, gpus)
	}
	without := with
	without.Platform.PeerMemory = nil
	if one, zero, _ := count(&without); one != 0 || zero != 0 {
		t.Errorf("no peer-memory module: %d gdr=1, %d gdr=0; want none written", one, zero)
	}
	unread := with
	unread.Platform.ModulesRead, unread.Platform.PeerMemory = false, nil
	if one, zero, _ := count(&unread); one != 0 || zero != 0 {
		t.Errorf("sys/module not in the source: %d gdr=1, %d gdr=0; want none written", one, zero)
	}
	nccl := without
	nccl.Devices = append([]*topology.Device(nil), without.Devices...)
	gpu := *nccl.OfKind(topology.KindAccelerator)[0]
	gpu.SetNCCLGDR("0")
	for i, d := range nccl.Devices {
		if d.Addr == gpu.Addr {
			nccl.Devices[i] = &gpu
		}
	}
	if one, zero, _ := count(&nccl); one != 0 || zero != 1 {
		t.Errorf("an NCCL topology's gdr=0: %d gdr=1, %d gdr=0; want its 0 kept", one, zero)
	}
}
