package all

import (
	"testing"

	"github.com/mosaic-edge/mosaic/server"
)

// NGINX marks each directive that may appear inside an "if" block of a
// location with NGX_HTTP_LIF_CONF; mosaic's CtxLocationIf is the same
// promise. The lists below were written from NGINX 1.22.1's sources: the
// ngx_command_t tables of src/core, src/event, src/os and src/http (the
// mail and stream modules aside), every directive NGINX has, whether or
// not mosaic registers it, so that a directive a module adds later is
// classified already.

// lifNGINX: NGINX's directives flagged NGX_HTTP_LIF_CONF.
var lifNGINX = []string{
	"access_log", "add_header", "add_trailer", "break", "charset", "error_page", "expires",
	"fastcgi_pass", "grpc_pass", "gzip", "limit_rate", "limit_rate_after", "memcached_pass",
	"override_charset", "post_action", "proxy_pass", "return", "rewrite", "rewrite_log", "root",
	"scgi_pass", "sendfile", "set", "source_charset", "ssi", "uninitialized_variable_warn",
	"uwsgi_pass",
}

// lifThirdParty: directives of third-party modules that mosaic follows
// and that flag NGX_HTTP_LIF_CONF: "brotli" (ngx_brotli) and "zstd"
// (zstd-nginx-module). Their other directives are not allowed in "if".
var lifThirdParty = []string{"brotli", "zstd"}

