package vars

import (
	"net/http"
	"testing"
)

// TestAbsentField: the three fields an Absent names, and no other key,
// however close in length or spelling.
func TestAbsentField(t *testing.T) {
	for key, want := range map[string]Absent{
		"Content-Type": AbsentContentType, "Content-Length": AbsentContentLength,
		"Authorization": AbsentAuthorization, "Content-Typf": 0, "content-type": 0,
		"Content-Range": 0, "Authorisation": 0, "Accept-Ranges": 0, "": 0,
	} {
		if got := AbsentField(key); got != want {
			t.Errorf("AbsentField(%q) = %b, want %b", key, got, want)
		}
	}
}

// TestAbsentSkipsLookup: with State.Absent naming a field, its variable
// reads as the field missing, whatever the map says (the caller vouches
// for the map), $content_length then giving the State's BodyLength.
func TestAbsentSkipsLookup(t *testing.T) {
	r, _ := http.NewRequest("GET", "/", nil)
	r.Header = http.Header{"Content-Type": {"a/b"}, "Content-Length": {"3"}, "Authorization": {"Basic dTpw"}}
	st := &State{}
	st.MakeRare().BodyLength = "7"
	r = r.WithContext(NewContext(r.Context(), st))
	tpl := MustCompile("$content_type|$content_length|$remote_user")
	if got := tpl.Eval(r); got != "a/b|3|u" {
		t.Fatalf("nothing known absent: %q", got)
	}
	st.Absent = AbsentAll
	if got := tpl.Eval(r); got != "|7|" {
		t.Errorf("all known absent: %q", got)
	}
}
