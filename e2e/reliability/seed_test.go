package reliability

import (
	"math/rand/v2"
	"testing"
)

// seededRand returns a random source for one scenario whose seed is logged,
// so that a failing run's kill times can be read back from its log.
func seededRand(t *testing.T) *rand.Rand {
	t.Helper()
	seed := rand.Uint64()
	t.Logf("random seed %d", seed)
	return rand.New(rand.NewPCG(seed, seed))
}
