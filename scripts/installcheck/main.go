// Command installcheck checks that gdtopo installs the way users install it,
// with go install github.com/gdtopo/gdtopo/cmd/gdtopo@VERSION, without the
// network: it makes the module zip of a commit, serves it from a file-based
// module proxy beside the module cache's own downloads, installs from there
// into a private module cache, and runs the installed gdtopo.
//
// Usage (.ci/install-check builds and runs it):
//
//	.ci/install-check [-rev HEAD] [-version v0.0.0-ci] [-fixture fixtures/hgx-h100.tar.gz] [-keep]
//
// It reads the commit, never the working tree: commit what it should check.
package main

import (
	"archive/tar"
	"bytes"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"io/fs"
	"os"
	"os/exec"
	"path"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"golang.org/x/mod/modfile"
	"golang.org/x/mod/module"
	"golang.org/x/mod/semver"
	"golang.org/x/mod/zip"
)

// command is the folder, in the module, of what users install.
const command = "cmd/gdtopo"

func main() {
	rev := flag.String("rev", "HEAD", "git revision to make the module zip of")
	version := flag.String("version", "v0.0.0-ci", "module version to publish it as")
	fixture := flag.String("fixture", "fixtures/hgx-h100.tar.gz", "source, in the module, for the installed gdtopo check to read")
	keep := flag.Bool("keep", false, "keep the work folder (proxy, private module cache, binary) and say where")
	flag.Parse()
	if err := run(*rev, *version, *fixture, *keep); err != nil {
		fmt.Fprintf(os.Stderr, "install-check: %v\n", err)
		os.Exit(1)
	}
}

func run(rev, version, fixture string, keep bool) error {
	if !semver.IsValid(version) || semver.Build(version) != "" {
		return fmt.Errorf("-version %q: want a semantic version such as v0.0.0-ci or v1.2.3", version)
	}
	work, err := os.MkdirTemp("", "install-check-")
	if err != nil {
		return err
	}
	if keep {
		fmt.Printf("install-check: work folder %s\n", work)
	} else {
		defer os.RemoveAll(work)
	}
	src := filepath.Join(work, "src")
	if err := gitArchive(rev, src); err != nil {
		return err
	}
	goMod, err := os.ReadFile(filepath.Join(src, "go.mod"))
	if err != nil {
		return fmt.Errorf("%s: %w", rev, err)
	}
	mf, err := modfile.Parse("go.mod", goMod, nil)
	if err != nil {
		return fmt.Errorf("%s:go.mod: %w", rev, err)
	}
	if mf.Module == nil {
		return fmt.Errorf("%s:go.mod names no module", rev)
	}
	mod := module.Version{Path: mf.Module.Mod.Path, Version: version}
	pkg := mod.Path + "/" + command

	// Every reason go install would refuse the module, or the check could
	// not run, at once.
	checked, err := zip.CheckDir(src)
	if err != nil && len(checked.Valid)+len(checked.Invalid)+len(checked.Omitted) == 0 {
		return fmt.Errorf("%s: %w", rev, err) // not a verdict on the files: reading them failed
	}
	relative(src, checked.Invalid)
	relative(src, checked.Omitted)
	problems := installable(mf, checked)
	if _, err := os.Stat(filepath.Join(src, filepath.FromSlash(fixture))); errors.Is(err, fs.ErrNotExist) {
		problems = append(problems, fmt.Sprintf("the fixture to check, %s, is not in %s", fixture, rev))
	} else if err != nil {
		return err
	}
	for _, line := range omitted(checked.Omitted) {
		fmt.Printf("install-check: note: %s\n", line)
	}
	if len(problems) > 0 {
		return fmt.Errorf("%s cannot be installed with go install %s@%s:\n  %s", rev, pkg, version, strings.Join(problems, "\n  "))
	}

	proxy := filepath.Join(work, "proxy")
	if err := publish(proxy, mod, src, goMod, rev); err != nil {
		return err
	}
	cache, err := goEnv("GOMODCACHE")
	if err != nil {
		return err
	}
	bin := filepath.Join(work, "bin")
	install := exec.Command("go", "install", pkg+"@"+version)
	install.Dir = work // outside any module, as a user's go install runs
	install.Env = append(os.Environ(),
		// the module from the proxy above; its dependencies from this
		// machine's module cache, whose download folder is a module proxy too
		"GOPROXY=file://"+filepath.ToSlash(proxy)+",file://"+filepath.ToSlash(filepath.Join(cache, "cache", "download")),
		"GOMODCACHE="+filepath.Join(work, "modcache"), // nothing unpacked already
		// and nothing from a checksum database or straight from a repository
		"GOSUMDB=off", "GONOSUMDB=", "GOPRIVATE=", "GONOPROXY=",
		"GOBIN="+bin, "GOWORK=off", "GOTOOLCHAIN=local",
		// -trimpath: the build cache's objects for the dependencies serve
		// whatever folder they are unpacked in; -modcacherw lets the work
		// folder go
		"GOFLAGS=-trimpath -modcacherw",
	)
	if out, err := install.CombinedOutput(); err != nil {
		return fmt.Errorf("go install %s@%s: %w\n%s", pkg, version, err, out)
	}
	gdtopo := filepath.Join(bin, "gdtopo")

	out, err := exec.Command(gdtopo, "version").Output()
	if err != nil {
		return fmt.Errorf("installed gdtopo version: %w", err)
	}
	if want := "gdtopo " + version + ", "; !strings.HasPrefix(string(out), want) {
		return fmt.Errorf("installed gdtopo version says %q; want it to start %q", out, want)
	}
	check := exec.Command(gdtopo, "check", filepath.FromSlash(fixture))
	check.Dir = src
	var stderr bytes.Buffer
	check.Stderr = &stderr
	if err := check.Run(); err != nil {
		return fmt.Errorf("installed gdtopo check %s: %w\n%s", fixture, err, stderr.Bytes())
	}
	fmt.Printf("install-check: go install %s@%s from a module proxy: ok (%s; check %s: ok)\n", pkg, version, strings.SplitN(string(out), "\n", 2)[0], fixture)
	return nil
}

