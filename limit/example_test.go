package limit_test

import (
	"fmt"
	"net"
	"net/http"
	"net/http/httptest"

	"github.com/mosaic-edge/mosaic/limit"
)

// Each client address may make 1 request a second, with a burst of 2
// served at once; the next is refused with 429.
func ExamplePolicy() {
	byAddr := func(r *http.Request) string {
		host, _, _ := net.SplitHostPort(r.RemoteAddr)
		return host
	}
	zone, err := limit.NewReqZone(limit.ZoneOptions{Name: "perip", Key: byAddr, Rate: 1000, Size: 1 << 20})
	if err != nil {
		panic(err)
	}
	defer zone.Close()
	p := &limit.Policy{Req: []limit.ReqLimit{{Zone: zone, Burst: 2, Delay: limit.NoDelay}}, ReqStatus: http.StatusTooManyRequests}
	h := p.Wrap(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { fmt.Fprint(w, "ok") }))
	for i := 0; i < 4; i++ {
		w := httptest.NewRecorder()
		h.ServeHTTP(w, httptest.NewRequest("GET", "/", nil))
		fmt.Println(w.Code)
	}
	// Output:
	// 200
	// 200
	// 200
	// 429
}
