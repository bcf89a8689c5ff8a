package vars

// Absent is a set of request header fields known to be missing from a
// request's header map (State.Absent): those whose variables FastCGI's
// usual parameters read on every request, and most requests lack.
type Absent uint8

const (
	AbsentContentType Absent = 1 << iota
	AbsentContentLength
	AbsentAuthorization

	// AbsentAll is every field an Absent can name.
	AbsentAll = AbsentContentType | AbsentContentLength | AbsentAuthorization
)

// AbsentField is the field of Absent that the header key (canonical, as
// the map holds it) is, or 0: a caller walking a map's keys removes each
// from AbsentAll. A switch on the length first, so that most keys are
// told apart without a comparison of their bytes.
func AbsentField(key string) Absent {
	switch len(key) {
	case len("Content-Type"):
		if key == "Content-Type" {
			return AbsentContentType
		}
	case len("Content-Length"):
		if key == "Content-Length" {
			return AbsentContentLength
		}
	case len("Authorization"):
		if key == "Authorization" {
			return AbsentAuthorization
		}
	}
	return 0
}