// gitArchive writes the files of the repository's revision rev, as git
// archive gives them, under dir.
func gitArchive(rev, dir string) error {
	top, err := exec.Command("git", "rev-parse", "--show-toplevel").Output()
	if err != nil {
		return fmt.Errorf("git rev-parse --show-toplevel: %w", err)
	}
	cmd := exec.Command("git", "archive", "--format=tar", rev)
	cmd.Dir = strings.TrimSpace(string(top)) // the whole tree from a subfolder too
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	pipe, err := cmd.StdoutPipe()
	if err != nil {
		return err
	}
	if err := cmd.Start(); err != nil {
		return fmt.Errorf("git archive %s: %w", rev, err)
	}
	extractErr := extract(pipe, dir)
	if extractErr != nil {
		_, _ = io.Copy(io.Discard, pipe)
	}
	if err := cmd.Wait(); err != nil {
		return fmt.Errorf("git archive %s: %w: %s", rev, err, bytes.TrimSpace(stderr.Bytes()))
	}
	if extractErr != nil {
		return fmt.Errorf("git archive %s: %w", rev, extractErr)
	}
	return nil
}

// extract writes the folders, files and symbolic links of the tar stream r
// under dir.
func extract(r io.Reader, dir string) error {
	tr := tar.NewReader(r)
	for {
		h, err := tr.Next()
		if errors.Is(err, io.EOF) {
			return nil
		}
		if err != nil {
			return err
		}
		name := path.Clean(h.Name)
		if !filepath.IsLocal(name) {
			continue // pax_global_header and the like are not files
		}
		target := filepath.Join(dir, filepath.FromSlash(name))
		switch h.Typeflag {
		case tar.TypeDir:
			err = os.MkdirAll(target, 0o755)
		case tar.TypeSymlink:
			if err = os.MkdirAll(filepath.Dir(target), 0o755); err == nil {
				err = os.Symlink(h.Linkname, target)
			}
		case tar.TypeReg:
			err = writeFile(target, tr, os.FileMode(h.Mode).Perm())
		}
		if err != nil {
			return fmt.Errorf("%s: %w", name, err)
		}
	}
}

func writeFile(name string, r io.Reader, perm os.FileMode) error {
	if err := os.MkdirAll(filepath.Dir(name), 0o755); err != nil {
		return err
	}
	f, err := os.OpenFile(name, os.O_WRONLY|os.O_CREATE|os.O_EXCL, perm)
	if err != nil {
		return err
	}
	if _, err := io.Copy(f, r); err != nil {
		f.Close()
		return err
	}
	return f.Close()
}

// relative makes the paths of files, under dir, relative to it and
// slash-separated, as in the module.
func relative(dir string, files []zip.FileError) {
	for i, f := range files {
		if rel, err := filepath.Rel(dir, f.Path); err == nil {
			files[i].Path = filepath.ToSlash(rel)
		}
	}
}

