// Package nccllog reads what NCCL (and RCCL) print with NCCL_DEBUG=INFO:
// per host and per rank, the library's version, the GPU, the network and the
// NICs in use, GPUDirect RDMA per HCA and per channel, PXN and the
// intra-node transports; and the bus bandwidth table nccl-tests prints
// after it. It never panics, holds bounded memory whatever it is given, and
// says when what it read was partial.
//
// The line forms are NCCL's own (src/debug.cc ncclDebugLog for the
// "host:pid:tid [cudaDev] NCCL INFO" prefix; src/transport/net.cc
// sendSetup/recvSetup, p2p.cc, shm.cc for the Channel lines; src/graph/topo.cc
// for "GPU Direct RDMA Enabled|Disabled for HCA"; src/transport/net_ib for
// "NET/IB : Using"); RCCL prints the same.
package nccllog

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io"
	"slices"
	"sort"
	"strconv"
	"strings"
)

// Bounds: whatever the input, the result stays within these.
const (
	MaxLineBytes       = 64 << 10  // a longer line is skipped and counted
	MaxBytes           = 512 << 20 // input past this is not read (the result says partial)
	MaxHosts           = 4096
	MaxRanks           = 65536
	MaxChannelsPerRank = 512 // channels past this per rank are counted, not kept
	maxEnv             = 64  // NCCL_* settings kept per host
	maxBusBW           = 256 // nccl-tests rows kept
	maxNotes           = 32
)

// ErrNotLog is returned for text that holds no NCCL or RCCL log line.
var ErrNotLog = errors.New("not an NCCL_DEBUG=INFO log: no line holds \"NCCL INFO\", \"NCCL WARN\" or \"NCCL version\"")

// Log is what one log says.
type Log struct {
	Library  string   // NCCL or RCCL
	Versions []string // library versions printed, in order of appearance
	Hosts    []*Host  // in order of first appearance
	Ranks    []*Rank  // by host, then process and device
	BusBW    []BusBW  // nccl-tests' table rows
	AvgBusBW float64  // nccl-tests' "Avg bus bandwidth" line, GB/s; 0 when absent
	Lines    int      // lines read
	LogLines int      // lines that were NCCL's
	// Partial says why what was read is not the whole log ("" when
	// nothing shows it was cut).
	Partial string
	Notes   []string // what the reader saw but could not use
	// TestRanks are nccl-tests' "# Using devices" lines: where each rank of
	// the table ran.
	TestRanks []TestRank
}

// Host is one machine of the log. Lines with no host prefix (pasted with
// it cut off) belong to the host named "".
type Host struct {
	Name       string
	Version    string            // "2.26.5+cuda12.2"; "" unknown
	Network    string            // "Using network X": IB, Socket, Libfabric, a plugin's name
	Plugin     string            // net plugin loaded ("NCCL RDMA Plugin v6 (v6)"); "" none seen
	NoPlugin   bool              // NCCL said it found no external net plugin
	IBNICs     []NIC             // from "NET/IB : Using"
	SocketNICs []NIC             // from "NET/Socket : Using"
	GDR        []HCAGDR          // "GPU Direct RDMA Enabled|Disabled for HCA"
	GDRPath    []PathGDR         // "GPU Direct RDMA Disabled for GPU x / HCA n (distance a > b)"
	OFI        string            // aws-ofi-nccl's "Selected provider is ..." text
	IBAbsent   string            // why NCCL's IB transport found nothing ("NET/IB : No device found.")
	RingPXN    int               // "use ring PXN n GDR m": -1 unknown
	RingGDR    int               // -1 unknown
	Env        map[string]string // NCCL_* "set by environment to"
	Topology   bool              // NCCL printed its "=== System" topology
	// System is the host's first "=== System" print, whole if the log
	// holds one whole (system.go builds the tree from it); nil when none.
	System *SystemPrint
	NVLS   bool // NCCL said NVLS multicast is available
	ranks  map[rankKey]*Rank
}

// NIC is one network device NCCL listed, by its index in NCCL's list (the
// number in "NET/IB/<n>").
type NIC struct {
	Index     int
	Name      string // mlx5_0, eth0
	Port      int    // IB port; 0 unknown
	LinkLayer string // IB, RoCE; "" for sockets
}