// notLIFNGINX: every other directive of NGINX 1.22.1. Of the SSI module
// only "ssi" itself is allowed inside "if"; ssi_types and the others
// are not.
var notLIFNGINX = []string{
	"absolute_redirect", "accept_mutex", "accept_mutex_delay", "acceptex_read", "add_after_body",
	"add_before_body", "addition_types", "aio", "aio_write", "alias", "allow", "ancient_browser",
	"ancient_browser_value", "auth_basic", "auth_basic_user_file", "auth_delay", "auth_request",
	"auth_request_set", "autoindex", "autoindex_exact_size", "autoindex_format",
	"autoindex_localtime", "charset_map", "charset_types", "chunked_transfer_encoding",
	"client_body_buffer_size", "client_body_in_file_only", "client_body_in_single_buffer",
	"client_body_temp_path", "client_body_timeout", "client_header_buffer_size",
	"client_header_timeout", "client_max_body_size", "connection_pool_size", "create_full_put_path",
	"daemon", "dav_access", "dav_methods", "debug_connection", "debug_points", "default_type",
	"degradation", "degrade", "deny", "devpoll_changes", "devpoll_events", "directio",
	"directio_alignment", "disable_symlinks", "empty_gif", "env", "epoll_events", "errmsg",
	"error_log", "etag", "eventport_events", "events", "fastcgi_bind", "fastcgi_buffer_size",
	"fastcgi_buffering", "fastcgi_buffers", "fastcgi_busy_buffers_size", "fastcgi_cache",
	"fastcgi_cache_background_update", "fastcgi_cache_bypass", "fastcgi_cache_key",
	"fastcgi_cache_lock", "fastcgi_cache_lock_age", "fastcgi_cache_lock_timeout",
	"fastcgi_cache_max_range_offset", "fastcgi_cache_methods", "fastcgi_cache_min_uses",
	"fastcgi_cache_path", "fastcgi_cache_revalidate", "fastcgi_cache_use_stale",
	"fastcgi_cache_valid", "fastcgi_catch_stderr", "fastcgi_connect_timeout", "fastcgi_force_ranges",
	"fastcgi_hide_header", "fastcgi_ignore_client_abort", "fastcgi_ignore_headers", "fastcgi_index",
	"fastcgi_intercept_errors", "fastcgi_keep_conn", "fastcgi_limit_rate",
	"fastcgi_max_temp_file_size", "fastcgi_next_upstream", "fastcgi_next_upstream_timeout",
	"fastcgi_next_upstream_tries", "fastcgi_no_cache", "fastcgi_param", "fastcgi_pass_header",
	"fastcgi_pass_request_body", "fastcgi_pass_request_headers", "fastcgi_read_timeout",
	"fastcgi_request_buffering", "fastcgi_send_lowat", "fastcgi_send_timeout",
	"fastcgi_socket_keepalive", "fastcgi_split_path_info", "fastcgi_store", "fastcgi_store_access",
	"fastcgi_temp_file_write_size", "fastcgi_temp_path", "flv", "geo", "geoip_city", "geoip_country",
	"geoip_org", "geoip_proxy", "geoip_proxy_recursive", "google_perftools_profiles", "grpc_bind",
	"grpc_buffer_size", "grpc_connect_timeout", "grpc_hide_header", "grpc_ignore_headers",
	"grpc_intercept_errors", "grpc_next_upstream", "grpc_next_upstream_timeout",
	"grpc_next_upstream_tries", "grpc_pass_header", "grpc_read_timeout", "grpc_send_timeout",
	"grpc_set_header", "grpc_socket_keepalive", "grpc_ssl_certificate", "grpc_ssl_certificate_key",
	"grpc_ssl_ciphers", "grpc_ssl_conf_command", "grpc_ssl_crl", "grpc_ssl_name",
	"grpc_ssl_password_file", "grpc_ssl_protocols", "grpc_ssl_server_name", "grpc_ssl_session_reuse",
	"grpc_ssl_trusted_certificate", "grpc_ssl_verify", "grpc_ssl_verify_depth", "gunzip",
	"gunzip_buffers", "gzip_buffers", "gzip_comp_level", "gzip_disable", "gzip_hash",
	"gzip_http_version", "gzip_min_length", "gzip_no_buffer", "gzip_proxied", "gzip_static",
	"gzip_types", "gzip_vary", "gzip_window", "hash", "http", "http2_body_preread_size",
	"http2_chunk_size", "http2_idle_timeout", "http2_max_concurrent_pushes",
	"http2_max_concurrent_streams", "http2_max_field_size", "http2_max_header_size",
	"http2_max_requests", "http2_pool_size", "http2_push", "http2_push_preload",
	"http2_recv_buffer_size", "http2_recv_timeout", "http2_streams_index_size", "if",
	"if_modified_since", "ignore_invalid_headers", "image_filter", "image_filter_buffer",
	"image_filter_interlace", "image_filter_jpeg_quality", "image_filter_sharpen",
	"image_filter_transparency", "image_filter_webp_quality", "include", "index", "internal",
	"iocp_threads", "ip_hash", "keepalive", "keepalive_disable", "keepalive_requests",
	"keepalive_time", "keepalive_timeout", "kqueue_changes", "kqueue_events",
	"large_client_header_buffers", "least_conn", "limit_conn", "limit_conn_dry_run",
	"limit_conn_log_level", "limit_conn_status", "limit_conn_zone", "limit_except", "limit_req",
	"limit_req_dry_run", "limit_req_log_level", "limit_req_status", "limit_req_zone",
	"lingering_close", "lingering_time", "lingering_timeout", "listen", "load_module", "location",
	"lock_file", "log_format", "log_not_found", "log_subrequest", "map", "map_hash_bucket_size",
	"map_hash_max_size", "master_process", "max_ranges", "memcached_bind", "memcached_buffer_size",
	"memcached_connect_timeout", "memcached_gzip_flag", "memcached_next_upstream",
	"memcached_next_upstream_timeout", "memcached_next_upstream_tries", "memcached_read_timeout",
	"memcached_send_timeout", "memcached_socket_keepalive", "merge_slashes", "min_delete_depth",
	"mirror", "mirror_request_body", "modern_browser", "modern_browser_value", "mp4",
	"mp4_buffer_size", "mp4_max_buffer_size", "mp4_start_key_frame", "msie_padding", "msie_refresh",
	"multi_accept", "open_file_cache", "open_file_cache_errors", "open_file_cache_events",
	"open_file_cache_min_uses", "open_file_cache_valid", "open_log_file_cache", "output_buffers",
	"pcre_jit", "perl", "perl_modules", "perl_require", "perl_set", "pid", "port_in_redirect",
	"post_acceptex", "postpone_gzipping", "postpone_output", "proxy_bind", "proxy_buffer_size",
	"proxy_buffering", "proxy_buffers", "proxy_busy_buffers_size", "proxy_cache",
	"proxy_cache_background_update", "proxy_cache_bypass", "proxy_cache_convert_head",
	"proxy_cache_key", "proxy_cache_lock", "proxy_cache_lock_age", "proxy_cache_lock_timeout",
	"proxy_cache_max_range_offset", "proxy_cache_methods", "proxy_cache_min_uses", "proxy_cache_path",
	"proxy_cache_revalidate", "proxy_cache_use_stale", "proxy_cache_valid", "proxy_connect_timeout",
	"proxy_cookie_domain", "proxy_cookie_flags", "proxy_cookie_path", "proxy_force_ranges",
	"proxy_headers_hash_bucket_size", "proxy_headers_hash_max_size", "proxy_hide_header",
	"proxy_http_version", "proxy_ignore_client_abort", "proxy_ignore_headers",
	"proxy_intercept_errors", "proxy_limit_rate", "proxy_max_temp_file_size", "proxy_method",
	"proxy_next_upstream", "proxy_next_upstream_timeout", "proxy_next_upstream_tries",
	"proxy_no_cache", "proxy_pass_header", "proxy_pass_request_body", "proxy_pass_request_headers",
	"proxy_read_timeout", "proxy_redirect", "proxy_request_buffering", "proxy_send_lowat",
	"proxy_send_timeout", "proxy_set_body", "proxy_set_header", "proxy_socket_keepalive",
	"proxy_ssl_certificate", "proxy_ssl_certificate_key", "proxy_ssl_ciphers",
	"proxy_ssl_conf_command", "proxy_ssl_crl", "proxy_ssl_name", "proxy_ssl_password_file",
	"proxy_ssl_protocols", "proxy_ssl_server_name", "proxy_ssl_session_reuse",
	"proxy_ssl_trusted_certificate", "proxy_ssl_verify", "proxy_ssl_verify_depth", "proxy_store",
	"proxy_store_access", "proxy_temp_file_write_size", "proxy_temp_path", "random", "random_index",
	"read_ahead", "real_ip_header", "real_ip_recursive", "recursive_error_pages",
	"referer_hash_bucket_size", "referer_hash_max_size", "request_pool_size",
	"reset_timedout_connection", "resolver", "resolver_timeout", "satisfy", "scgi_bind",
	"scgi_buffer_size", "scgi_buffering", "scgi_buffers", "scgi_busy_buffers_size", "scgi_cache",
	"scgi_cache_background_update", "scgi_cache_bypass", "scgi_cache_key", "scgi_cache_lock",
	"scgi_cache_lock_age", "scgi_cache_lock_timeout", "scgi_cache_max_range_offset",
	"scgi_cache_methods", "scgi_cache_min_uses", "scgi_cache_path", "scgi_cache_revalidate",
	"scgi_cache_use_stale", "scgi_cache_valid", "scgi_connect_timeout", "scgi_force_ranges",
	"scgi_hide_header", "scgi_ignore_client_abort", "scgi_ignore_headers", "scgi_intercept_errors",
	"scgi_limit_rate", "scgi_max_temp_file_size", "scgi_next_upstream", "scgi_next_upstream_timeout",
	"scgi_next_upstream_tries", "scgi_no_cache", "scgi_param", "scgi_pass_header",
	"scgi_pass_request_body", "scgi_pass_request_headers", "scgi_read_timeout",
	"scgi_request_buffering", "scgi_send_timeout", "scgi_socket_keepalive", "scgi_store",
	"scgi_store_access", "scgi_temp_file_write_size", "scgi_temp_path", "secure_link",
	"secure_link_md5", "secure_link_secret", "send_lowat", "send_timeout", "sendfile_max_chunk",
	"server", "server_name", "server_name_in_redirect", "server_names_hash_bucket_size",
	"server_names_hash_max_size", "server_tokens", "set_real_ip_from", "slice", "split_clients",
	"ssi_ignore_recycled_buffers", "ssi_last_modified", "ssi_min_file_chunk", "ssi_silent_errors",
	"ssi_types", "ssi_value_length", "ssl", "ssl_buffer_size", "ssl_certificate",
	"ssl_certificate_key", "ssl_ciphers", "ssl_client_certificate", "ssl_conf_command", "ssl_crl",
	"ssl_dhparam", "ssl_early_data", "ssl_ecdh_curve", "ssl_engine", "ssl_ocsp", "ssl_ocsp_cache",
	"ssl_ocsp_responder", "ssl_password_file", "ssl_prefer_server_ciphers", "ssl_protocols",
	"ssl_reject_handshake", "ssl_session_cache", "ssl_session_ticket_key", "ssl_session_tickets",
	"ssl_session_timeout", "ssl_stapling", "ssl_stapling_file", "ssl_stapling_responder",
	"ssl_stapling_verify", "ssl_trusted_certificate", "ssl_verify_client", "ssl_verify_depth",
	"stub_status", "sub_filter", "sub_filter_last_modified", "sub_filter_once", "sub_filter_types",
	"subrequest_output_buffer_size", "tcp_nodelay", "tcp_nopush", "thread_pool", "timefmt",
	"timer_resolution", "try_files", "types", "types_hash_bucket_size", "types_hash_max_size",
	"underscores_in_headers", "upstream", "use", "user", "userid", "userid_domain", "userid_expires",
	"userid_flags", "userid_mark", "userid_name", "userid_p3p", "userid_path", "userid_service",
	"uwsgi_bind", "uwsgi_buffer_size", "uwsgi_buffering", "uwsgi_buffers", "uwsgi_busy_buffers_size",
	"uwsgi_cache", "uwsgi_cache_background_update", "uwsgi_cache_bypass", "uwsgi_cache_key",
	"uwsgi_cache_lock", "uwsgi_cache_lock_age", "uwsgi_cache_lock_timeout",
	"uwsgi_cache_max_range_offset", "uwsgi_cache_methods", "uwsgi_cache_min_uses", "uwsgi_cache_path",
	"uwsgi_cache_revalidate", "uwsgi_cache_use_stale", "uwsgi_cache_valid", "uwsgi_connect_timeout",
	"uwsgi_force_ranges", "uwsgi_hide_header", "uwsgi_ignore_client_abort", "uwsgi_ignore_headers",
	"uwsgi_intercept_errors", "uwsgi_limit_rate", "uwsgi_max_temp_file_size", "uwsgi_modifier1",
	"uwsgi_modifier2", "uwsgi_next_upstream", "uwsgi_next_upstream_timeout",
	"uwsgi_next_upstream_tries", "uwsgi_no_cache", "uwsgi_param", "uwsgi_pass_header",
	"uwsgi_pass_request_body", "uwsgi_pass_request_headers", "uwsgi_read_timeout",
	"uwsgi_request_buffering", "uwsgi_send_timeout", "uwsgi_socket_keepalive",
	"uwsgi_ssl_certificate", "uwsgi_ssl_certificate_key", "uwsgi_ssl_ciphers",
	"uwsgi_ssl_conf_command", "uwsgi_ssl_crl", "uwsgi_ssl_name", "uwsgi_ssl_password_file",
	"uwsgi_ssl_protocols", "uwsgi_ssl_server_name", "uwsgi_ssl_session_reuse",
	"uwsgi_ssl_trusted_certificate", "uwsgi_ssl_verify", "uwsgi_ssl_verify_depth", "uwsgi_store",
	"uwsgi_store_access", "uwsgi_string", "uwsgi_temp_file_write_size", "uwsgi_temp_path",
	"valid_referers", "variables_hash_bucket_size", "variables_hash_max_size", "worker_aio_requests",
	"worker_connections", "worker_cpu_affinity", "worker_priority", "worker_processes",
	"worker_rlimit_core", "worker_rlimit_nofile", "worker_shutdown_timeout", "working_directory",
	"xml_entities", "xslt_last_modified", "xslt_param", "xslt_string_param", "xslt_stylesheet",
	"xslt_types", "zone",
}

