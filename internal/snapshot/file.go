package snapshot

import (
	"io"
	"io/fs"

	"github.com/gdtopo/gdtopo/internal/outfile"
)

// WriteFile captures fsys into the file name with outfile.Write: a temporary
// file in the same folder, synced, closed and renamed over name. On any
// error (a full disk included) the temporary file is removed, so no partial
// snapshot is left.
func WriteFile(name string, fsys fs.FS, opts Options) (Stats, error) {
	var st Stats
	err := outfile.Write(name, outfile.Options{}, func(w io.Writer) error {
		var err error
		st, err = Capture(fsys, w, opts)
		return err
	})
	if err != nil {
		return Stats{}, err
	}
	return st, nil
}
