package proxy

// Internals that the tests of package proxy_test look at.

// Limits that the tests reach on purpose.
const (
	MaxHeaderBytes = maxHeaderBytes
	SpoolMemory    = defaultBodyMemory
)

// IdleConns counts the connections u keeps for reuse.
func IdleConns(u *Upstream) int {
	u.idle.mu.Lock()
	defer u.idle.mu.Unlock()
	return len(u.idle.conns)
}

// PrimaryFails returns the failure count of each primary server of u, by
// address.
func PrimaryFails(u *Upstream) map[string]int {
	u.mu.Lock()
	defer u.mu.Unlock()
	fails := map[string]int{}
	for _, p := range u.primary {
		fails[p.addr] = p.fails
	}
	return fails
}
