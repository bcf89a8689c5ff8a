// Package notmodified answers a response's conditional request fields as
// NGINX's not-modified filter (ngx_http_not_modified_filter_module.c)
// does, for the handlers that stand where that filter acts: the file
// server, the slice filter and the cache.
//
// NGINX's order is not RFC 9110's: If-Unmodified-Since and If-Match are
// both tested (412 when either fails), and a 304 needs every one of
// If-Modified-Since and If-None-Match present to say "not modified" (RFC
// 9110 lets If-None-Match decide alone).
package notmodified

import (
	"net/http"
	"strings"

	"github.com/mosaic-edge/mosaic/internal/httpdate"
)

// Since is NGINX's if_modified_since: how If-Modified-Since is compared
// with the response's modification time.
type Since int

const (
	// Before answers 304 when the response was modified at or before the
	// given time, as RFC 9110 specifies.
	Before Since = iota
	// Exact answers 304 only when the times are equal (NGINX's default).
	Exact
	// Off ignores If-Modified-Since: the response always counts as
	// modified.
	Off
)

// Check evaluates hdr's conditional fields for a 200 response whose
// entity tag is etag (the ETag field's value; empty for none) and whose
// Last-Modified is lastModified in Unix seconds (hasLM false for none, or
// for one that does not parse, as NGINX reads it). It returns 412, 304,
// or 0 to send the response.
func Check[E ~string | ~[]byte](hdr http.Header, etag E, lastModified int64, hasLM bool, since Since) int {
	// An If-Unmodified-Since without a Last-Modified to compare fails.
	if v := hdr["If-Unmodified-Since"]; len(v) > 0 && (!hasLM || !Unmodified(v[0], lastModified)) {
		return http.StatusPreconditionFailed
	}
	if v := hdr["If-Match"]; len(v) > 0 && !Match(v, etag, false) {
		return http.StatusPreconditionFailed
	}
	ims, inm := hdr["If-Modified-Since"], hdr["If-None-Match"]
	if len(ims) == 0 && len(inm) == 0 {
		return 0
	}
	// A field that is there but empty counts, as a miss.
	if len(ims) > 0 && (!hasLM || Modified(ims[0], lastModified, since)) {
		return 0
	}
	if len(inm) > 0 && !Match(inm, etag, true) {
		return 0
	}
	return http.StatusNotModified
}

// CheckResponse is Check for a response whose header is resp, with
// the ETag and Last-Modified fields it carries, read as NGINX's upstream
// module copies them: the first of each, the date read as
// ngx_parse_http_time reads it (httpdate.Conditional: "GMT" or no zone
// alike), and a date that does not parse is none.
func CheckResponse(req, resp http.Header, since Since) int {
	etag := ""
	if v := resp["Etag"]; len(v) > 0 {
		etag = v[0]
	}
	lm, hasLM := int64(0), false
	if v := resp["Last-Modified"]; len(v) > 0 {
		lm, hasLM = httpdate.Conditional(v[0])
	}
	return Check(req, etag, lm, hasLM, since)
}

// Modified reports whether If-Modified-Since's value v lets a response
// last modified at lastModified (Unix seconds) count as modified under
// since, as NGINX's ngx_http_test_if_modified compares them (RequestTime).
// A lastModified of -1 is NGINX's "no Last-Modified": always modified.
func Modified(v string, lastModified int64, since Since) bool {
	if since == Off || lastModified == -1 {
		return true
	}
	s := RequestTime(v)
	return s != lastModified && (since == Exact || s < lastModified)
}

// Unmodified reports whether If-Unmodified-Since's value v lets a
// response last modified at lastModified (Unix seconds) pass, as NGINX's
// ngx_http_test_if_unmodified compares them (RequestTime). A
// lastModified of -1 is NGINX's "no Last-Modified": it fails.
func Unmodified(v string, lastModified int64) bool {
	return lastModified != -1 && RequestTime(v) >= lastModified
}

// RequestTime is a request's date field v as NGINX compares it: the time
// ngx_parse_http_time reads (httpdate.Conditional), and for a value it
// cannot read its error, -1, which NGINX compares as a time like any
// other. That is before every Last-Modified from 1970 on, but after the
// earlier ones: against a Last-Modified of 1962, an invalid
// If-Unmodified-Since passes and an invalid If-Modified-Since under
// "if_modified_since before" answers 304.
func RequestTime(v string) int64 {
	if t, ok := httpdate.Conditional(v); ok {
		return t
	}
	return -1
}

// Match reports whether the entity-tag lists in values name etag, as
// NGINX reads a list: "*" matches, even without a tag, only as the whole
// value ("*, \"x\"" names no tag); an entry matches when it begins with
// the tag and only blanks follow it before a comma or the end; anything
// else, an empty value included, is skipped up to the next comma. weak
// selects If-None-Match's comparison, where a "W/" prefix is ignored on
// both sides; If-Match compares the bytes as they are, so W/"x" never
// matches the strong "x".
func Match[E ~string | ~[]byte](values []string, etag E, weak bool) bool {
	for _, v := range values {
		if v == "*" {
			return true
		}
		if len(etag) > 0 && listNames(v, etag, weak) {
			return true
		}
	}
	return false
}

// listNames is Match for one non-empty tag and one list.
func listNames[E ~string | ~[]byte](list string, etag E, weak bool) bool {
	if weak && len(etag) > 2 && etag[0] == 'W' && etag[1] == '/' {
		etag = etag[2:]
	}
	for list != "" {
		if weak && len(list) > 2 && list[0] == 'W' && list[1] == '/' {
			list = list[2:]
		}
		if len(etag) > len(list) {
			return false
		}
		if list[:len(etag)] == string(etag) {
			list = strings.TrimLeft(list[len(etag):], " \t")
			if list == "" || list[0] == ',' {
				return true
			}
		}
		end := strings.IndexByte(list, ',')
		if end < 0 {
			return false
		}
		list = strings.TrimLeft(list[end:], " \t,")
	}
	return false
}