// installable lists what keeps go install MODULE@VERSION from installing
// the module: files a module zip cannot hold, a zip over the size limit,
// and directives go install refuses in the module's go.mod.
func installable(mf *modfile.File, checked zip.CheckedFiles) []string {
	var problems []string
	if n := len(checked.Invalid); n > 0 {
		s := fmt.Sprintf("%d files cannot be in a module zip (golang.org/x/mod/module.CheckFilePath: no ':' and other reserved characters in a path):", n)
		for _, g := range groups(checked.Invalid, 20) {
			s += "\n    " + g
		}
		if slices.ContainsFunc(checked.Invalid, func(e zip.FileError) bool { return strings.HasPrefix(e.Path, "fixtures/") }) {
			s += "\n    (a fixture's tree belongs in one archive, fixtures/NAME.tar.gz, which holds any path)"
		}
		problems = append(problems, s)
	}
	if checked.SizeError != nil {
		problems = append(problems, checked.SizeError.Error())
	}
	var directives []string
	for _, r := range mf.Replace {
		directives = append(directives, "replace "+goModSyntax(r.Old)+" => "+goModSyntax(r.New))
	}
	for _, e := range mf.Exclude {
		directives = append(directives, "exclude "+goModSyntax(e.Mod))
	}
	if len(directives) > 0 {
		problems = append(problems, "go.mod has directives go install MODULE@VERSION refuses (they would make the module build otherwise than as the main module):\n    "+strings.Join(directives, "\n    "))
	}
	return problems
}

// goModSyntax writes m as go.mod does: the path, then the version if any.
func goModSyntax(m module.Version) string {
	return strings.TrimSpace(m.Path + " " + m.Version)
}

// omitted describes the files a module zip leaves out (other modules'
// folders, symbolic links).
func omitted(files []zip.FileError) []string {
	if len(files) == 0 {
		return nil
	}
	return append([]string{fmt.Sprintf("%d files and folders are left out of the module zip:", len(files))}, groups(files, 20)...)
}

// groups summarises files by their first two path elements: how many in
// each, and the first with its reason; at most max groups, then how many
// more.
func groups(files []zip.FileError, max int) []string {
	type group struct {
		key   string
		n     int
		first zip.FileError
	}
	var gs []*group
	byKey := map[string]*group{}
	for _, f := range files {
		parts := strings.SplitN(f.Path, "/", 3)
		key := strings.Join(parts[:min(2, len(parts))], "/")
		g := byKey[key]
		if g == nil {
			g = &group{key: key, first: f}
			byKey[key] = g
			gs = append(gs, g)
		}
		g.n++
	}
	var lines []string
	for i, g := range gs {
		if i == max {
			lines = append(lines, fmt.Sprintf("and %d more folders", len(gs)-max))
			break
		}
		why := g.first.Err
		var ipe *module.InvalidPathError
		if errors.As(why, &ipe) {
			why = ipe.Err // without the path again
		}
		lines = append(lines, fmt.Sprintf("%s: %d, such as %s: %v", g.key, g.n, g.first.Path, why))
	}
	return lines
}

// publish writes mod, made from the files under src, into a file-based
// module proxy at dir: the version list, its .info (with rev's commit
// time), .mod and .zip.
func publish(dir string, mod module.Version, src string, goMod []byte, rev string) error {
	escPath, err := module.EscapePath(mod.Path)
	if err != nil {
		return err
	}
	escVersion, err := module.EscapeVersion(mod.Version)
	if err != nil {
		return err
	}
	at := filepath.Join(dir, filepath.FromSlash(escPath), "@v")
	if err := os.MkdirAll(at, 0o755); err != nil {
		return err
	}
	when, err := exec.Command("git", "log", "-1", "--format=%cI", rev).Output()
	if err != nil {
		return fmt.Errorf("git log %s: %w", rev, err)
	}
	t, err := time.Parse(time.RFC3339, strings.TrimSpace(string(when)))
	if err != nil {
		return fmt.Errorf("git log %s: commit time: %w", rev, err)
	}
	info, err := json.Marshal(struct {
		Version string
		Time    time.Time
	}{mod.Version, t.UTC()})
	if err != nil {
		return err
	}
	for name, data := range map[string][]byte{
		"list":               []byte(mod.Version + "\n"),
		escVersion + ".info": info,
		escVersion + ".mod":  goMod,
	} {
		if err := os.WriteFile(filepath.Join(at, name), data, 0o644); err != nil {
			return err
		}
	}
	zipName := filepath.Join(at, escVersion+".zip")
	f, err := os.Create(zipName)
	if err != nil {
		return err
	}
	if err := zip.CreateFromDir(f, mod, src); err != nil {
		f.Close()
		return fmt.Errorf("%s: %w", zipName, err)
	}
	return f.Close()
}

// goEnv is go env name.
func goEnv(name string) (string, error) {
	out, err := exec.Command("go", "env", name).Output()
	if err != nil {
		return "", fmt.Errorf("go env %s: %w", name, err)
	}
	v := strings.TrimSpace(string(out))
	if v == "" {
		return "", fmt.Errorf("go env %s is empty", name)
	}
	return v, nil
}