// HCAGDR is NCCL's verdict on one HCA.
type HCAGDR struct {
	Net     string // IB, Socket, Libfabric
	Index   int
	Name    string
	Enabled bool
	Reason  string // "no module" where NCCL says it; else ""
}

// PathGDR is NCCL's verdict on one GPU-NIC path (NCCL up to 2.18 prints it).
type PathGDR struct {
	GPU      string // as NCCL printed it
	BusID    string // PCI address of the GPU; "" when the number is none
	HCA      int
	Distance int // NCCL's path type: 1 PIX, 2 PXB, 3 PHB (later PXN, P2C), ...
	Level    int // NCCL_NET_GDR_LEVEL in effect
	Enabled  bool
}

// Rank is one GPU of one process: the unit NCCL's log lines name.
type Rank struct {
	Host    string
	PID     int // -1 when the lines carry no prefix
	Device  int // the [n] of the prefix: the CUDA device; -1 unknown
	Ranks   []int
	NRanks  int
	NVMLDev int    // -1 unknown
	BusID   string // "0000:1c:00.0"; "" unknown
	// LocalRank is the "localRank" NCCL prints; -1 unknown.
	LocalRank int
	Channels  []Channel
	// MoreChannels counts channels past MaxChannelsPerRank.
	MoreChannels int
}

// Channel is one "Channel NN/c : a[x] -> b[y] ... via T" line.
type Channel struct {
	ID        int
	Conn      int // the connection index after the slash; -1 in the older form
	From, To  int
	Dir       string // send, receive, or "" (P2P, SHM: the sender prints them)
	Transport string // NET, P2P, SHM, NVLS, COLLNET, or the word NCCL printed
	Net       string // NET: IB, Socket, IBext_v8, Libfabric, a plugin's name
	Dev       int    // NET: the NIC's index; -1 otherwise
	Proxy     int    // NET: the PXN proxy rank; -1 when none
	GDR       bool
	Shared    bool
	Detail    string // P2P/SHM: what follows the transport ("direct pointer/read")
}

// BusBW is one row of nccl-tests' table.
type BusBW struct {
	Bytes      int64
	OutOfPlace float64 // GB/s
	InPlace    float64 // GB/s; 0 when absent
}

// TestRank is one "#  Rank  0 Group  0 Pid 1234 on host device  0
// [0000:1a:00] NAME" line of nccl-tests (src/common.cu prints it).
type TestRank struct {
	Rank   int
	Host   string
	Device int    // the CUDA device
	Bus    string // as printed: "0000:1a:00" (domain:bus:device) or "0x1a" (bus alone, older nccl-tests)
	Name   string // the GPU's name
}

type rankKey struct {
	pid, dev int
	rank     int // only for lines with no prefix
}

