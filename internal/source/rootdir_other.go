//go:build !linux

package source

import "io/fs"

// Where the kernel has no openat2, os.Root answers for every name.

func (d rootDir) openBeneath(string) (fs.File, bool, error)           { return nil, false, nil }
func (d rootDir) statBeneath(string, bool) (fs.FileInfo, bool, error) { return nil, false, nil }
func (d rootDir) readLinkBeneath(string) (string, bool, error)        { return "", false, nil }
func (d rootDir) readDirBeneath(string) ([]fs.DirEntry, bool, error)  { return nil, false, nil }
