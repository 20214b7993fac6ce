package live

import "github.com/ward-sim/ward/persist/outfile"

// SaveText writes what a trainee asked to keep (an exported chat, a saved prompt) as ward writes
// every output (persist/outfile): to a new file, or over an ordinary one only with force; never
// over a file ward is using; readable by the user alone; whole or not at all.
func SaveText(path string, force bool, text string) error {
	return outfile.WriteString(path, force, text)
}