var (
	rePrefix  = lazy(`([A-Za-z0-9._-]+):(\d+):(\d+) \[(\d+)\](?: \S+:\d+(?: \([^)]*\))?)? $`)
	reVersion = lazy(`\b(NCCL|RCCL) version\s*:?\s*(\S+)`)
	reInit    = lazy(`\bcomm 0x[0-9a-fA-F]+ rank (\d+) nranks (\d+) cudaDev (\d+)(?: nvmlDev (\d+))? busId ([0-9a-fA-F]+)`)
	reLocal   = lazy(`\bcomm 0x[0-9a-fA-F]+ rank (\d+) nRanks (\d+) nNodes \d+ localRanks \d+ localRank (\d+)`)
	reChannel = lazy(`^(?:Channel|Ring|Coll) (\d+)(?:/(\d+))? : (\d+)(?:\[([0-9a-fA-F]+)\])? -> (\d+)(?:\[([0-9a-fA-F]+)\])?(?: \[(send|receive)\])? via (.*)$`)
	reColl    = lazy(`^Coll(?:Net)? (\d+)(?:/(\d+))? : (\d+) \[(send|receive)\] via (COLLNET/.*)$`)
	reNet     = lazy(`^(NET|COLLNET)/(.+)/(\d+)(?:\((\d+)\))?((?:/[A-Za-z]+(?:\([A-Z]+\))?)*)$`)
	reIBNIC   = lazy(`\[(\d+)\]([^\s:\[\]]+):(\d+)/([A-Za-z]+)`)
	reSockNIC = lazy(`\[(\d+)\]([^\s:\[\]<]+):`)
	reHCAGDR  = lazy(`^NET/(.+?) : GPU Direct RDMA (Enabled|Disabled) for HCA (\d+) '([^']*)'(?: \((.*)\))?`)
	rePathGDR = lazy(`^GPU Direct RDMA (Enabled|Disabled) for GPU ([0-9a-fA-F]+) / HCA (\d+) \(distance (\d+) ?(?:>|<=) ?(-?\d+)\)`)
	reRing    = lazy(`use ring PXN (\d+) GDR (\d+)`)
	reEnv     = lazy(`^(NCCL_[A-Z0-9_]+) set by environment to (.*?)\.?$`)
	rePlugin  = lazy(`^NET/Plugin ?: Loaded net plugin (.+)$`)
	reAvg     = lazy(`^#\s*Avg bus bandwidth\s*:\s*([0-9.]+)`)
	reTestDev = lazy(`^#\s*Rank\s+(\d+)\s+Group\s+\d+\s+Pid\s+\d+\s+on\s+(\S+)\s+device\s+(\d+)\s+\[([0-9A-Fa-fx:]+)\]\s*(.*)$`)
)

// Parse reads a log from r; name is for errors. It returns ErrNotLog
// (wrapped) for text that holds no NCCL line.
func Parse(name string, r io.Reader) (*Log, error) {
	p := &parser{log: &Log{Library: "NCCL"}, hostAt: map[string]*Host{}, prints: map[string]*SystemPrint{}}
	lr := &io.LimitedReader{R: r, N: MaxBytes + 1}
	br := bufio.NewReaderSize(lr, 64<<10)
	var long int
	for {
		line, err := readLine(br)
		if len(line) > 0 || err == nil {
			p.log.Lines++
			if len(line) > MaxLineBytes {
				long++
			} else if bytes.IndexByte(line, 0) >= 0 {
				return nil, fmt.Errorf("%s: %w (binary data)", name, ErrNotLog)
			} else {
				p.line(strings.TrimRight(string(line), "\r"))
			}
		}
		if err == io.EOF {
			break
		}
		if err != nil {
			return nil, fmt.Errorf("%s: %w", name, err)
		}
	}
	if lr.N <= 0 {
		p.partial(fmt.Sprintf("only the first %d MiB were read", MaxBytes>>20))
	}
	if long > 0 {
		p.note(fmt.Sprintf("%d line(s) over %d KiB skipped", long, MaxLineBytes>>10))
	}
	if p.log.LogLines == 0 {
		return nil, fmt.Errorf("%s: %w", name, ErrNotLog)
	}
	p.finish()
	return p.log, nil
}

// readLine returns the next line without its newline, however long; past
// MaxLineBytes only the length grows (the bytes are dropped).
func readLine(br *bufio.Reader) ([]byte, error) {
	var out []byte
	over := 0
	for {
		chunk, err := br.ReadSlice('\n')
		if len(out)+len(chunk) <= MaxLineBytes+1 {
			out = append(out, chunk...)
		} else {
			over += len(chunk)
		}
		if err == bufio.ErrBufferFull {
			continue
		}
		if over > 0 {
			return make([]byte, MaxLineBytes+1), nil
		}
		return bytes.TrimSuffix(out, []byte("\n")), err
	}
}

type parser struct {
	log      *Log
	hostAt   map[string]*Host
	last     string     // the last non-empty line
	lastCut  bool       // the last line looked like the start of an NCCL line
	lastMsg  string     // the last line's message, when it was NCCL's
	badChans int        // Channel lines in a form not read
	recent   [32]string // the last messages, to tell a cut last line
	nRecent  int
	prints   map[string]*SystemPrint // "=== System" prints being read, by line prefix (one thread's)
	tableHdr bool                    // nccl-tests' header seen
	rootCol  bool                    // its table has a root column
	dropped  int                     // ranks or hosts over the bounds
}

