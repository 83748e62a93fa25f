package cli

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"net"
	"net/http"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/gdtopo/gdtopo/fixtures"
)

// needTools returns the paths of the named programs; outside CI a missing
// one skips the test, in CI (CI set) it fails it.
func needTools(t *testing.T, names ...string) []string {
	t.Helper()
	var out []string
	for _, n := range names {
		p, err := exec.LookPath(n)
		if err != nil {
			if os.Getenv("CI") == "" {
				t.Skipf("%s not installed (apt-get install prometheus prometheus-node-exporter); skipped outside CI", n)
			}
			t.Fatalf("%s not installed: .ci/run installs it", n)
		}
		out = append(out, p)
	}
	return out
}

// freePort is a TCP port on 127.0.0.1 that was free a moment ago.
func freePort(t *testing.T) int {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	return l.Addr().(*net.TCPAddr).Port
}

// startDaemon runs a program until the test ends, its output in a file
// shown when the test fails.
func startDaemon(t *testing.T, dir, name string, args ...string) {
	t.Helper()
	logf, err := os.Create(filepath.Join(dir, filepath.Base(name)+".log"))
	if err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(name, args...)
	cmd.Stdout, cmd.Stderr = logf, logf
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		_ = cmd.Process.Kill()
		_ = cmd.Wait()
		logf.Close()
		if t.Failed() {
			b, _ := os.ReadFile(logf.Name())
			t.Logf("%s log:\n%s", name, b[max(0, len(b)-4000):])
		}
	})
}

// promSample is one sample of a PromQL instant query's result.
type promSample struct {
	Metric map[string]string
	Value  string
}

// promQuery asks the Prometheus at addr (loopback) for query.
func promQuery(ctx context.Context, addr, query string) ([]promSample, error) {
	u := "http://" + addr + "/api/v1/query?query=" + url.QueryEscape(query)
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, u, nil)
	if err != nil {
		return nil, err
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		return nil, err
	}
	defer resp.Body.Close()
	var body struct {
		Status string
		Error  string
		Data   struct {
			Result []struct {
				Metric map[string]string
				Value  [2]any
			}
		}
	}
	if err := json.NewDecoder(resp.Body).Decode(&body); err != nil {
		return nil, err
	}
	if body.Status != "success" {
		return nil, fmt.Errorf("query %s: %s", query, body.Error)
	}
	var out []promSample
	for _, r := range body.Data.Result {
		out = append(out, promSample{Metric: r.Metric, Value: fmt.Sprint(r.Value[1])})
	}
	return out, nil
}

