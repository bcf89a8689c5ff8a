package cache

// understoodStatus reports the final statuses whose caching requirements
// the cache implements, for must-understand (RFC 9111 section 5.2.2.3):
// those RFC 9110 defines.
func understoodStatus(status int) bool {
	switch status {
	case 200, 201, 202, 203, 204, 205, 206,
		300, 301, 302, 303, 304, 305, 307, 308,
		400, 401, 402, 403, 404, 405, 406, 407, 408, 409, 410, 411, 412, 413, 414, 415, 416, 417, 421, 422, 426,
		500, 501, 502, 503, 504, 505:
		return true
	}
	return false
}

// heuristicStatus reports the statuses RFC 9110 section 15.1 defines as
// heuristically cacheable.
func heuristicStatus(status int) bool {
	switch status {
	case 200, 203, 204, 206, 300, 301, 308, 404, 405, 410, 414, 501:
		return true
	}
	return false
}