func (p *parser) note(s string) {
	if len(p.log.Notes) < maxNotes {
		p.log.Notes = append(p.log.Notes, s)
	}
}

func (p *parser) partial(s string) {
	if p.log.Partial == "" {
		p.log.Partial = s
	} else if !strings.Contains(p.log.Partial, s) {
		p.log.Partial += "; " + s
	}
}

func (p *parser) host(name string) *Host {
	if h := p.hostAt[name]; h != nil {
		return h
	}
	if len(p.log.Hosts) >= MaxHosts {
		p.dropped++
		return nil
	}
	h := &Host{Name: name, RingPXN: -1, RingGDR: -1, Env: map[string]string{}, ranks: map[rankKey]*Rank{}}
	p.hostAt[name] = h
	p.log.Hosts = append(p.log.Hosts, h)
	return h
}

func (p *parser) rank(h *Host, k rankKey) *Rank {
	if rk := h.ranks[k]; rk != nil {
		return rk
	}
	if len(p.log.Ranks) >= MaxRanks {
		p.dropped++
		return nil
	}
	rk := &Rank{Host: h.Name, PID: k.pid, Device: k.dev, NRanks: 0, NVMLDev: -1, LocalRank: -1}
	if k.pid < 0 && k.rank >= 0 {
		rk.Ranks = []int{k.rank}
	}
	h.ranks[k] = rk
	p.log.Ranks = append(p.log.Ranks, rk)
	return rk
}

func addInt(s []int, v int) []int {
	for _, x := range s {
		if x == v {
			return s
		}
	}
	if len(s) >= 64 {
		return s
	}
	return append(s, v)
}

// line reads one line.
func (p *parser) line(l string) {
	t := strings.TrimSpace(l)
	if t == "" {
		return
	}
	prev := p.last
	if p.lastMsg != "" {
		p.recent[p.nRecent%len(p.recent)] = p.lastMsg
		p.nRecent++
	}
	p.last, p.lastCut, p.lastMsg = t, false, ""
	if p.busbw(t) {
		return
	}
	i := strings.Index(l, "NCCL INFO ")
	warn := false
	if i < 0 {
		if i = strings.Index(l, "NCCL WARN "); i >= 0 {
			warn = true
		}
	}
	if i < 0 {
		if m := reVersion.FindStringSubmatch(t); m != nil {
			// the banner nccl-tests and RCCL print with no prefix
			p.log.LogLines++
			p.version(m[1], m[2])
			return
		}
		// A line cut before its marker looks like "host:pid:tid [d", or
		// is the start of the line before it; it matters if it is the last.
		p.lastCut = reCutStart.MatchString(t) || len(t) < len(prev) && strings.HasPrefix(prev, t)
		return
	}
	p.log.LogLines++
	msg := strings.TrimSpace(l[i+len("NCCL INFO "):])
	p.lastMsg = msg
	hostName, pid, dev := "", -1, -1
	if m := rePrefix.FindStringSubmatch(l[:i]); m != nil {
		hostName = m[1]
		pid, _ = strconv.Atoi(m[2])
		dev, _ = strconv.Atoi(m[4])
	}
	h := p.host(hostName)
	if h == nil || warn {
		return
	}
	p.systemLine(h, strings.TrimSpace(l[:i]), l[i+len("NCCL INFO "):], msg)
	p.info(h, pid, dev, msg)
}

// reRingOrder is a channel's ring order ("Channel 00/04 : 0 3 2 1"),
// not a connection.
// NCCL prints it "Channel %02d/%02d :" (the count of channels, two
// digits), a connection "Channel %02d/%d" (its index, one digit).
var reRingOrder = lazy(`^(?:Channel|Ring) \d+(?:/\d\d+)? :(?:\s+\d+)*\s*$`)

// knownStarts are messages a cut last line may be the start of.
var knownStarts = []string{"Channel ", "Connected all rings", "Connected all trees", "NET/IB : Using", "NET/Socket : Using", "Using network ", "comm 0x", "Init COMPLETE"}

