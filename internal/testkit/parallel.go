package testkit

import (
	"flag"
	"strconv"
)

// DefaultParallel sets -test.parallel to n unless the command line set it,
// for a TestMain to call before m.Run: a package whose tests mostly wait
// on child processes, leases and retries runs more of them at once than
// there are CPUs, the flag's own default. It parses the command line.
func DefaultParallel(n int) error {
	flag.Parse()
	set := false
	flag.Visit(func(f *flag.Flag) { set = set || f.Name == "test.parallel" })
	if set {
		return nil
	}
	return flag.Set("test.parallel", strconv.Itoa(n))
}
