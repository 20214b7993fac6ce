package knowledge

import (
	"regexp"
	"sync"
)

// lazyRegexp compiles its pattern on first use, so that linking this package adds no work to
// the start of every ward command.
func lazyRegexp(pattern string) func() *regexp.Regexp {
	return sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(pattern) })
}