// TestPrometheusEndToEnd writes check -o prometheus for a clean server and
// one with a NIC at x8 into a textfile collector folder, has the real
// node_exporter serve it and the real Prometheus scrape it, both on
// loopback, and asks Prometheus for the pairs under 90% efficiency: the
// answer must be the pairs gdtopo wrote under 0.9, with their values; and
// the x8 NIC's pair and finding must be there, for the faulty server only,
// fleet -o prometheus's gdtopo_fleet_alike must single it out, and the
// shipped alerting rules (deploy/gdtopo-alerts.yaml, their "for" waits cut
// to none) must fire the warning alerts for it and for it alone.
func TestPrometheusEndToEnd(t *testing.T) {
	t.Parallel()
	bins := needTools(t, "prometheus", "prometheus-node-exporter")
	dir := t.TempDir()
	clean, faulty := filepath.Join(dir, "clean"), filepath.Join(dir, "nic-x8")
	if err := fixtures.Write(clean, fixtures.FaultVariant(fixtures.FaultNone)); err != nil {
		t.Fatal(err)
	}
	if err := fixtures.Write(faulty, fixtures.FaultVariant(fixtures.FaultNICx8)); err != nil {
		t.Fatal(err)
	}
	code, prom, errb := run("check", clean, faulty, "-o", "prometheus", "--fail-on", "never")
	if code != ExitOK {
		t.Fatalf("check -o prometheus: exit %d: %s", code, errb)
	}
	// And fleet's view of the two and another clean one: the faulty one is
	// not alike.
	clean2 := filepath.Join(dir, "clean2")
	if err := fixtures.Write(clean2, fixtures.FaultVariant(fixtures.FaultNone)); err != nil {
		t.Fatal(err)
	}
	code, fleetProm, errb := run("fleet", clean, faulty, clean2, "-o", "prometheus")
	if code != ExitFindings {
		t.Fatalf("fleet -o prometheus: exit %d: %s", code, errb)
	}
	textDir := filepath.Join(dir, "textfile")
	if err := os.Mkdir(textDir, 0o755); err != nil {
		t.Fatal(err)
	}
	for name, text := range map[string]string{"gdtopo.prom": prom, "gdtopo-fleet.prom": fleetProm} {
		if err := os.WriteFile(filepath.Join(textDir, name), []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	// What gdtopo wrote: the efficiency samples under 0.9, "source gpu nic value".
	var want []string
	sc := bufio.NewScanner(strings.NewReader(prom))
	for sc.Scan() {
		l := sc.Text()
		if !strings.HasPrefix(l, "gdtopo_pair_efficiency_ratio{") {
			continue
		}
		var v float64
		i := strings.LastIndexByte(l, ' ')
		if _, err := fmt.Sscan(l[i+1:], &v); err != nil {
			t.Fatalf("%q: %v", l, err)
		}
		if v < 0.9 {
			want = append(want, fmt.Sprintf("%s %s %s %s", label(l, "source"), label(l, "pci_bus_id"), label(l, "nic"), l[i+1:]))
		}
	}
	slices.Sort(want)
	if len(want) == 0 {
		t.Fatalf("no pair under 0.9 in gdtopo's output for the x8 NIC:\n%s", prom)
	}

	nodeAddr := fmt.Sprintf("127.0.0.1:%d", freePort(t))
	startDaemon(t, dir, bins[1], "--web.listen-address="+nodeAddr, "--collector.disable-defaults",
		"--collector.textfile", "--collector.textfile.directory="+textDir)
	promAddr := fmt.Sprintf("127.0.0.1:%d", freePort(t))
	rules, err := os.ReadFile("../../deploy/gdtopo-alerts.yaml")
	if err != nil {
		t.Fatal(err)
	}
	rulesFile := filepath.Join(dir, "gdtopo-alerts.yaml")
	if err := os.WriteFile(rulesFile, forNone.ReplaceAll(rules, []byte("${1}for: 0s")), 0o644); err != nil {
		t.Fatal(err)
	}
	cfg := filepath.Join(dir, "prometheus.yml")
	if err := os.WriteFile(cfg, []byte(fmt.Sprintf(`global:
  scrape_interval: 1s
  evaluation_interval: 1s
rule_files: ['%s']
scrape_configs:
  - job_name: node
    static_configs:
      - targets: ['%s']
`, rulesFile, nodeAddr)), 0o644); err != nil {
		t.Fatal(err)
	}
	startDaemon(t, dir, bins[0], "--config.file="+cfg, "--storage.tsdb.path="+filepath.Join(dir, "tsdb"),
		"--web.listen-address="+promAddr)

	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	query := "gdtopo_pair_efficiency_ratio < 0.9"
	var got []string
	var lastErr error
	for ctx.Err() == nil {
		samples, err := promQuery(ctx, promAddr, query)
		lastErr = err
		got = got[:0]
		for _, s := range samples {
			if s.Metric["job"] != "node" || s.Metric["instance"] != nodeAddr {
				t.Fatalf("a sample from elsewhere: %v", s.Metric)
			}
			got = append(got, fmt.Sprintf("%s %s %s %s", s.Metric["source"], s.Metric["pci_bus_id"], s.Metric["nic"], s.Value))
		}
		if err == nil && len(got) >= len(want) {
			break
		}
		time.Sleep(250 * time.Millisecond)
	}
	slices.Sort(got)
	if !slices.Equal(got, want) {
		t.Fatalf("Prometheus answered %q with\n%s\n(last error %v), gdtopo wrote\n%s", query, strings.Join(got, "\n"), lastErr, strings.Join(want, "\n"))
	}
	// The x8 NIC shows in the throughput (efficiency is against the NIC's
	// own capped rate): GPU1-NIC1 expects less on the faulty server.
	samples, err := promQuery(ctx, promAddr, `gdtopo_pair_expected_throughput_bytes_per_second{pci_bus_id="00000000:1A:00.0",nic="0000:1b:00.0"}`+
		` < on (gpu, nic) group_left gdtopo_pair_expected_throughput_bytes_per_second{pci_bus_id="00000000:1A:00.0",nic="0000:1b:00.0",source="`+clean+`"}`)
	if err != nil || len(samples) != 1 || samples[0].Metric["source"] != faulty {
		t.Errorf("the x8 NIC's pair slower than the clean server's: %v %v", samples, err)
	}
	// The nodes unlike the fleet's majority.
	samples, err = promQuery(ctx, promAddr, `gdtopo_fleet_alike == 0`)
	if err != nil || len(samples) != 1 || samples[0].Metric["source"] != faulty {
		t.Errorf("gdtopo_fleet_alike == 0: %v %v, want %s only", samples, err, faulty)
	}
	samples, err = promQuery(ctx, promAddr, `gdtopo_fleet_worse_differences > 0`)
	if err != nil || len(samples) != 1 || samples[0].Metric["source"] != faulty || samples[0].Value != strconv.Itoa(worseDiffs(t, fleetProm, faulty)) {
		t.Errorf("gdtopo_fleet_worse_differences > 0: %v %v", samples, err)
	}
	samples, err = promQuery(ctx, promAddr, `gdtopo_fleet_worse_differences_by_what{what="link"}`)
	if err != nil || len(samples) != 1 || samples[0].Metric["source"] != faulty {
		t.Errorf(`gdtopo_fleet_worse_differences_by_what{what="link"}: %v %v, want %s only`, samples, err, faulty)
	}
	// And the finding: the x8 NIC's warning, for that source only.
	samples, err = promQuery(ctx, promAddr, `gdtopo_findings{code="link-width-degraded"}`)
	if err != nil || len(samples) != 1 || samples[0].Metric["source"] != faulty || samples[0].Metric["severity"] != "warning" {
		t.Errorf("link-width-degraded in Prometheus: %v %v", samples, err)
	}
	// The rules: the warning finding and the planned pair under its
	// healthy figure fire for the faulty server, GPU1 (the x8 NIC's), and
	// no other alert fires (the clean servers have no finding).
	want = []string{
		"GdtopoPlannedPairBelowHealthy " + faulty + " 1 00000000:1A:00.0",
		"GdtopoWarningFinding " + faulty + "  ",
	}
	for ctx.Err() == nil {
		samples, err = promQuery(ctx, promAddr, `ALERTS{alertstate="firing"}`)
		got = got[:0]
		for _, s := range samples {
			got = append(got, fmt.Sprintf("%s %s %s %s", s.Metric["alertname"], s.Metric["source"], s.Metric["gpu"], s.Metric["pci_bus_id"]))
		}
		if err == nil && len(got) >= len(want) {
			break
		}
		time.Sleep(250 * time.Millisecond)
	}
	slices.Sort(got)
	if !slices.Equal(got, want) {
		t.Errorf("firing alerts (%v):\n%s\nwant\n%s", err, strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
}

// forNone finds the rules' "for:" waits, which the end-to-end test cuts.
var forNone = regexp.MustCompile(`(?m)^(\s+)for: \S+$`)

// worseDiffs is the gdtopo_fleet_worse_differences gdtopo wrote for source.
func worseDiffs(t *testing.T, text, source string) int {
	t.Helper()
	prefix := `gdtopo_fleet_worse_differences{source="` + source + `"} `
	for _, l := range strings.Split(text, "\n") {
		if v, ok := strings.CutPrefix(l, prefix); ok {
			n, err := strconv.Atoi(v)
			if err != nil {
				t.Fatal(err)
			}
			return n
		}
	}
	t.Fatalf("no %s in:\n%s", prefix, text)
	return 0
}

// label is the value of label name in a line of the text format.
func label(line, name string) string {
	i := strings.Index(line, name+`="`)
	if i < 0 {
		return ""
	}
	rest := line[i+len(name)+2:]
	return rest[:strings.IndexByte(rest, '"')]
}
