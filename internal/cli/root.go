package cli

import (
	"runtime/debug"
	"strconv"
	"strings"
	"sync"

	"github.com/spf13/cobra"

	"github.com/gdtopo/gdtopo/internal/names"
	"github.com/gdtopo/gdtopo/internal/render"
)

// globalOptions are the flags every command shares.
type globalOptions struct {
	IO     *Streams
	PCIIDs string // --pci-ids
	NVSMI  string // --nvsmi: the host's nvidia-smi topo -m, for the commands that take it

	namesOnce sync.Once
	names     *names.Resolver
}

// command is one of gdtopo's commands: its name, the first word of its Use,
// and its constructor.
type command struct {
	name string
	new  func(*globalOptions) *cobra.Command
}

// commands lists gdtopo's commands in the order they are added to the root.
func commands() []command {
	return []command{
		{"check", newCmdCheck}, {"matrix", newCmdMatrix}, {"tree", newCmdTree}, {"path", newCmdPath},
		{"compare", newCmdCompare}, {"export", newCmdExport}, {"snapshot", newCmdSnapshot},
		{"verify", newCmdVerify}, {"fleet", newCmdFleet}, {"calibrate", newCmdCalibrate}, {"explain", newCmdExplain},
		{"version", newCmdVersion},
	}
}

// NewRootCmd builds the whole command tree.
func NewRootCmd(io *Streams) *cobra.Command { return newRootCmdFor(io, nil) }

// newRootCmdFor builds the command tree for running args: when args starts
// with a command's name, the root holds that command alone (cobra finds and
// runs it, and its help and errors read the same, as they name no other
// command) and no completion command; otherwise (help, completion, a flag
// first, a mistyped name that cobra suggests a command for) the whole tree.
// Building the other ten commands, their flags and cobra's completion
// command would cost every run's start for nothing.
func newRootCmdFor(io *Streams, args []string) *cobra.Command {
	opts := &globalOptions{IO: io}
	root := &cobra.Command{
		Use:   "gdtopo",
		Short: "Tell how well GPUDirect RDMA can work on a machine, why, and what to change",
		Long: `gdtopo reads a machine's PCIe tree and NUMA layout and labels every
accelerator-NIC path the way nvidia-smi topo -m (PIX, PXB, PHB, NODE, SYS) and
NCCL do, with the links on the way and the narrowest of them; predicts each
pair's GPUDirect RDMA throughput; and reports what is wrong and how to fix it.

SOURCE is what to read, recognised by what it is, never by its name:
  (nothing)         this machine's live /sys and /proc (read only; root adds)
  DIR               a captured tree: a folder holding sys/ (and proc/)
  FILE.tar[.gz|.bz2|.zst]
                    a snapshot archive, read in memory (gdtopo snapshot,
                    hwloc-gather-topology tarballs, ghw snapshots)
  FILE, or -        lspci output (-tv, -vvv, -vmm, -PP, -xxx), an NCCL
                    topology file, hwloc XML or lstopo text; - reads stdin

Every command writes its output in the format -o names (table by default);
"gdtopo completion bash|zsh|fish|powershell" writes a shell completion script.

Exit status: 0 ok, 1 error, 2 usage, 3 problems found at or above --fail-on.`,
		SilenceUsage:  true,
		SilenceErrors: true,
	}
	root.SetOut(io.Out)
	root.SetErr(io.Err)
	// flag descriptions wrap to the output's width (pflag: 0 is no wrapping)
	root.SetUsageTemplate(strings.ReplaceAll(root.UsageTemplate(), ".FlagUsages", ".FlagUsagesWrapped "+strconv.Itoa(io.Style.Width)))
	root.SetFlagErrorFunc(func(_ *cobra.Command, err error) error { return &usageError{err} })
	root.PersistentFlags().StringVar(&opts.PCIIDs, "pci-ids", "", "pci.ids file for device names (default: the system's, never downloaded)")
	all, whole := commands(), true
	for _, c := range all {
		if len(args) > 0 && args[0] == c.name {
			all, whole = []command{c}, false
			root.CompletionOptions.DisableDefaultCmd = true
			break
		}
	}
	for _, c := range all {
		root.AddCommand(c.new(opts))
	}
	if whole {
		// --version, a flag of the whole tree's root alone, prints what
		// gdtopo version prints (a template of one quoted string, so that
		// nothing in it is read as template)
		v := readVersion(io.Version, debug.ReadBuildInfo)
		root.Version = v.Version
		root.SetVersionTemplate("{{" + strconv.Quote(v.String()) + "}}")
	}
	if io.Style.Width > 0 && whole {
		// gdtopo's own help is written to 80 columns; cobra's completion
		// help is not, and is wrapped to the width
		root.InitDefaultCompletionCmd()
		for _, c := range root.Commands() {
			if c.Name() == "completion" {
				wrapHelp(c, io.Style.Width)
			}
		}
	}
	return root
}

// wrapHelp wraps the long descriptions of cmd and its subcommands to
// width, a tab that indents a line made four spaces.
func wrapHelp(cmd *cobra.Command, width int) {
	cmd.Long = render.WrapLines(strings.ReplaceAll(cmd.Long, "\n\t", "\n    "), width)
	for _, c := range cmd.Commands() {
		wrapHelp(c, width)
	}
}

// addOutputFlag gives a command -o FORMAT into target, offering formats,
// the first the default.
func addOutputFlag(cmd *cobra.Command, target *string, formats []render.Format) {
	cmd.Flags().StringVarP(target, "output", "o", string(formats[0]), "output format: "+render.Names(formats))
	names := strings.Split(render.Names(formats), ", ")
	_ = cmd.RegisterFlagCompletionFunc("output", cobra.FixedCompletions(names, cobra.ShellCompDirectiveNoFileComp))
}

// addNVSMIFlag gives a command --nvsmi FILE.
func (o *globalOptions) addNVSMIFlag(cmd *cobra.Command) {
	cmd.Flags().StringVar(&o.NVSMI, "nvsmi", "", "the host's nvidia-smi topo -m output (- for standard input): NV# counts, NIC names and the driver's labels to check the source against")
}

// parseFormat checks -o against the formats the command offers.
func parseFormat(value string, formats []render.Format) (render.Format, error) {
	f, err := render.ParseFormat(value, formats)
	if err != nil {
		return "", &usageError{err}
	}
	return f, nil
}