// knownWords end the transports of a Channel line ("P2P/direct pointer/read",
// ".../GDRDMA/Shared").
var knownWords = []string{"pointer", "direct", "read", "IPC", "CUMEM", "GDRDMA", "Shared"}

// cutMessage reports whether msg is a proper start of a message NCCL
// prints, as a line cut short is.
func cutMessage(msg string) bool {
	if msg == "" {
		return false
	}
	if _, via, ok := strings.Cut(msg, " via "); ok && strings.HasPrefix(msg, "Channel ") {
		seg := via[strings.LastIndexByte(via, '/')+1:]
		word := seg[strings.LastIndexByte(seg, ' ')+1:]
		for _, k := range knownWords {
			if len(word) < len(k) && strings.HasPrefix(k, word) {
				return true
			}
		}
	}
	for _, k := range knownStarts {
		if len(msg) < len(k) && strings.HasPrefix(k, msg) {
			return true
		}
	}
	return false
}

// reCutStart is the start of an NCCL line: "host:pid:tid [" or shorter.
var reCutStart = lazy(`^(?:\[[^\]]*\] ?)?[A-Za-z0-9._-]+:\d+(?::\d*(?: \[\d*\]?)?)?$|NCCL INFO [A-Za-z]*$`)

func (p *parser) version(lib, v string) {
	if lib == "RCCL" || strings.Contains(v, "hip") {
		p.log.Library = "RCCL"
	}
	for _, x := range p.log.Versions {
		if x == v {
			return
		}
	}
	if len(p.log.Versions) < 8 {
		p.log.Versions = append(p.log.Versions, v)
	}
}

// rankFor is the rank a line of process pid and device dev belongs to; for
// lines with no prefix, the rank number decides.
func (p *parser) rankFor(h *Host, pid, dev, rank int) *Rank {
	k := rankKey{pid: pid, dev: dev, rank: -1}
	if pid < 0 {
		if rank < 0 {
			return nil
		}
		k = rankKey{pid: -1, dev: -1, rank: rank}
	}
	return p.rank(h, k)
}

