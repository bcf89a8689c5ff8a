package server

import (
	"net/http"

	"github.com/mosaic-edge/mosaic/vars"
)

// evalWithStatus evaluates the text of an answer with code as $status:
// NGINX sets a return's status before it evaluates the text, so
// `return 200 "$status"` says 200. The State gets its status back after,
// for the writer to record the one that goes out (an error_page may
// replace it).
func evalWithStatus(t *vars.Template, r *http.Request, code int) string {
	st := vars.FromContext(r.Context())
	if st == nil || st.Status != 0 {
		return t.Eval(r)
	}
	st.Status = code
	s := t.EvalState(r, st)
	st.Status = 0
	return s
}
