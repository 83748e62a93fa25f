//go:build !unix

package cli

import "os"

// terminalColumns says no terminal where gdtopo cannot ask (not Unix).
func terminalColumns(*os.File) (int, bool) { return 0, false }
