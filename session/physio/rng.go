package physio

// splitmix64 is a tiny PRNG whose whole state is one uint64, so an engine's
// snapshot captures its random future exactly.
func splitmix64(state *uint64) uint64 {
	*state += 0x9e3779b97f4a7c15
	z := *state
	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9
	z = (z ^ (z >> 27)) * 0x94d049bb133111eb
	return z ^ (z >> 31)
}

// uniform returns a float in [-1, 1).
func uniform(state *uint64) float64 {
	return float64(splitmix64(state)>>11)/(1<<52) - 1
}
