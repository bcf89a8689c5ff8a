package server

// The order of every location's handler chain, in one place. A module
// that contributes a filter or a content handler is named here, and
// Register refuses one that is not: adding a module is a line in these
// tables plus its package.
//
// A request goes down filterOrder, the outermost filter first, to the
// location's content, which is the first module in contentOrder whose
// settings claim the location; between the two run the core's steps
// (internal, client_max_body_size, try_files, error_page). Filters
// marked InSubrequest also wrap the content when it serves a subrequest
// (an ESI fragment, for one). The cache is content: a location's cache
// sits right in front of its proxy, as in NGINX, behind the core's steps.
// The filters marked PerRequest (status, accesslog) come first: they wrap
// the request once; the others are the output filters, which an internal
// redirect's target replaces with its own (filterlayer.go).
var (
	filterOrder = []string{
		"status",    // counts the response for metrics, as the client got it
		"accesslog", // logs the response as the client got it
		"throttle",  // limit_rate: paces the bytes that leave, compressed or not
		"compress",  // brotli, zstd, gzip of the assembled response
		"addition",  // add_*_body: its parts skip the page's SSI and sub, as NGINX's subrequest output does
		"esi",       // assembles pages; its fragments run the contents below
		"ssi",       // NGINX's SSI, inside compression as in NGINX; its includes are subrequests
		"charset",   // charset_map: recodes the body SSI reads, after sub_filter's rewriting, as NGINX's filter
		// image_filter: between charset and sub as in NGINX; it wipes the
		// fields that add_header and userid set for its size JSON, as
		// NGINX's does.
		"image_filter",
		"sub", // sub_filter: inside SSI, so that SSI reads the rewritten text, as in NGINX
		// gunzip: inside sub, charset, SSI and addition, which read the
		// text it decodes, and compression, which may encode it again,
		// as NGINX's filter sits.
		"gunzip",
		"userid", // the userid cookie, set after add_header's fields, as NGINX's filter
		// add_header, expires: on the content's response, before SSI and
		// compression see it, as NGINX's headers filter runs before theirs
		// (gzip_proxied judges expires' Cache-Control, gzip weakens an
		// added ETag, SSI drops it).
		"headers",
		// slice: nearest the content, as NGINX's slice filter is the
		// first to see a response's header; the filters above see the
		// assembled 200 or 206, never a slice.
		"slice",
	}
	// preaccessOrder is NGINX's preaccess phase, the first listed
	// running first; it sits inside the core's steps, right in front of
	// try_files and the content.
	preaccessOrder = []string{
		"realip", // the client's address, for the limits and access rules after it
		"limit",  // limit_req, then limit_conn, as NGINX runs them
	}
	// accessOrder is NGINX's access phase, the first listed checking
	// first (access.go); "satisfy" combines the verdicts.
	accessOrder = []string{
		"access",       // allow, deny
		"auth_basic",   // auth_basic, auth_basic_user_file
		"auth_request", // auth_request, auth_request_set
	}
	// precontentOrder is NGINX's precontent phase, the first listed
	// running first: inside try_files (whose resolution NGINX's phase
	// runs first), right in front of the content.
	precontentOrder = []string{
		"mirror", // mirror: background subrequests with the client's request
	}
	contentOrder = []string{
		"core",      // no content of its own: "return" is a rewrite step (rewrite.go)
		"status",    // stub_status, metrics
		"cache",     // purge and status endpoints; proxy_pass behind a proxy_cache
		"proxy",     // proxy_pass
		"fastcgi",   // fastcgi_pass
		"uwsgi",     // uwsgi_pass
		"scgi",      // scgi_pass
		"memcached", // memcached_pass
		"grpc",      // grpc_pass
		"empty_gif", // the 1x1 GIF
		"flv",       // files, "?start=" cut behind the FLV header
		"mp4",       // files, "?start=&end=" cut to an MP4 file of its own
		"dav",       // PUT, DELETE, MKCOL, COPY, MOVE; the other methods go to static
		"static",    // files: the content of a location nothing else claims
	}
)

// orderOf returns name's place in table, or -1.
func orderOf(table []string, name string) int {
	for i, n := range table {
		if n == name {
			return i
		}
	}
	return -1
}
