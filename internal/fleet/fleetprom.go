package fleet

import (
	"bufio"
	"fmt"
	"io"
	"sort"
	"strconv"
	"time"
)

// WriteFleetPrometheus writes gdtopo fleet's result in the Prometheus text
// format, one sample per source and metric, for node_exporter's textfile
// collector on the host that runs fleet:
//
//	gdtopo_fleet_up{source}           1 read, 0 unreadable
//	gdtopo_fleet_group{source}        its group, 1 the largest (0 unreadable)
//	gdtopo_fleet_alike{source}        1 in the majority state of group 1
//	gdtopo_fleet_differences{source}  differences from its reference
//	gdtopo_fleet_worse_differences{source}  of which worse
//	gdtopo_fleet_worse_differences_by_what{source,what}  those by what differs, non-zero only
//	gdtopo_fleet_last_run_timestamp_seconds  when fleet ran
//
// Names as in the source list; a source named twice is an error, as the
// collector would reject the duplicate series.
func WriteFleetPrometheus(w io.Writer, r *Result, now time.Time) error {
	families := []struct{ name, help string }{
		{"gdtopo_fleet_up", "1 when gdtopo fleet read the source, 0 when it could not."},
		{"gdtopo_fleet_group", "The source's group in gdtopo fleet (same hardware, by place and model), 1 the largest; 0 unreadable."},
		{"gdtopo_fleet_alike", "1 when the source is in the majority state of the largest group, else 0."},
		{"gdtopo_fleet_differences", "How many ways the source differs from its group's majority (or a later group's majority from the first's)."},
		{"gdtopo_fleet_worse_differences", "Of those, how many are worse: a slower link, a lost device, a new finding..."},
	}
	seen := make(map[string]bool, len(r.names))
	for _, n := range r.names {
		if seen[n] {
			return fmt.Errorf("prometheus: source %q named twice", n)
		}
		seen[n] = true
	}
	bw := bufio.NewWriter(w)
	for fi, f := range families {
		fmt.Fprintf(bw, "# HELP %s %s\n# TYPE %s gauge\n", f.name, f.help, f.name)
		for i := range r.names {
			n := r.Node(i)
			var v int
			switch fi {
			case 0:
				if n.Error == "" {
					v = 1
				}
			case 1:
				v = n.Group
			case 2:
				if n.Alike {
					v = 1
				}
			case 3:
				v = len(n.Differences)
			case 4:
				for _, d := range n.Differences {
					if d.Worse {
						v++
					}
				}
			}
			fmt.Fprintf(bw, "%s{source=\"%s\"} %s\n", f.name, escape(n.Source, true), strconv.Itoa(v))
		}
	}
	// By what differs: a fleet's dashboard sums these (sum by (what)) to
	// see which fault is spreading; zeros are left out, as there are many
	// kinds and few differ.
	const byWhat = "gdtopo_fleet_worse_differences_by_what"
	fmt.Fprintf(bw, "# HELP %s Worse differences of the source by what differs (link, missing, gdr, finding_added...); kinds without any are left out.\n# TYPE %s gauge\n", byWhat, byWhat)
	for i := range r.names {
		n := r.Node(i)
		count := map[string]int{}
		for _, d := range n.Differences {
			if d.Worse {
				count[d.What]++
			}
		}
		whats := make([]string, 0, len(count))
		for k := range count {
			whats = append(whats, k)
		}
		sort.Strings(whats)
		for _, k := range whats {
			fmt.Fprintf(bw, "%s{source=\"%s\",what=\"%s\"} %d\n", byWhat, escape(n.Source, true), escape(k, true), count[k])
		}
	}
	const ts = "gdtopo_fleet_last_run_timestamp_seconds"
	fmt.Fprintf(bw, "# HELP %s Unix time at which gdtopo fleet wrote these metrics.\n# TYPE %s gauge\n%s %s\n",
		ts, ts, ts, strconv.FormatFloat(float64(now.UnixMilli())/1000, 'g', -1, 64))
	return bw.Flush()
}