func (p *parser) info(h *Host, pid, dev int, msg string) {
	switch {
	case strings.HasPrefix(msg, "NCCL version "), strings.HasPrefix(msg, "RCCL version"):
		if m := reVersion.FindStringSubmatch(msg); m != nil {
			p.version(m[1], m[2])
			if h.Version == "" {
				h.Version = m[2]
			}
		}
	case strings.HasPrefix(msg, "Coll "), strings.HasPrefix(msg, "CollNet "):
		p.collnet(h, pid, dev, msg)
	case strings.HasPrefix(msg, "Channel "), strings.HasPrefix(msg, "Ring "):
		p.channel(h, pid, dev, msg)
	case strings.HasPrefix(msg, "NVLS multicast support is "):
		h.NVLS = !strings.Contains(msg, "not available")
	case strings.Contains(msg, "Init START") || strings.Contains(msg, "Init COMPLETE"):
		if m := reInit.FindStringSubmatch(msg); m != nil {
			rank, _ := strconv.Atoi(m[1])
			if rk := p.rankFor(h, pid, dev, rank); rk != nil {
				rk.Ranks = addInt(rk.Ranks, rank)
				rk.NRanks, _ = strconv.Atoi(m[2])
				if rk.Device < 0 {
					rk.Device, _ = strconv.Atoi(m[3])
				}
				if m[4] != "" {
					rk.NVMLDev, _ = strconv.Atoi(m[4])
				}
				rk.BusID = BusID(m[5])
			}
		} else if strings.Contains(msg, "rank ") {
			p.note("an Init line in a form not read: " + clip(msg))
		}
	case strings.HasPrefix(msg, "comm 0x") && strings.Contains(msg, "localRank "):
		if m := reLocal.FindStringSubmatch(msg); m != nil {
			rank, _ := strconv.Atoi(m[1])
			if rk := p.rankFor(h, pid, dev, rank); rk != nil {
				rk.Ranks = addInt(rk.Ranks, rank)
				rk.LocalRank, _ = strconv.Atoi(m[3])
			}
		}
	case strings.HasPrefix(msg, "Using network "):
		h.Network = strings.TrimSpace(strings.TrimPrefix(msg, "Using network "))
	case strings.HasPrefix(msg, "NET/IB : Using"), strings.HasPrefix(msg, "NET/IBext : Using"), strings.HasPrefix(msg, "NET/IB: Using"):
		if h.IBNICs == nil {
			for _, m := range reIBNIC.FindAllStringSubmatch(cutOOB(msg), 64) {
				i, _ := strconv.Atoi(m[1])
				port, _ := strconv.Atoi(m[3])
				h.IBNICs = append(h.IBNICs, NIC{Index: i, Name: m[2], Port: port, LinkLayer: m[4]})
			}
		}
	case strings.HasPrefix(msg, "NET/Socket : Using"):
		if h.SocketNICs == nil {
			for _, m := range reSockNIC.FindAllStringSubmatch(msg, 64) {
				i, _ := strconv.Atoi(m[1])
				h.SocketNICs = append(h.SocketNICs, NIC{Index: i, Name: m[2]})
			}
		}
	case strings.HasPrefix(msg, "NET/IB : No device found"), strings.HasPrefix(msg, "Failed to open libibverbs"):
		if h.IBAbsent == "" {
			h.IBAbsent = strings.TrimSpace(msg)
		}
	case strings.HasPrefix(msg, "NET/OFI Selected"):
		h.OFI = strings.TrimPrefix(msg, "NET/OFI ")
	case strings.HasPrefix(msg, "NET/Plugin"):
		if m := rePlugin.FindStringSubmatch(msg); m != nil {
			h.Plugin = m[1]
		} else if strings.Contains(msg, "No plugin found") || strings.Contains(msg, "Could not find: libnccl-net") || strings.Contains(msg, "Using internal net") || strings.Contains(msg, "Using internal network") {
			h.NoPlugin = true
		}
	case strings.HasPrefix(msg, "=== System"):
		h.Topology = true
	default:
		if m := reHCAGDR.FindStringSubmatch(msg); m != nil {
			i, _ := strconv.Atoi(m[3])
			g := HCAGDR{Net: m[1], Index: i, Name: m[4], Enabled: m[2] == "Enabled", Reason: m[5]}
			h.GDR = appendOnce(h.GDR, g, 256)
			return
		}
		if m := rePathGDR.FindStringSubmatch(msg); m != nil {
			hca, _ := strconv.Atoi(m[3])
			d, _ := strconv.Atoi(m[4])
			lv, _ := strconv.Atoi(m[5])
			g := PathGDR{GPU: m[2], HCA: hca, Distance: d, Level: lv, Enabled: m[1] == "Enabled"}
			// NCCL 2.7 to 2.18 print the GPU's busId; a number below
			// 0x1000 (bus 0) is a device index of another release.
			if v, err := strconv.ParseUint(m[2], 16, 64); err == nil && v >= 0x1000 {
				g.BusID = BusID(m[2])
			}
			h.GDRPath = appendOnce(h.GDRPath, g, 1024)
			return
		}
		if m := reRing.FindStringSubmatch(msg); m != nil {
			h.RingPXN, _ = strconv.Atoi(m[1])
			h.RingGDR, _ = strconv.Atoi(m[2])
			return
		}
		if m := reEnv.FindStringSubmatch(msg); m != nil && len(h.Env) < maxEnv {
			h.Env[m[1]] = strings.TrimSpace(m[2])
		}
	}
}

// cutOOB drops the "; OOB iface:addr" tail of a "NET/IB : Using" line.
func cutOOB(s string) string {
	if i := strings.Index(s, "; OOB"); i >= 0 {
		return s[:i]
	}
	return s
}

func clip(s string) string {
	if len(s) > 120 {
		return s[:120] + "…"
	}
	return s
}