// notLIFOther: directives mosaic registers that NGINX 1.22.1 does not
// have (mosaic's own, later releases', Debian's backports, the
// third-party modules' other ones); none is allowed inside "if" in a location.
var notLIFOther = []string{
	"brotli_buffers", "brotli_comp_level", "brotli_idle_encoders", "brotli_min_length",
	"brotli_parallel_compressors", "brotli_parallel_segment_size", "brotli_parallel_tasks",
	"brotli_retention_policy", "brotli_reuse_memory", "brotli_static", "brotli_thread_pool",
	"brotli_types", "brotli_window", "compress_cache", "compress_cache_size", "compress_dictionary", "compress_prefer",
	"compress_skip_types", "esi", "esi_buffer_size", "esi_fragment_timeout", "esi_max_depth",
	"esi_max_fragment_size", "esi_max_held_size", "esi_max_includes", "esi_plan", "esi_plan_zone", "esi_silent_errors", "esi_stitch",
	"esi_stitch_level", "esi_surrogate", "esi_types", "fastcgi_cache_heuristic",
	"fastcgi_cache_post_reuse", "fastcgi_cache_targeted_headers", "gzip_parallel_compressors",
	"gzip_parallel_segment_size", "gzip_parallel_tasks", "gzip_thread_pool", "http2", "max_headers", "metrics",
	"proxy_cache_heuristic", "proxy_cache_post_reuse", "proxy_cache_purge", "proxy_cache_status",
	"proxy_cache_targeted_headers", "scgi_cache_heuristic", "scgi_cache_post_reuse",
	"scgi_cache_targeted_headers", "uwsgi_cache_heuristic", "uwsgi_cache_post_reuse",
	"uwsgi_cache_targeted_headers", "zstd_buffers", "zstd_comp_level", "zstd_min_length",
	"zstd_parallel_compressors", "zstd_parallel_segment_size", "zstd_parallel_tasks", "zstd_static",
	"zstd_thread_pool", "zstd_types",
}

