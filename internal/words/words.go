// Package words holds the small helpers that put counts into sentences.
package words

import "strconv"

// Count is "1 GPU" or "3 GPUs": n and word, with an s when n is not 1.
func Count(n int, word string) string {
	if n == 1 {
		return "1 " + word
	}
	return strconv.Itoa(n) + " " + word + "s"
}