// channel reads a Channel line. The sender prints send lines and P2P/SHM
// lines with its own rank first; the receiver prints receive lines with its
// own rank second (src/transport/net.cc sendSetup, recvSetup).
func (p *parser) channel(h *Host, pid, dev int, msg string) {
	m := reChannel.FindStringSubmatch(msg)
	if m == nil {
		if !reRingOrder.MatchString(msg) {
			p.lastCut = true
			p.badChans++
		}
		return
	}
	c := Channel{Conn: -1, Dev: -1, Proxy: -1, Dir: m[7]}
	c.ID, _ = strconv.Atoi(m[1])
	if m[2] != "" {
		c.Conn, _ = strconv.Atoi(m[2])
	}
	c.From, _ = strconv.Atoi(m[3])
	c.To, _ = strconv.Atoi(m[5])
	own, ownTag := c.From, m[4]
	if c.Dir == "receive" {
		own, ownTag = c.To, m[6]
	}
	via := strings.TrimSpace(m[8])
	if n := reNet.FindStringSubmatch(via); n != nil {
		c.Transport, c.Net = n[1], n[2]
		c.Dev, _ = strconv.Atoi(n[3])
		if n[4] != "" {
			c.Proxy, _ = strconv.Atoi(n[4])
		}
		for _, f := range strings.Split(n[5], "/") {
			switch {
			case strings.HasPrefix(f, "GDRDMA"):
				c.GDR = true
			case f == "Shared":
				c.Shared = true
			}
		}
	} else {
		c.Transport, c.Detail, _ = strings.Cut(via, "/")
		if c.Transport == "" || c.Transport == "NET" || c.Transport == "COLLNET" || strings.ContainsAny(c.Transport, " []") {
			p.lastCut = true
			p.badChans++
			return
		}
	}
	rk := p.rankFor(h, pid, dev, own)
	if rk == nil {
		return
	}
	rk.Ranks = addInt(rk.Ranks, own)
	if ownTag != "" {
		if len(ownTag) >= 4 { // the older form gives the GPU's busId
			if rk.BusID == "" {
				rk.BusID = BusID(ownTag)
			}
		} else if rk.NVMLDev < 0 {
			rk.NVMLDev, _ = strconv.Atoi(ownTag)
		}
	}
	for _, x := range rk.Channels {
		if x == c {
			return
		}
	}
	if len(rk.Channels) >= MaxChannelsPerRank {
		rk.MoreChannels++
		return
	}
	rk.Channels = append(rk.Channels, c)
}

// collnet reads a CollNet connection line, which names one rank, its own
// (src/transport/coll_net.cc sendSetup, recvSetup).
func (p *parser) collnet(h *Host, pid, dev int, msg string) {
	m := reColl.FindStringSubmatch(msg)
	if m == nil {
		return
	}
	n := reNet.FindStringSubmatch(m[5])
	if n == nil {
		p.lastCut = true
		return
	}
	c := Channel{Conn: -1, Proxy: -1, Dir: m[4], Transport: "COLLNET", Net: n[2]}
	c.ID, _ = strconv.Atoi(m[1])
	if m[2] != "" {
		c.Conn, _ = strconv.Atoi(m[2])
	}
	own, _ := strconv.Atoi(m[3])
	c.From, c.To = own, own
	c.Dev, _ = strconv.Atoi(n[3])
	c.GDR = strings.Contains(n[5], "GDRDMA")
	if rk := p.rankFor(h, pid, dev, own); rk != nil {
		rk.Ranks = addInt(rk.Ranks, own)
		if len(rk.Channels) < MaxChannelsPerRank {
			rk.Channels = append(rk.Channels, c)
		} else {
			rk.MoreChannels++
		}
	}
}

