package auth_test

import (
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"

	"github.com/mosaic-edge/mosaic/auth"
)

// A user file checks requests as middleware, as "auth_basic" with
// "auth_basic_user_file" does in the server.
func ExampleBasic() {
	dir, _ := os.MkdirTemp("", "example")
	defer os.RemoveAll(dir)
	users := filepath.Join(dir, "htpasswd")
	// Made by "openssl passwd -apr1 -salt xxxxxxxx password".
	os.WriteFile(users, []byte("ann:$apr1$xxxxxxxx$dxHfLAsjHkDRmG83UXe8K0\n"), 0o600)

	h := auth.Basic("Staff", users, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		fmt.Fprintln(w, "welcome")
	}))
	for _, pass := range []string{"password", "guess"} {
		r := httptest.NewRequest("GET", "/", nil)
		r.SetBasicAuth("ann", pass)
		w := httptest.NewRecorder()
		h.ServeHTTP(w, r)
		fmt.Printf("%s %d [%s]\n", pass, w.Code, w.Header().Get("WWW-Authenticate"))
	}
	// Output:
	// password 200 []
	// guess 401 [Basic realm="Staff"]
}

func ExampleLookup() {
	file := []byte("# staff\nann:{SHA}5en6G6MezRroT3XKqkdPOmY/BfQ=:Ann Smith\n")
	hash, ok := auth.Lookup(file, "ann")
	fmt.Println(hash, ok, auth.Match("secret", hash))
	// Output: {SHA}5en6G6MezRroT3XKqkdPOmY/BfQ= true true
}
