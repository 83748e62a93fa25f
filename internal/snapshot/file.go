package snapshot

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
)

// WriteFile captures fsys into the file name, atomically: it writes a
// temporary file in the same folder, syncs it and renames it over name. On
// any error the temporary file is removed, so no partial snapshot is left.
func WriteFile(name string, fsys fs.FS, opts Options) (Stats, error) {
	dir := filepath.Dir(name)
	switch fi, err := os.Stat(dir); {
	case errors.Is(err, fs.ErrNotExist):
		return Stats{}, fmt.Errorf("write %s: folder %s does not exist", name, dir)
	case err != nil:
		return Stats{}, fmt.Errorf("write %s: %w", name, err)
	case !fi.IsDir():
		return Stats{}, fmt.Errorf("write %s: %s is not a folder", name, dir)
	}
	if fi, err := os.Stat(name); err == nil && fi.IsDir() {
		return Stats{}, fmt.Errorf("write %s: is a folder", name)
	}
	f, err := os.CreateTemp(dir, "."+filepath.Base(name)+".*.tmp")
	if err != nil {
		var pe *fs.PathError
		if errors.As(err, &pe) {
			err = pe.Err
		}
		return Stats{}, fmt.Errorf("write %s: %w", name, err)
	}
	tmp := f.Name()
	st, err := Capture(fsys, f, opts)
	if err == nil {
		err = f.Chmod(0o644)
	}
	if err == nil {
		err = f.Sync()
	}
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err == nil {
		err = os.Rename(tmp, name)
	}
	if err != nil {
		os.Remove(tmp)
		return Stats{}, fmt.Errorf("write %s: %w", name, err)
	}
	if d, err := os.Open(dir); err == nil { // make the rename durable; best effort
		d.Sync()
		d.Close()
	}
	return st, nil
}