// busbw reads nccl-tests' table: its header and its rows.
func (p *parser) busbw(t string) bool {
	if strings.HasPrefix(t, "#") {
		if strings.Contains(t, "busbw") && strings.Contains(t, "size") {
			p.tableHdr, p.rootCol = true, strings.Contains(t, "root")
		}
		if m := reAvg.FindStringSubmatch(t); m != nil {
			p.log.AvgBusBW, _ = strconv.ParseFloat(m[1], 64)
		}
		if m := reTestDev.FindStringSubmatch(t); m != nil && len(p.log.TestRanks) < MaxRanks {
			rank, _ := strconv.Atoi(m[1])
			dev, _ := strconv.Atoi(m[3])
			p.log.TestRanks = append(p.log.TestRanks, TestRank{Rank: rank, Host: m[2], Device: dev, Bus: strings.ToLower(m[4]), Name: strings.TrimSpace(m[5])})
		}
		return true
	}
	if !p.tableHdr || t[0] < '0' || t[0] > '9' {
		return false
	}
	f := strings.Fields(t)
	busAt := 6
	if p.rootCol {
		busAt = 7
	}
	if len(f) <= busAt {
		return false
	}
	size, err := strconv.ParseInt(f[0], 10, 64)
	if err != nil {
		return false
	}
	out, err := strconv.ParseFloat(f[busAt], 64)
	if err != nil {
		return false
	}
	row := BusBW{Bytes: size, OutOfPlace: out}
	if len(f) > busAt+4 {
		row.InPlace, _ = strconv.ParseFloat(f[busAt+4], 64)
	}
	if len(p.log.BusBW) < maxBusBW {
		p.log.BusBW = append(p.log.BusBW, row)
	}
	p.log.LogLines++
	return true
}

func (p *parser) finish() {
	p.closePrints()
	if p.lastCut || cutMessage(p.lastMsg) || p.startsRecent(p.lastMsg) {
		p.partial("the last line is cut: " + clip(p.last))
	} else if p.badChans > 0 {
		p.note(fmt.Sprintf("%d Channel line(s) in a form not read", p.badChans))
	}
	if p.dropped > 0 {
		p.partial(fmt.Sprintf("%d host(s) or rank(s) over the bounds (%d hosts, %d ranks) left out", p.dropped, MaxHosts, MaxRanks))
	}
	if len(p.log.Versions) > 1 {
		p.note("several library versions (" + strings.Join(p.log.Versions, ", ") + "): lines of several jobs may be mixed")
	}
	for _, h := range p.log.Hosts {
		if h.Version == "" && len(p.log.Versions) == 1 {
			h.Version = p.log.Versions[0]
		}
	}
	for _, rk := range p.log.Ranks {
		sort.Ints(rk.Ranks)
	}
	sort.SliceStable(p.log.Ranks, func(i, j int) bool {
		a, b := p.log.Ranks[i], p.log.Ranks[j]
		if a.Host != b.Host {
			return p.hostIndex(a.Host) < p.hostIndex(b.Host)
		}
		if first(a.Ranks) != first(b.Ranks) {
			return first(a.Ranks) < first(b.Ranks)
		}
		if a.PID != b.PID {
			return a.PID < b.PID
		}
		return a.Device < b.Device
	})
}

// startsRecent reports whether msg is a proper start of a message a little
// before it: the same line cut short.
func (p *parser) startsRecent(msg string) bool {
	if msg == "" {
		return false
	}
	for _, r := range p.recent {
		if len(msg) < len(r) && strings.HasPrefix(r, msg) {
			return true
		}
	}
	return false
}

func (p *parser) hostIndex(name string) int {
	for i, h := range p.log.Hosts {
		if h.Name == name {
			return i
		}
	}
	return len(p.log.Hosts)
}

func first(s []int) int {
	if len(s) == 0 {
		return 1 << 30
	}
	return s[0]
}

// BusID writes NCCL's busId ("1c000", "101c0", "0000:1c:00.0") as a PCI
// address, domain included: NCCL prints it as one hex number of
// domain, bus, device and function (src/misc/utils.cc int64ToBusId).
func BusID(s string) string {
	s = strings.ToLower(strings.TrimSpace(s))
	if strings.Contains(s, ":") {
		return s
	}
	v, err := strconv.ParseUint(s, 16, 64)
	if err != nil {
		return ""
	}
	return fmt.Sprintf("%04x:%02x:%02x.%x", v>>20, (v>>12)&0xff, (v>>4)&0xff, v&0xf)
}

// appendOnce appends v to s unless s holds it already or has limit
// elements: a log repeats its lines per rank and thread.
func appendOnce[T comparable](s []T, v T, limit int) []T {
	if len(s) >= limit || slices.Contains(s, v) {
		return s
	}
	return append(s, v)
}
