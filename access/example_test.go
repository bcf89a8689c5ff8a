package access_test

import (
	"fmt"

	"github.com/mosaic-edge/mosaic/access"
)

// The rules of an NGINX block ("allow 192.168.1.0/24; deny all;"): the
// first that matches the client decides.
func ExampleList() {
	var rules access.List
	rules.Add(false, "192.168.1.0/24")
	rules.Add(true, "all")
	for _, client := range []string{"192.168.1.7:51000", "203.0.113.9:443", "[2001:db8::1]:80"} {
		fmt.Println(client, rules.Check(client))
	}
	// Output:
	// 192.168.1.7:51000 allow
	// 203.0.113.9:443 deny
	// [2001:db8::1]:80 deny
}
