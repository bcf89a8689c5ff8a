// Package limit limits the rate of requests and the number of requests in
// progress per key, with the semantics of NGINX's limit_req and
// limit_conn modules: a leaky bucket counted in thousandths of a request,
// burst, nodelay and delay=, several limits applied together, dry runs,
// and zones whose size bounds the number of keys they remember.
//
// A zone lives in this process's memory, or in Redis (ReqZoneOptions.Redis,
// ConnZoneOptions.Redis), where every process naming the same database and
// zone shares it: a fleet then enforces one limit. Each Redis operation is
// one atomic script bounded by a timeout; when Redis cannot answer, or its
// circuit breaker is open, the zone limits locally, in memory, until it
// answers again.
//
// Policy.Wrap makes a net/http middleware of a set of limits; it records
// its outcome in the request's vars.State ($limit_req_status,
// $limit_conn_status) and applies itself once per request.
package limit
