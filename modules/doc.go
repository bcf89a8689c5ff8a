// Package modules documents and checks mosaic's wiring layer; the wiring
// itself is in its subpackages, one for each library:
//
//	modules/accessmod     allow, deny                    -> access (a check of the access phase)
//	modules/additionmod   add_before_body, add_after_body, addition_types -> addition (a filter; parts: server.Subrequest)
//	modules/accesslogmod  log_format, access_log        -> accesslog
//	modules/authmod       auth_basic*, auth_request*     -> auth (checks of the access phase)
//	modules/autoindexmod  autoindex*                     -> autoindex (static's listing of a directory)
//	modules/browsermod    modern_browser, ancient_browser… -> browser ($modern_browser, $ancient_browser, $msie)
//	modules/cachemod      proxy_cache_path, proxy_cache* -> cache (+ proxy)
//	modules/compressmod   brotli*, zstd*, gzip*, gunzip  -> compress
//	modules/davmod        dav_methods, dav_access…       -> dav (content before static, which serves the other methods)
//	modules/emptygifmod   empty_gif                      -> emptygif (content; static's conditionals)
//	modules/esimod        esi*                           -> esi (fragments: server.Subrequest)
//	modules/fastcgimod    fastcgi_pass, fastcgi_*        -> fastcgi (+ proxy, as its Wire; gatewaymod)
//	modules/gatewaymod    the *_pass, *_param... every gateway shares (a helper for fastcgimod, uwsgimod, scgimod, memcachedmod)
//	modules/geomod        geo                            -> geo (a variable per geo block)
//	modules/geoipmod      geoip_country, geoip_city…     -> geoip ($geoip_* variables from legacy MaxMind databases)
//	modules/grpcmod       grpc_pass, grpc_*              -> grpcproxy (HTTP/2 to gRPC servers; proxy's balancer)
//	modules/gunzipmod     (compressmod's gunzip)          -> gunzip (a filter inside sub, SSI, charset; also in subrequests)
//	modules/headersmod    add_header, expires            -> headers
//	modules/limitmod      limit_req*, limit_conn*        -> limit (the preaccess phase)
//	modules/mapmod        map, map_hash_*                -> vmap (a variable per map)
//	modules/memcachedmod  memcached_pass, memcached_*    -> memcached (+ proxy, as its Wire; gatewaymod)
//	modules/mirrormod     mirror, mirror_request_body    -> mirror (the precontent phase: server.Background)
//	modules/proxymod      proxy_pass, upstream, proxy_*  -> proxy
//	modules/randomindexmod random_index                  -> static (its RandomIndex option)
//	modules/realipmod     set_real_ip_from, real_ip_*    -> realip (post-read and preaccess steps)
//	modules/referermod    valid_referers, referer_hash_* -> referer ($invalid_referer)
//	modules/rewritemod    rewrite, set, break, if, rewrite_log… -> rewrite (steps of the core's rewrite phases)
//	modules/scgimod       scgi_pass, scgi_*              -> scgi (+ proxy, as its Wire; gatewaymod)
//	modules/securelinkmod secure_link*                   -> securelink ($secure_link, $secure_link_expires)
//	modules/splitmod      split_clients                  -> splitclients (a variable per block)
//	modules/ssimod        ssi*                           -> ssi (includes: server.Subrequest)
//	modules/staticmod     index, etag, open_file_cache…  -> static (+ compress, esi, ssi, autoindex options)
//	modules/statusmod     stub_status, metrics           -> status (a filter counting responses; $connections_*)
//	modules/submod        sub_filter*                    -> sub (a filter, also in subrequests)
//	modules/throttlemod   limit_rate, limit_rate_after   -> throttle (a filter)
//	modules/useridmod     userid, userid_*               -> userid (a filter; $uid_got, $uid_set)
//	modules/uwsgimod      uwsgi_pass, uwsgi_*            -> uwsgi (+ proxy, as its Wire; gatewaymod)
//
// A wiring package declares its module's directives, settings and merge
// functions, registers a server.Module from its init, and builds the
// library's handler for each location from the merged settings. It is the
// only kind of package that imports both the server and a library; where
// two modules cooperate (the cache in front of the proxy, precompressed
// variants for static files), the wiring passes explicit values and
// interfaces between the libraries, which know nothing of each other.
//
// The order in which filters wrap a location and content handlers are
// asked is one table, in server/order.go. The imports are checked by this
// package's tests: see TestLayers.
package modules