// TestLocationIfContextMatchesNGINX checks, for every directive mosaic
// registers, that it is allowed inside "if" in a location exactly when
// NGINX allows it there, and that no directive goes unclassified.
func TestLocationIfContextMatchesNGINX(t *testing.T) {
	want := map[string]bool{}
	for _, list := range [][]string{lifNGINX, lifThirdParty, notLIFNGINX, notLIFOther} {
		for _, n := range list {
			if _, dup := want[n]; dup {
				t.Errorf("%q is listed twice", n)
			}
			want[n] = false
		}
	}
	for _, n := range append(append([]string(nil), lifNGINX...), lifThirdParty...) {
		want[n] = true
	}
	got := map[string]bool{}
	for _, d := range server.Directives() {
		got[d.Name] = got[d.Name] || d.Context&server.CtxLocationIf != 0
	}
	for n, lif := range got {
		w, listed := want[n]
		switch {
		case !listed:
			t.Errorf("directive %q is registered but not classified here: does NGINX allow it in \"if\" in a location?", n)
		case lif != w:
			t.Errorf("directive %q: allowed in \"if\" in a location: mosaic %v, NGINX %v", n, lif, w)
		}
	}
	for _, n := range notLIFOther {
		if _, ok := got[n]; !ok {
			t.Errorf("%q is listed as mosaic's own but no module registers it", n)
		}
	}
}
